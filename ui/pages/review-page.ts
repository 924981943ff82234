/** The review queue, one review item's form (blind), and agreement per metric with item counts. */
import { humanLabelText } from "./human-label-text.js";
import { html } from "./markup.js";
import type { CalibrationEntry } from "../../evaluators/judge/calibration/calibration-report.js";
import type { HumanLabel } from "../../evaluators/judge/calibration/human-label.js";
import { ROOT_CAUSE_LABEL_NAMES } from "../../evaluators/root-cause/root-cause-labels.js";
import { rootCauseMeaningText } from "./root-cause-meaning.js";
import type { TraceDetail } from "../../store/ports/trace-reader.js";
import type { ReviewerAgreement } from "../review/review-agreement.js";
import { chosenRootCause } from "../review/review-labels.js";
import { OUTLASTED_LINES } from "../review/bind-imported-labels.js";
import { ANONYMOUS_REVIEWER, incompleteReviewNotice, incompletionOf, REVIEWERS_PER_CASE, type ReviewerVerdict } from "../../evaluators/reviewed-verdict.js";
import { optional, page, verdictBadge, type Markup, type Viewer } from "./layout.js";
import { listedVerdict, type ListedTrace } from "./traces-page.js";
import { encodeCursor } from "./trace-query.js";
import { reviewAddress, traceAddress } from "./trace-address.js";
import type { TraceCursor } from "../../store/ports/trace-reader.js";
import { utcTime } from "./utc-time.js";
import { MAXIMUM_COMMENT_CHARACTERS } from "../review/review-draft.js";

const kappa = (value: number | null) => (value === null ? "—" : value.toFixed(3));

/** A queued case with where its review stands for the reviewer looking at the queue. */
export interface QueueItem extends ListedTrace {
  labelledByMe: boolean;
  /** How many reviewers gave a verdict (labelled a metric); the review decides at REVIEWERS_PER_CASE who agree. */
  reviewers: number;
  /** The viewing reviewer's own verdict so far, from their labels alone (the others' stay hidden: the review is blind). */
  myVerdict: ReviewerVerdict | null;
}

/**
 * The verdict cell of a queued case: the reviewers' verdict once REVIEWERS_PER_CASE agree (marked human); otherwise
 * the automatic verdict, which still counts everywhere, with the review's state — the viewer's own verdict shown as
 * pending while too few reviewers are in.
 */
function queueVerdict(item: QueueItem): Markup {
  const human = item.human;
  // Decided: the reviewers' verdict, or their pass set aside with the reason (a request that did not complete).
  if (human !== null && human.verdict !== null) return listedVerdict(item);
  const automatic = verdictBadge(item.qualityStatus, false);
  // Only the anonymous reviewer's labels: kept and shown to them, counted toward no review.
  if (human === null) return item.myVerdict === null ? automatic : html`${automatic} <span class="review-state muted" data-review-state="not-counted">yours: <span data-pending-verdict="${item.myVerdict}">${item.myVerdict}</span>, not counted (anonymous reviewer)</span>`;
  if (human.state === "disagreed") return html`${automatic} <span class="review-state muted" data-review-state="disagreed">reviewers disagree: the automatic verdict stays</span>`;
  const mine = item.myVerdict === null ? "" : html`yours: <span data-pending-verdict="${item.myVerdict}">${item.myVerdict}</span>, `;
  return html`${automatic} <span class="review-state muted" data-review-state="pending">${mine}pending until ${REVIEWERS_PER_CASE} reviewers agree</span>`;
}

/**
 * How many reviewers are in, against the REVIEWERS_PER_CASE a review needs: "1 of 2" while too few; past that
 * ("3 of 2" read as a count gone wrong) the count and the number needed.
 */
function reviewerCount(reviewers: number): string {
  return reviewers <= REVIEWERS_PER_CASE ? `${reviewers} of ${REVIEWERS_PER_CASE}` : `${reviewers} (${REVIEWERS_PER_CASE} needed)`;
}

/** The queue's next page: the same filters and page size (`/review?verdict=review_required&limit=20`), from the cursor on. */
export function moreReviewsHref(parameters: URLSearchParams, next: TraceCursor | null): string | null {
  if (next === null) return null;
  const nextParameters = new URLSearchParams(parameters);
  nextParameters.set("after", encodeCursor(next));
  return `/review?${nextParameters.toString()}`;
}

/**
 * Between the queue and its undecided cases: the queue keeps decided cases (so the second reviewer finds them), while
 * `ragscope report`'s "Review queue" counts those still undecided (final verdict review_required) — the link says which
 * list is shown, so the two counts are not read as one.
 */
function undecidedLink(undecidedOnly: boolean): Markup {
  return undecidedOnly
    ? html`<p id="queue-scope">Showing the cases still undecided (final verdict review_required, as <code>ragscope report</code>'s Review queue counts them) · <a id="queue-all" href="/review">every case routed to review</a></p>`
    : html`<p id="queue-scope">Showing every case routed to review, decided ones included · <a id="queue-undecided" href="/review?verdict=review_required">only those still undecided</a> (as <code>ragscope report</code>'s Review queue counts them)</p>`;
}

/**
 * Said on the queue without tokens: everyone is the one anonymous reviewer, whose labels never count toward a
 * review (evaluators/reviewed-verdict.ts ANONYMOUS_REVIEWER), so no case is decided by review from here.
 */
const ANONYMOUS_REVIEWS = html`<p class="notice" id="anonymous-reviews">Without tokens, every review here is by one anonymous reviewer ("${ANONYMOUS_REVIEWER}"): its labels are kept and shown but count toward no verdict — a verdict by review needs ${REVIEWERS_PER_CASE} named reviewers: reviewers with tokens (RAGSCOPE_UI_TENANT_TOKENS), or the labeler ids of a labels file imported here.</p>`;

/**
 * `imported`: how many labels the queue's import form just saved, and how many of its lines a later label outlasted (shown once, after its redirect). `undecidedOnly`:
 * the list is filtered to verdict=review_required. `judgeOverVisible`: the judge's table counts only the labels the
 * viewer may see (review/review-labels.ts labelsVisibleTo), which the page says; false without tokens, where it counts every label.
 */
export function reviewQueuePage(viewer: Viewer, queue: readonly QueueItem[], more: string | null, reviewers: readonly ReviewerAgreement[], judge: readonly CalibrationEntry[], imported: { labels: number; unchanged: number } | null = null, undecidedOnly = false, judgeOverVisible = false): Markup {
  const body = html`${imported === null ? "" : html`<p class="notice" id="message" role="status">Imported ${imported.labels} label${imported.labels === 1 ? "" : "s"}.${imported.unchanged === 0 ? "" : ` ${imported.unchanged} line${imported.unchanged === 1 ? "" : "s"} changed nothing: ${OUTLASTED_LINES}.`}</p>`}${viewer.reviewer === ANONYMOUS_REVIEWER ? ANONYMOUS_REVIEWS : ""}<p>Cases the evaluation routed to review (verdict review_required: heuristic verdicts, evaluator errors, judge/rule disagreements, low-confidence judge results). ${REVIEWERS_PER_CASE} reviewers label each independently; neither sees the other's labels until both are in. A review decides a case only once ${REVIEWERS_PER_CASE} reviewers agree: until then the automatic verdict stays (one reviewer's verdict is shown to them as pending) and the case stays here, and after that its verdict column shows the reviewers' verdict — except that a review never passes a request that did not complete (it threw or timed out): an agreed pass of one leaves it failed, and the column says why. "you" says whether yours is in.</p>
<div id="labels-files"><a href="/api/labels.jsonl" download>Export labels (JSONL)</a> · <form style="display:inline" method="post" action="/review/import" enctype="multipart/form-data"><label>Labels file (JSONL) <input type="file" name="file" accept=".jsonl"></label> <button type="submit">Import labels</button></form></div>
${undecidedLink(undecidedOnly)}
<table id="queue"><thead><tr><th>started (UTC)</th><th>case</th><th>tenant</th><th>verdict</th><th>reviewers</th><th>you</th><th>query</th></tr></thead><tbody>
${queue.map((item) => html`<tr data-case-result-id="${item.caseResultId}"><td>${utcTime(item.startedAt)}</td><td><a href="${reviewAddress(item.caseResultId, item.traceId)}">${item.caseId || item.caseResultId}</a></td><td class="tenant">${optional(item.tenantId)}</td>
<td>${queueVerdict(item)}</td><td>${reviewerCount(item.reviewers)}</td><td>${item.labelledByMe ? "labelled" : "to do"}</td><td class="text">${optional(item.query)}</td></tr>`)}
</tbody></table>${queue.length === 0 ? html`<p id="queue-empty" class="muted">Nothing waits for review: the evaluation routed no stored case to review (automatic verdict review_required).</p>` : ""}${more === null ? "" : html`<p><a id="more" href="${more}">More →</a></p>`}
<section id="agreement"><h2>Agreement between reviewers</h2><table id="reviewer-kappa"><thead><tr><th>metric</th><th>reviewers</th><th>items</th><th>agreement</th><th>Cohen's kappa</th></tr></thead><tbody>
${reviewers.map((entry) => html`<tr data-metric="${entry.metric}"><td>${entry.metric}</td><td>${entry.reviewers === null ? "—" : entry.reviewers.join(" / ")}</td><td class="items">${entry.statistics.items}</td><td>${kappa(entry.statistics.percentAgreement)}</td><td class="kappa">${kappa(entry.statistics.kappa)}${entry.statistics.note === null ? "" : html` <span class="muted">(${entry.statistics.note})</span>`}</td></tr>`)}
</tbody></table>${reviewers.length === 0 ? html`<p id="reviewer-kappa-empty" class="muted">No case has labels of two reviewers yet: agreement is computed once two reviewers label the same case.</p>` : ""}${judgeOverVisible ? html`<p id="reviewer-kappa-scope" class="muted">Counts only the cases you have labelled, as the table below.</p>` : ""}
<h2>Agreement between the judge and the reviewers</h2>${judgeOverVisible ? html`<p id="judge-kappa-scope" class="muted">Counts only the cases you have labelled (your labels, and the other reviewers' of those cases): the review is blind, so others' labels of a case you have not labelled are not counted here.</p>` : ""}<table id="judge-kappa"><thead><tr><th>judge</th><th>metric</th><th>pairs</th><th>agreement</th><th>Cohen's kappa</th></tr></thead><tbody>
${judge.map((entry) => html`<tr data-metric="${entry.metric}"><td>${entry.judgeId}</td><td>${entry.metric}</td><td class="items">${entry.pairs}</td><td>${kappa(entry.passFail.percentAgreement)}</td><td class="kappa">${kappa(entry.passFail.kappa)}</td></tr>`)}
</tbody></table>${judge.length === 0 ? html`<p id="judge-kappa-empty" class="muted">No label${judgeOverVisible ? " you may see" : ""} is of a metric the judge scored yet (faithfulness, citation_support, …): the judge is compared with the reviewers once they label its metrics.</p>` : ""}</section>`;
  return page("Review queue", viewer, body);
}

/** What a review form holds: a verdict per metric, the root cause, the comment. */
export interface ReviewFormValues {
  verdicts: Readonly<Record<string, "pass" | "fail">>;
  rootCause: string | null;
  comment: string;
}

/** A line above the form: a notice ("Saved.") or the reason a submission was not saved. */
export type ReviewMessage = { kind: "notice" | "error"; text: string };

/**
 * The review form of one case. `submitted`: what the reviewer sent when it could not be saved — the form is shown
 * again with their choices and the reason, so nothing they chose is lost; otherwise it holds their stored labels.
 */
export function reviewItemPage(viewer: Viewer, detail: TraceDetail, metrics: readonly string[], mine: readonly HumanLabel[], visible: readonly HumanLabel[], message: ReviewMessage | null, submitted: ReviewFormValues | null = null): Markup {
  const result = detail.caseResult;
  const stored: ReviewFormValues = {
    verdicts: Object.fromEntries(mine.filter((label) => label.metric !== "root_cause").map((label) => [label.metric, label.verdict])),
    // A withdrawn root cause (an empty note) reads as "none".
    rootCause: mine.map(chosenRootCause).find((cause) => cause !== null) ?? null,
    comment: mine.find((label) => label.metric !== "root_cause")?.note ?? "",
  };
  const shown = submitted ?? stored;
  const myVerdict = (metric: string) => shown.verdicts[metric] ?? null;
  const myRootCause = shown.rootCause;
  const myComment = shown.comment;
  const others = visible.filter((label) => label.labeler_id !== viewer.reviewer);
  // Said before anyone labels: a pass of a request that did not complete is set aside, not silently ignored.
  const incompletion = incompletionOf(result);
  const body = html`${message === null ? "" : message.kind === "notice" ? html`<p class="notice" id="message" role="status">${message.text}</p>` : html`<p class="error" id="error" role="alert">Not saved: ${message.text}</p>`}
${incompletion === null ? "" : html`<p class="notice" id="incomplete-request">Note: ${incompleteReviewNotice(incompletion)}. Reviewers who agree on a pass leave it failed; label what failed and the root cause.</p>`}
<section><p><a href="${traceAddress(result.case_result_id, result.trace_id)}" id="open-trace">Open the trace</a> · automatic verdict ${verdictBadge(result.quality_status, false)}</p>
<h2>Query</h2><pre>${optional(result.rag_observation.query)}</pre><h2>Answer</h2><pre>${optional(result.output)}</pre>
<h2>Evaluation Results</h2><ul>${detail.evaluationResults.map((item) => html`<li>${item.evaluator_id}: ${item.outcome} — ${item.reason}</li>`)}</ul></section>
<form method="post" action="${reviewAddress(result.case_result_id, result.trace_id)}" id="review-form"><section><h2>Your labels (${viewer.reviewer})</h2><table>
${metrics.map((metric) => html`<tr><th id="metric-${metric}">${metric}</th><td role="radiogroup" aria-labelledby="metric-${metric}"><label><input type="radio" name="metric:${metric}" value="pass" aria-label="${metric}: pass" ${myVerdict(metric) === "pass" ? "checked" : ""}> pass</label>
<label><input type="radio" name="metric:${metric}" value="fail" aria-label="${metric}: fail" ${myVerdict(metric) === "fail" ? "checked" : ""}> fail</label></td></tr>`)}
</table>${metrics.length === 0 ? html`<p class="muted">No evaluator of this case decided a metric, errored or asked for review; label the root cause or comment.</p>` : ""}
<p><label>Primary root cause <select name="root_cause"><option value="">none</option>${ROOT_CAUSE_LABEL_NAMES.map((name) => html`<option value="${name}" ${myRootCause === name ? "selected" : ""}>${name} — ${rootCauseMeaningText(name)}</option>`)}</select></label></p>
<p><label>Comment<br><textarea name="comment" rows="3" cols="80" maxlength="${MAXIMUM_COMMENT_CHARACTERS}">${myComment}</textarea></label></p><button type="submit" id="save-labels">Save labels</button></section></form>
<section id="other-labels"><h2>Other reviewers</h2>${
    others.length === 0
      ? html`<p class="muted" id="blind">Hidden until you and another reviewer have both labelled this case.</p>`
      : html`<ul>${others.map((label) => html`<li>${label.labeler_id}: ${humanLabelText(label)}</li>`)}</ul>`
  }</section>`;
  return page(`Review ${result.case_id || result.case_result_id}`, viewer, body);
}
