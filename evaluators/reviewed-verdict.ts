/**
 * A case's reviewed verdict, and the final verdict every surface shows.
 *
 * Reviewed verdict (from the human labels of the case, `human_labels`; the
 * root-cause label left out): seed 004 §九.4 asks for two independent
 * annotators (双人独立标注), so a review decides a case only once at least
 * REVIEWERS_PER_CASE reviewers labelled a metric of it and they agree — every
 * one of them passed every metric they labelled → passed; every one of them
 * failed at least one → failed. With fewer reviewers the review is pending,
 * and when they disagree it is undecided: either way there is no reviewed
 * verdict, the automatic verdict stays and the case stays in the review
 * queue. One reviewer alone therefore never turns an automatic failed or
 * review_required into a pass.
 *
 * Final verdict = the reviewed verdict when there is one, else the automatic
 * quality_status — except that a review never passes a request that did not
 * complete (its task threw, errored or timed out: execution_status failed or
 * timeout, or execution_error.type system_error, environment_error or timeout;
 * reliability-summary.ts, the test the automatic verdict fails such a request
 * by, case-verdict.ts). No answer reached the user, so there is nothing a
 * reviewer's pass could vouch for: reviewers who agree on a pass of such a
 * request leave it failed, and their pass is set aside with the reason
 * (`reviewSetAside`, shown on the trace, the review form and the queue) rather
 * than silently ignored; reviewers who agree it failed decide it, as for any
 * request. A partial trace (evaluated before its root span ended) is not a
 * request that did not complete, as for the automatic verdict.
 * Labels by the anonymous reviewer (ANONYMOUS_REVIEWER, "local": whoever uses
 * the web UI on loopback without tokens, whose identity nothing proves) are
 * kept and shown, but never count toward the reviewers who decide a case, nor
 * block them: one person could otherwise make "two reviewers agree" alone, by
 * labelling once with a token and once without. A review by two reviewers
 * therefore needs tokens (RAGSCOPE_UI_TOKENS, RAGSCOPE_UI_TENANT_TOKENS). In SQL
 * the same rule is aggregate-metrics.ts COUNTED_REVIEWER.
 * The gate, the report, the dashboards, the Quality and
 * Failures pages and the traces list all use it. In SQL the same rule is
 * dashboards/source/aggregate-metrics.ts FINAL_VERDICT (also the traces
 * list's filter, over trace_list) and finalVerdictOfRequests, which the
 * request rollups count; the store contract test checks both give the same
 * verdicts.
 */
import type { CaseResult } from "../contracts/case-result.js";
import { isError, isTimeout, type ExecutionOutcome } from "./aggregate/reliability-summary.js";
import type { HumanLabel } from "./judge/calibration/human-label.js";

type QualityStatus = CaseResult["quality_status"];

/** The human label metric that carries the primary root cause, not a verdict on a metric. */
export const ROOT_CAUSE_LABEL_METRIC = "root_cause";

/**
 * The reviewer of the web UI without tokens (loopback only, ui/access/ui-access.ts): everyone who uses it is this one
 * reviewer, so their labels never count toward the REVIEWERS_PER_CASE who decide a case. No token may carry the name.
 */
export const ANONYMOUS_REVIEWER = "local";

/** How many reviewers must agree before their verdict replaces the automatic one (seed 004 §九.4: two independent annotators). */
export const REVIEWERS_PER_CASE = 2;

/** One reviewer's verdict on a case: failed when they failed any metric they labelled, else passed. */
export type ReviewerVerdict = "passed" | "failed";

/**
 * Where a case's review stands: `pending` while fewer than REVIEWERS_PER_CASE reviewers labelled a metric,
 * `agreed` when at least that many did and all gave the same verdict, `disagreed` otherwise.
 */
export type ReviewState = "pending" | "agreed" | "disagreed";

export interface HumanVerdict {
  /** The reviewed verdict: set only when the review is `agreed`; null while it is pending or the reviewers disagree. */
  verdict: ReviewerVerdict | null;
  state: ReviewState;
  /**
   * Every reviewer counted toward the review who labelled a metric of the case, sorted (the anonymous reviewer is
   * not). Their own verdicts are not here: the review is blind.
   */
  reviewers: string[];
}

/** Whether a label counts toward the reviewers who decide a case: every reviewer's but the anonymous one's. */
export function countsTowardReview(label: Pick<HumanLabel, "labeler_id">): boolean {
  return label.labeler_id !== ANONYMOUS_REVIEWER;
}

/** Each reviewer's verdict on the case, from their labels (the root cause left out). */
export function reviewerVerdictsOf(labels: readonly HumanLabel[]): Map<string, ReviewerVerdict> {
  const failedBy = new Map<string, boolean>();
  for (const label of labels) {
    if (label.metric === ROOT_CAUSE_LABEL_METRIC) continue;
    failedBy.set(label.labeler_id, (failedBy.get(label.labeler_id) ?? false) || label.verdict === "fail");
  }
  return new Map([...failedBy].map(([reviewer, failed]) => [reviewer, failed ? "failed" : "passed"]));
}

/** The reviewed verdict of a case from its labels; null when no reviewer who counts (not the anonymous one) labelled a metric. */
export function humanVerdictOf(labels: readonly HumanLabel[]): HumanVerdict | null {
  const byReviewer = reviewerVerdictsOf(labels.filter(countsTowardReview));
  if (byReviewer.size === 0) return null;
  const reviewers = [...byReviewer.keys()].sort();
  if (byReviewer.size < REVIEWERS_PER_CASE) return { verdict: null, state: "pending", reviewers };
  const verdicts = new Set(byReviewer.values());
  if (verdicts.size > 1) return { verdict: null, state: "disagreed", reviewers };
  return { verdict: [...verdicts][0]!, state: "agreed", reviewers };
}

/** What the final verdict reads of a request besides its labels: the automatic verdict and how the request ended. */
export type ReviewedRequest = Pick<CaseResult, "quality_status"> & ExecutionOutcome;

export interface FinalVerdict {
  verdict: QualityStatus;
  /** The reviewers whose verdict it is; empty when it is the automatic verdict, or failed because their pass was set aside. */
  reviewedBy: string[];
  /** Why the reviewers' agreed verdict is not the final one (they passed a request that did not complete); null otherwise. */
  reviewSetAside: string | null;
}

/** How a request that did not complete ended, in the Case Result's own terms; null when it completed or is partial. */
export function incompletionOf(request: ExecutionOutcome): string | null {
  if (isTimeout(request)) return request.execution_error.type === "timeout" ? "execution_error.type timeout" : "execution_status timeout";
  if (!isError(request)) return null;
  return request.execution_error.type === "none" ? `execution_status ${request.execution_status}` : `execution_error.type ${request.execution_error.type}`;
}

/** What a review can decide of a request that did not complete, said on the review form before anyone labels it. */
export function incompleteReviewNotice(incompletion: string): string {
  return `the request did not complete (${incompletion}): no answer reached the user, so a review can confirm it failed but never pass it`;
}

/**
 * The reason a review's pass of a request that did not complete is set aside. It names no reviewer: the queue shows
 * it to reviewers who have not labelled the case yet.
 */
export function reviewSetAsideReason(incompletion: string): string {
  return `the reviewers agreed on a pass, but ${incompleteReviewNotice(incompletion)}; the verdict stays failed`;
}

/** The final verdict from a request's review (humanVerdictOf of its labels; null without labels). */
export function finalVerdictOfReview(request: ReviewedRequest, reviewed: HumanVerdict | null): FinalVerdict {
  if (reviewed === null || reviewed.verdict === null) return { verdict: request.quality_status, reviewedBy: [], reviewSetAside: null };
  const incompletion = incompletionOf(request);
  if (reviewed.verdict === "passed" && incompletion !== null) return { verdict: "failed", reviewedBy: [], reviewSetAside: reviewSetAsideReason(incompletion) };
  return { verdict: reviewed.verdict, reviewedBy: reviewed.reviewers, reviewSetAside: null };
}

export function finalVerdictOf(request: ReviewedRequest, labels: readonly HumanLabel[]): FinalVerdict {
  return finalVerdictOfReview(request, humanVerdictOf(labels));
}
