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
 * quality_status. The gate, the report, the dashboards, the Quality and
 * Failures pages and the traces list all use it. In SQL the same rule is
 * dashboards/source/aggregate-metrics.ts FINAL_VERDICT (and
 * finalVerdictOfRequests, which the request rollups count); the store contract
 * test checks both give the same verdicts.
 */
import type { CaseResult } from "../contracts/case-result.js";
import type { HumanLabel } from "./judge/calibration/human-label.js";

type QualityStatus = CaseResult["quality_status"];

/** The human label metric that carries the primary root cause, not a verdict on a metric. */
export const ROOT_CAUSE_LABEL_METRIC = "root_cause";

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
  /** Every reviewer who labelled a metric of the case, sorted. Their own verdicts are not here: the review is blind. */
  reviewers: string[];
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

/** The reviewed verdict of a case from its labels; null when nobody labelled a metric. */
export function humanVerdictOf(labels: readonly HumanLabel[]): HumanVerdict | null {
  const byReviewer = reviewerVerdictsOf(labels);
  if (byReviewer.size === 0) return null;
  const reviewers = [...byReviewer.keys()].sort();
  if (byReviewer.size < REVIEWERS_PER_CASE) return { verdict: null, state: "pending", reviewers };
  const verdicts = new Set(byReviewer.values());
  if (verdicts.size > 1) return { verdict: null, state: "disagreed", reviewers };
  return { verdict: [...verdicts][0]!, state: "agreed", reviewers };
}

export interface FinalVerdict {
  verdict: QualityStatus;
  /** The reviewers whose verdict it is; empty when it is the automatic verdict. */
  reviewedBy: string[];
}

export function finalVerdictOf(automatic: QualityStatus, labels: readonly HumanLabel[]): FinalVerdict {
  const reviewed = humanVerdictOf(labels);
  return reviewed === null || reviewed.verdict === null ? { verdict: automatic, reviewedBy: [] } : { verdict: reviewed.verdict, reviewedBy: reviewed.reviewers };
}
