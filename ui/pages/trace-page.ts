/**
 * One trace: the stage waterfall, the query and rewritten query, the retrieved
 * chunks (gold according to the Eval Case's evidence, through the evaluators'
 * own matching), the retriever's list beside the rerank's when a rerank was
 * recorded (what the reranker moved and dropped), the context, the answer with its citations linked to chunks,
 * every Evaluation Result, the root cause, the judge's verdicts, and the human
 * labels the reviewer may see.
 */
import { html } from "./markup.js";
import { rounded } from "../../report/format-value.js";
import { chunkLabel, type CaseResult, type RetrievedChunk } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import { RagStage } from "../../contracts/span-attributes.js";
import { evidenceCoverageOptions } from "../../evaluators/evidence/evidence-coverage-options.js";
import { chunksHoldingEvidence } from "../../evaluators/evidence/evidence-set-coverage.js";
import { caseGoldEvidence, unmatchedDocumentsReason } from "../../evaluators/evidence/case-gold-evidence.js";
import type { HumanLabel } from "../../evaluators/judge/calibration/human-label.js";
import type { TraceDetail } from "../../store/ports/trace-reader.js";
import type { StoredRawSpan } from "../../contracts/raw-spans.js";
import { droppedEventsCountKey, droppedSpanAttributesCountKey } from "../../collector/00-otlp/per-span-bounds.js";
import type { AttributedRootCause } from "../../dashboards/source/root-causes.js";
import type { HumanVerdict } from "../review/review-labels.js";
import { finalVerdictOfReview, REVIEWERS_PER_CASE } from "../../evaluators/reviewed-verdict.js";
import { optional, page, verdictBadge, type Markup, type Viewer } from "./layout.js";
import { createDefaultRegistry } from "../../evaluators/default-registry.js";
import { parseThreshold } from "../../evaluators/threshold.js";
import { utcTime } from "./utc-time.js";
import { rootCauseMeaningMarkup } from "./root-cause-meaning.js";
import { humanLabelText } from "./human-label-text.js";
import { reviewAddress } from "./trace-address.js";
import { accessVerdict, principalOf, type Principal } from "../../evaluators/rules/retrieval-access-control.js";
import { STAGE_TEXT } from "../../evaluators/rules/retrieval-permission.js";
import { compareRerank, MAXIMUM_RANKS_SHOWN } from "./rerank-comparison.js";
import { isBlind } from "../../collector/wiring/dataset/dataset-mix.js";
import { WITHHELD } from "../../experiments/output/blind-redaction.js";
import { labelOfMetricValue } from "./metric-value-label.js";

const registry = createDefaultRegistry();

const yesNo = (value: boolean | null) => (value === null ? html`<span class="muted">unknown</span>` : value ? "yes" : "no");

/** A blind case's gold is withheld (ui/api/blind-trace-detail.ts): which chunk holds it would name its gold ids. */
const isGoldWithheld = (detail: TraceDetail) => detail.evalCase !== null && isBlind(detail.evalCase);
const GOLD_WITHHELD = html`<span class="muted">withheld (blind split)</span>`;
/**
 * Which chunks hold the case's gold evidence, read as the metrics read it (caseGoldEvidence): a case naming relevant
 * documents only marks every chunk of those documents, and a ranking with a chunk lacking its document id cannot be
 * compared with them, so none is marked either way (unknown), as the metrics are then not applicable.
 */
function goldOfChunks(chunks: readonly RetrievedChunk[], evalCase: EvalCase): boolean[] | null {
  const gold = caseGoldEvidence(evalCase);
  if (unmatchedDocumentsReason(gold, chunks) !== null) return null;
  return chunksHoldingEvidence(chunks, gold.evidence, evidenceCoverageOptions(evalCase));
}

const goldText = (detail: TraceDetail, value: boolean | null) => (isGoldWithheld(detail) ? GOLD_WITHHELD : yesNo(value));
/**
 * Why a request has no judge verdict. An empty "Not judged." read as a fault on a first `ragscope serve`, whose judge
 * is off by default; the page cannot know how the process that evaluated this request was set up, so it names both.
 */
const NOT_JUDGED = html`<p class="muted" id="not-judged">Not judged: no judge evaluated this request. <code>ragscope demo</code> and an in-process <code>ragscope eval</code> judge every case; <code>ragscope serve</code> (which judges for <code>eval --endpoint</code> too) and the evaluators judge a sample of requests only with <code>RAGSCOPE_JUDGE_ENABLED=true</code> (<code>RAGSCOPE_SAMPLE_RATE</code>, default 0.1), with the LLM judge at <code>RAGSCOPE_JUDGE_BASE_URL</code>, else the heuristic one (a measurement, never a verdict).</p>`;
const anchor = (chunkId: string) => `chunk-${chunkId.replace(/[^A-Za-z0-9_-]/g, "_")}`;

/** Why a reviewed case still shows its automatic verdict: too few reviewers so far, or reviewers who disagree. */
function reviewState(human: HumanVerdict | null): Markup | string {
  if (human === null || human.verdict !== null) return "";
  return human.state === "disagreed"
    ? html` <span class="muted" data-review-state="disagreed">reviewers disagree (${human.reviewers.join(", ")}): the automatic verdict stays</span>`
    : html` <span class="muted" data-review-state="pending">review pending: ${human.reviewers.length} of ${REVIEWERS_PER_CASE} reviewers</span>`;
}

export function tracePage(viewer: Viewer, detail: TraceDetail, human: HumanVerdict | null, labels: readonly HumanLabel[], rootCause: AttributedRootCause): Markup {
  const result = detail.caseResult;
  const observation = result.rag_observation;
  const chunks = observation.retrieved_chunks ?? [];
  const gold = detail.evalCase === null || isGoldWithheld(detail) ? null : goldOfChunks(chunks, detail.evalCase);
  const cited = observation.citations === null ? null : new Set(observation.citations);
  const principal = principalOf(result, detail.evalCase);
  const longest = Math.max(1, ...observation.stage_timings.map((timing) => timing.duration_ms));
  const judged = detail.evaluationResults.filter((item) => item.evaluator_id.startsWith("judge."));
  // A review never passes a request that did not complete: its agreed pass is shown set aside, with why.
  const final = finalVerdictOfReview(result, human);
  const body = html`<section id="summary"><table>
<tr><th>case result</th><td id="case-result-id">${result.case_result_id}</td><th>trace id</th><td id="trace-id">${result.trace_id}</td></tr>
<tr><th>service</th><td>${optional(observation.service_name)}</td><th>tenant</th><td>${optional(observation.tenant_id)}</td></tr>
<tr><th>route</th><td>${optional(observation.route)}</td><th>run / case</th><td>${optional(result.run_id)} / ${optional(result.case_id)} ${optional(result.case_version)}</td></tr>
<tr><th>dataset</th><td>${optional(detail.datasetId)}</td><th>started (UTC)</th><td>${utcTime(result.started_at)}</td></tr>
<tr><th>verdict</th><td id="verdict">${final.reviewSetAside !== null ? html`${verdictBadge(final.verdict, false)} <span class="muted" data-review-state="set-aside">${final.reviewSetAside} (reviewed by ${human?.reviewers.join(", ")})</span>` : human !== null && human.verdict !== null ? html`${verdictBadge(human.verdict, true)} <span class="muted">automatic: ${result.quality_status}; reviewed by ${human.reviewers.join(", ")}</span>` : html`${verdictBadge(result.quality_status, false)}${reviewState(human)}`}</td>
<th>execution</th><td>${result.execution_status}${observation.partial_trace ? " (partial trace)" : ""}; latency ${optional(observation.latency_ms === null ? null : rounded(observation.latency_ms, 1))} ms</td></tr></table></section>
${
  observation.malformed_attributes.length === 0
    ? ""
    : html`<section id="malformed-attributes"><h2>Attributes not taken as sent</h2><p class="muted">The collector refused, changed or could not read these span attributes; a field they would have filled shows as missing, unless the note says which value was taken instead.</p><table><thead><tr><th>span</th><th>attribute</th><th>kind</th><th>why</th></tr></thead><tbody>${observation.malformed_attributes.map(
        (note) => html`<tr><td>${note.span_name}</td><td>${note.attribute}</td><td>${note.kind}</td><td>${note.error}</td></tr>`,
      )}</tbody></table></section>`
}
<section id="waterfall"><h2>Stages</h2>${
    observation.stage_timings.length === 0
      ? html`<p class="muted">No stage timings recorded.</p>`
      : html`<p class="muted">Durations in pipeline order (the Case Result keeps durations, not start offsets).</p><table><thead><tr><th>stage</th><th>span</th><th>status</th><th>duration (ms)</th><th>share of the longest</th></tr></thead><tbody>${inPipelineOrder(observation.stage_timings).map(
          (timing) => html`<tr class="stage"><td>${timing.stage}</td><td>${timing.span_name}</td><td>${timing.status}</td><td class="duration" title="${String(timing.duration_ms)}">${rounded(timing.duration_ms, 1)}</td><td style="width:50%"><div class="bar" style="width:${((100 * timing.duration_ms) / longest).toFixed(1)}%"></div></td></tr>`,
        )}</tbody></table>`
  }</section>
<section><h2>Query</h2><pre id="query">${optional(observation.query)}</pre><h3>Rewritten query</h3><pre id="rewritten-query">${optional(observation.rewritten_query)}</pre></section>
<section id="chunks"><h2>Retrieved chunks</h2>${observation.pre_rerank_chunks === null || observation.retrieved_chunks === null ? "" : html`<p class="muted">After the rerank: the list the retrieval metrics read. The retriever's own list, before the rerank, is below.</p>`}${
    observation.retrieved_chunks === null
      ? observation.pre_rerank_chunks !== null
        ? html`<p class="muted" id="chunks-not-available">A rerank was recorded, but its output, the final ranking, is not available (see Attributes not taken as sent above): the retriever's list is not taken in its place, so the retrieval metrics have no value. The retriever's own list, before the rerank, is below.</p>`
        : observation.stage_timings.some((timing) => timing.stage === RagStage.retrieve)
          ? html`<p class="muted" id="chunks-not-available">A retrieval was recorded, but its documents are not available${observation.malformed_attributes.length > 0 ? " (see Attributes not taken as sent above: a list that could not be read whole is not shown, nor measured)" : ": the trace did not carry them"}.</p>`
          : html`<p class="muted">No retrieval recorded.</p>`
      : observation.retrieved_chunks.length === 0
        ? html`<p id="no-chunks">The retrieval returned no chunks.</p>`
        : html`<table><thead><tr><th>rank</th><th>score</th><th>chunk</th><th>document</th><th>version</th><th>ACL</th><th>gold?</th><th>packed?</th><th>cited?</th><th>readable?</th><th>text</th></tr></thead><tbody>${chunks.map(
          (chunk, index) => html`<tr class="chunk" id="${chunk.chunk_id === null ? "" : anchor(chunk.chunk_id)}" data-chunk-id="${chunk.chunk_id ?? ""}">
<td>${chunk.rank}</td><td>${optional(chunk.score)}</td><td>${chunkLabel(chunk)}</td><td>${optional(chunk.document_id)}</td><td>${optional(chunk.document_version)}</td>
<td>${aclText(chunk.acl)}</td>
<td class="gold">${goldText(detail, gold === null ? null : (gold[index] ?? false))}</td><td class="packed">${packedText(observation, chunk.chunk_id)}</td>
<td class="cited">${yesNo(cited === null || chunk.chunk_id === null ? null : cited.has(chunk.chunk_id))}</td><td class="readable">${readableText(chunk, principal)}</td><td class="text" title="${chunk.text ?? ""}">${optional(chunk.text)}</td></tr>`,
        )}</tbody></table>`
  }</section>
${rerankSection(detail, principal, gold, cited)}
<section><h2>Context</h2><pre id="context">${optional(observation.context)}</pre></section>
<section><h2>Answer</h2><pre id="answer">${optional(result.output)}</pre>
<p id="citations">Citations: ${observation.citations === null ? html`<span class="muted">no citation stage recorded</span>` : observation.citations.length === 0 ? "none" : observation.citations.map((id) => html`<a class="citation" href="#${anchor(id)}">${id}</a> `)}</p></section>
<section id="evaluations"><h2>Evaluation Results</h2><table><thead><tr><th>evaluator</th><th>values</th><th>threshold</th><th>outcome</th><th>reason</th><th>evidence</th><th>confidence</th></tr></thead><tbody>${detail.evaluationResults.map(
    (item) => html`<tr class="evaluation" data-evaluator="${item.evaluator_id}"><td>${item.evaluator_id} <span class="muted">v${item.evaluator_version}</span></td>
<td class="values">${Object.entries(item.metric_values).map(([name, value]) => html`<span title="${value === null ? "" : String(value)}">${labelOfMetricValue(name, item.evaluator_id, result)}=${value === null ? "n/a" : Number.isInteger(value) ? String(value) : rounded(value, 4)}</span><br>`)}</td>
<td class="threshold">${thresholdOf(detail, item.evaluator_id, Object.keys(item.metric_values))}</td>
<td class="outcome">${item.outcome}${item.review_required ? " (review)" : ""}</td><td class="reason">${item.reason}</td><td>${item.evidence_refs.join(" ")}</td>
<td>${String(item.confidence.value)} (${item.confidence.semantics})</td></tr>`,
  )}</tbody></table></section>
${rootCauseSection(detail, rootCause)}
<section id="judge"><h2>Judge verdicts</h2>${judged.length === 0 ? NOT_JUDGED : html`<ul>${judged.map((item) => html`<li>${item.evaluator_id}: ${item.outcome} — ${item.reason}</li>`)}</ul>`}</section>
<section id="human-labels"><h2>Human labels</h2>${labels.length === 0 ? html`<p class="muted">None visible.</p>` : html`<ul>${labels.map((label) => html`<li>${label.labeler_id}: ${humanLabelText(label)} <span class="muted">${utcTime(label.labeled_at)} UTC</span></li>`)}</ul>`}
<p><a href="${reviewAddress(result.case_result_id, result.trace_id)}" id="label-case">Label this case</a></p></section>
${rawSpansSection(detail, observation.span_count)}`;
  return page(`Trace ${result.trace_id || result.case_result_id}`, viewer, body);
}

/**
 * The request's root cause as the Failures board and the trace list count it (dashboards/source/root-causes.ts): the
 * one its reviewers agreed on, else the evaluator's. When the reviewers' differs from the evaluator's, both are shown:
 * the list and the board count the reviewers', and the evaluator's explanation is still what the trace shows. A
 * blind case's evaluator reason stays withheld (ui/api/blind-trace-detail.ts), its label with it.
 */
function rootCauseSection(detail: TraceDetail, cause: AttributedRootCause): Markup {
  const evaluated = detail.evaluationResults.find((item) => item.evaluator_id === "root_cause") ?? null;
  const withheld = evaluated !== null && evaluated.reason === WITHHELD;
  const explanation = evaluated === null || withheld || cause.automatic === null ? null : evaluated.reason.slice(evaluated.reason.indexOf(":") + 1).trim();
  const withheldNote = html`<p class="muted" id="root-cause-withheld">${WITHHELD}</p>`;
  let shown: Markup;
  if (cause.reviewed === null) {
    shown =
      evaluated === null
        ? html`<p class="muted">None attributed (only failed cases get one).</p>`
        : withheld
          ? withheldNote
          : cause.automatic === null
            ? html`<p class="muted">The evaluator named no label: ${evaluated.reason}</p>`
            : html`<p><strong id="root-cause-label">${cause.automatic}</strong> ${rootCauseMeaningMarkup(cause.automatic)} <span class="muted" id="root-cause-source">(the evaluator's)</span> — ${explanation}</p>`;
  } else {
    const evaluator = withheld ? "the evaluator's is withheld" : cause.automatic === null ? "the evaluator gave none" : cause.automatic === cause.reviewed ? "the evaluator's too" : `evaluator said ${cause.automatic}`;
    shown = html`<p><strong id="root-cause-label">${cause.reviewed}</strong> ${rootCauseMeaningMarkup(cause.reviewed)} <span class="muted" id="root-cause-source">(reviewers' agreed; ${evaluator})</span></p>${
      withheld ? withheldNote : explanation === null ? "" : html`<p id="evaluator-root-cause">The evaluator${cause.automatic === cause.reviewed ? "" : html`'s ${cause.automatic} ${rootCauseMeaningMarkup(cause.automatic ?? "")}`}: ${explanation}</p>`
    }`;
  }
  return html`<section id="root-cause"><h2>Root cause</h2>${shown}</section>`;
}

/** An empty ACL is a public chunk (retrieval-access-control.ts): said so, not left as a blank cell. */
const aclText = (acl: readonly string[] | null): Markup | string => (acl === null ? html`<span class="muted">none recorded</span>` : acl.length === 0 ? html`<span class="acl-public">public (empty ACL)</span>` : acl.join(", "));

/** Whether the chunk was packed into the prompt, and whether the context stage cut it mid-text to fit. */
function packedText(observation: CaseResult["rag_observation"], chunkId: string | null): Markup | string {
  if (observation.context_chunks === null || chunkId === null) return yesNo(null);
  const entries = observation.context_chunks.filter((entry) => entry.chunk_id === chunkId);
  if (entries.length === 0) return "no";
  return entries.some((entry) => entry.truncated) ? html`yes, <strong class="truncated">truncated</strong>` : "yes";
}

/** May the request's principal read the chunk, by retrieval.permission's rule (evaluators/rules/retrieval-access-control.ts). */
function readableText(chunk: RetrievedChunk, principal: Principal): Markup | string {
  const verdict = accessVerdict(chunk, principal);
  if (verdict === "allowed") return "yes";
  if (verdict === "denied_acl") return html`<strong class="denied">no</strong> (ACL; principal groups ${principal.groups!.join(", ")})`;
  if (verdict === "denied_tenant") return html`<strong class="denied">no</strong> (tenant ${chunk.tenant_id ?? ""}, request tenant ${principal.tenantId ?? ""})`;
  return html`<span class="muted">unknown</span>`;
}

/** A chunk with neither id nor text cannot be found in the other list: its rank there is not known, never guessed. */
const NOT_MATCHABLE = html`<span class="muted">not known (no chunk id or text to match it by)</span>`;

/** A rerank whose output its span lost: no chunk's rank after it is known, and none is shown as dropped. */
const RERANK_OUTPUT_NOT_AVAILABLE = html`<span class="muted">not known (the rerank's output is not available)</span>`;

/**
 * The retriever's own list before the rerank, chunk by chunk beside the rerank's: a rank on a side the trace did not
 * record is said to be not recorded, never filled in.
 */
function rerankSection(detail: TraceDetail, principal: Principal, finalGold: boolean[] | null, cited: Set<string> | null): Markup {
  const observation = detail.caseResult.rag_observation;
  const before = observation.pre_rerank_chunks;
  const after = observation.retrieved_chunks ?? [];
  const heading = html`<h2>Before and after the rerank</h2>`;
  if (before === null) {
    const reranked = observation.stage_timings.some((timing) => timing.stage === RagStage.rerank);
    return reranked
      ? html`<section id="rerank">${heading}<p id="rerank-not-recorded" class="muted">The trace records a rerank but not both of its lists (the retriever's list before it, the rerank's output): ranks before the rerank and ranks after it are not recorded side by side, and the list above is the one the trace carried.</p></section>`
      : html`<section id="rerank">${heading}<p id="rerank-not-recorded" class="muted">Rerank: not recorded. No chunk has a rank before or after a rerank${observation.retrieved_chunks === null ? "" : html`; the list above is the trace's only ranking`}.</p></section>`;
  }
  const evalCase = detail.evalCase;
  const goldBefore = evalCase === null || isGoldWithheld(detail) ? null : goldOfChunks(before, evalCase);
  // A rerank whose output is not available (its span lost it): no chunk of the retriever's is known to be kept or dropped.
  const outputKnown = observation.retrieved_chunks !== null;
  const rows = outputKnown ? compareRerank(before, after) : compareRerank(before, []).map((row) => ({ ...row, stage: "before_rerank_output_not_available" as const }));
  const dropped = outputKnown ? rows.filter((row) => row.before !== null && row.after.length === 0 && row.matchable).length : 0;
  const unmatched = rows.filter((row) => !row.matchable).length;
  const goldOf = (row: (typeof rows)[number]): boolean | null => {
    // Gold within the list the chunk is counted in: the retriever's for its chunks, the rerank's for a chunk only the rerank returned.
    if (row.before !== null) return goldBefore === null ? null : (goldBefore[row.index] ?? false);
    return finalGold === null ? null : (finalGold[row.index] ?? false);
  };
  // A chunk the rerank listed many times: its first places, and how many more (MAXIMUM_RANKS_SHOWN).
  const shown = (row: (typeof rows)[number]) => row.after.slice(0, MAXIMUM_RANKS_SHOWN);
  const more = (row: (typeof rows)[number]) => (row.after.length > MAXIMUM_RANKS_SHOWN ? html` <span class="muted more-ranks">and ${row.after.length - MAXIMUM_RANKS_SHOWN} more</span>` : "");
  const summary = outputKnown
    ? html`The retriever returned ${before.length} chunks, the rerank ${after.length}; ${dropped} of the retriever's chunks dropped by the rerank${unmatched > 0 ? html`; ${unmatched} listed without a chunk id or text, so not matched across the two lists` : ""}. Ranks are positions in each list; scores are each stage's own.`
    : html`The retriever returned ${before.length} chunks; the rerank's output is not available (see Attributes not taken as sent above), so where the rerank put each of them, and which it dropped, is not known. Ranks are positions in the retriever's list.`;
  return html`<section id="rerank">${heading}<p class="muted" id="rerank-summary">${summary}</p>
<table><thead><tr><th>retriever rank</th><th>retriever score</th><th>rank after rerank</th><th>rerank score</th><th>stage</th><th>chunk</th><th>document</th><th>ACL</th><th>readable?</th><th>gold?</th><th>packed?</th><th>cited?</th><th>text</th></tr></thead><tbody>${rows.map(
    (row) => html`<tr class="rerank-chunk" data-chunk-id="${row.chunk.chunk_id ?? ""}" data-stage="${row.stage}">
<td class="retriever-rank">${row.before !== null ? String(row.before.rank) : row.matchable ? html`<span class="muted">not in the retriever's list</span>` : NOT_MATCHABLE}</td><td class="retriever-score">${row.before === null ? html`<span class="muted">—</span>` : optional(row.before.score)}</td>
<td class="rerank-rank">${row.after.length > 0 ? html`${shown(row).map((chunk) => chunk.rank).join(", ")}${more(row)}` : !outputKnown ? RERANK_OUTPUT_NOT_AVAILABLE : row.matchable ? html`<strong class="dropped">dropped</strong>` : NOT_MATCHABLE}</td><td class="rerank-score">${row.after.length === 0 ? html`<span class="muted">—</span>` : html`${shown(row).map((chunk, index) => html`${index === 0 ? "" : ", "}${optional(chunk.score)}`)}${more(row)}`}</td>
<td class="stage">${row.matchable || !outputKnown ? STAGE_TEXT[row.stage] : row.before === null ? "returned by the rerank; whether the retriever listed it is not known" : "retrieved by the first stage; whether the rerank kept it is not known"}</td><td>${chunkLabel(row.chunk)}</td><td>${optional(row.chunk.document_id)}</td><td>${aclText(row.chunk.acl)}</td><td class="readable">${readableText(row.chunk, principal)}</td>
<td class="gold">${goldText(detail, goldOf(row))}</td><td class="packed">${packedText(observation, row.chunk.chunk_id)}</td><td class="cited">${yesNo(cited === null || row.chunk.chunk_id === null ? null : cited.has(row.chunk.chunk_id))}</td>
<td class="text" title="${row.chunk.text ?? ""}">${optional(row.chunk.text)}</td></tr>`,
  )}</tbody></table></section>`;
}

/** An attribute value as text: a string as it is, anything else as JSON (escaped by the html template like all text). */
const attributeText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

function attributeTable(attributes: Readonly<Record<string, unknown>>, kind: string): Markup {
  const keys = Object.keys(attributes).sort();
  if (keys.length === 0) return html`<p class="muted">No ${kind}.</p>`;
  return html`<table class="${kind}"><tbody>${keys.map((key) => html`<tr class="attribute" data-key="${key}"><th scope="row" class="attribute-key">${key}</th><td><pre class="attribute-value">${attributeText(attributes[key])}</pre></td></tr>`)}</tbody></table>`;
}

/**
 * What the span's SDK dropped at its count limits (contracts/raw-spans.ts), shown on its closed line: a list read
 * from it (retrieved documents, messages, vector search hits) may then be short, and the Case Result's notes say
 * what was not read for it. The OTLP counts less what the receiver dropped itself, which it records in ragscope.*
 * attributes (collector/00-otlp/per-span-bounds.ts) and the attributes below show.
 */
function droppedBySdk(span: StoredRawSpan): Markup {
  const bySdk = (count: number | undefined, receiverKey: string): number => {
    const byReceiver = span.attributes[receiverKey];
    return Math.max(0, (count ?? 0) - (typeof byReceiver === "number" ? byReceiver : 0));
  };
  const attributes = bySdk(span.dropped_attributes_count, droppedSpanAttributesCountKey);
  const events = bySdk(span.dropped_events_count, droppedEventsCountKey);
  const parts = [attributes > 0 ? `${attributes} attribute${attributes === 1 ? "" : "s"}` : null, events > 0 ? `${events} event${events === 1 ? "" : "s"}` : null].filter((part): part is string => part !== null);
  if (parts.length === 0) return html``;
  return html` <strong class="span-drops" title="OTLP dropped_attributes_count / dropped_events_count: the span had these but does not carry them (its SDK's OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT / OTEL_SPAN_EVENT_COUNT_LIMIT, 128 by default)">${parts.join(" and ")} dropped by the SDK</strong>`;
}

const nanosecondsToMs = (start: string, end: string): string => (Number(BigInt(end) - BigInt(start)) / 1e6).toFixed(3);

/**
 * The spans in start order, a parent before its children when they started in the same tick of the SDK's clock (a
 * request and its first stage often do; the stored order then follows the span ids), else as stored.
 */
function inStartOrder(spans: readonly StoredRawSpan[]): StoredRawSpan[] {
  const parentOf = new Map(spans.map((span) => [span.span_id, span.parent_span_id]));
  const depth = (spanId: string): number => {
    let levels = 0;
    // Bounded by the span count: a parent cycle (untrusted ids) cannot loop.
    for (let parent = parentOf.get(spanId); parent !== undefined && parentOf.has(parent) && levels < spans.length; parent = parentOf.get(parent)) levels += 1;
    return levels;
  };
  const keyed = spans.map((span, index) => ({ span, index, start: BigInt(span.start_time_unix_nano), depth: depth(span.span_id) }));
  keyed.sort((one, other) => (one.start !== other.start ? (one.start < other.start ? -1 : 1) : one.depth !== other.depth ? one.depth - other.depth : one.index - other.index));
  return keyed.map((item) => item.span);
}

/** The raw spans, one collapsible block each, in start order; every text escaped (untrusted input). */
function rawSpansSection(detail: TraceDetail, readSpans: number): Markup {
  const raw = detail.rawSpans;
  if (raw === null) return html`<section id="raw-spans"><h2>Raw spans</h2><p class="muted">No raw spans stored for this Case Result (${readSpans} spans were read into it): results written without a trace (\`ragscope eval\` of a task) or before the store kept them.</p></section>`;
  const left = raw.spanCount - raw.spans.length;
  return html`<section id="raw-spans"><h2>Raw spans</h2><p class="muted" id="raw-span-count">${raw.spans.length} of ${raw.spanCount} spans stored${left > 0 ? html`; <strong>${left} left out</strong> (the store keeps at most 256 KiB of spans per trace)` : ""}${raw.truncatedValues > 0 ? html`; ${raw.truncatedValues} long values cut (marked)` : ""}.</p>
${inStartOrder(raw.spans).map(
  (span) => html`<details class="raw-span" data-span-id="${span.span_id}"><summary><strong class="span-name">${span.name}</strong> <span class="muted">span ${span.span_id}${span.parent_span_id === "" ? " (root)" : ` ← ${span.parent_span_id}`} · ${nanosecondsToMs(span.start_time_unix_nano, span.end_time_unix_nano)} ms · status ${span.status.code}${span.status.message === "" ? "" : ` ${span.status.message}`}</span>${droppedBySdk(span)}</summary>
<p class="muted">kind ${span.kind} · start ${span.start_time_unix_nano} ns · end ${span.end_time_unix_nano} ns · scope ${span.scope.name} ${span.scope.version}</p>
<h4>Attributes</h4>${attributeTable(span.attributes, "attributes")}
${span.events.length === 0 ? "" : html`<h4>Events</h4>${span.events.map((event) => html`<div class="span-event"><strong>${event.name}</strong> <span class="muted">${event.time_unix_nano} ns${event.body === undefined ? "" : " · sent as an OpenTelemetry log record"}</span>${attributeTable(event.attributes, "event attributes")}${event.body === undefined ? "" : html`<pre class="event-body">${attributeText(event.body)}</pre>`}</div>`)}`}
<h4>Resource</h4>${attributeTable(span.resource, "resource")}</details>`,
)}</section>`;
}

/**
 * The threshold each metric was decided against, as evaluate-case-result.ts
 * decides it: the Eval Case's rubric for the metric, else the evaluator's
 * default threshold; none means the value is a measurement, not a pass.
 */
function thresholdOf(detail: TraceDetail, evaluatorId: string, metrics: readonly string[]): Markup {
  // A blind case's rubric is withheld (contracts/blind-gold.ts): the default shown in its place may not be what decided.
  if (isGoldWithheld(detail)) return GOLD_WITHHELD;
  const rubric = detail.evalCase?.rubric;
  const evaluator = registry.get(evaluatorId);
  const parts = metrics.map((metric) => {
    const rule = rubric !== undefined && typeof rubric === "object" && !Array.isArray(rubric) ? rubric[metric] : undefined;
    if (rule !== undefined && parseThreshold(rule).ok) return `${metric} ${rule} (case rubric)`;
    const fallback = evaluator?.metrics.find((item) => item.name === metric)?.defaultThreshold ?? null;
    return fallback === null ? null : `${metric} ${fallback}`;
  });
  const known = parts.filter((part): part is string => part !== null);
  return known.length === 0 ? html`<span class="muted">none</span>` : html`${known.join("; ")}`;
}

const PIPELINE_ORDER: readonly string[] = Object.values(RagStage);

/**
 * The stages as the pipeline runs them: the request first, then rewrite, retrieve, rerank, context, generate, cite;
 * spans of one stage in their recorded order, unknown stages last. Recorded order is by start time, and the SDK's
 * start times have millisecond resolution: stages that started in the same millisecond (the request and its first
 * stage) came out in any order.
 */
function inPipelineOrder(timings: CaseResult["rag_observation"]["stage_timings"]): CaseResult["rag_observation"]["stage_timings"] {
  const rank = (stage: string) => (PIPELINE_ORDER.includes(stage) ? PIPELINE_ORDER.indexOf(stage) : PIPELINE_ORDER.length);
  return timings.map((timing, index) => ({ timing, index })).sort((left, right) => rank(left.timing.stage) - rank(right.timing.stage) || left.index - right.index).map((item) => item.timing);
}

