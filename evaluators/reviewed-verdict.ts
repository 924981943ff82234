/**
 * A case's reviewed verdict, and the final verdict every surface shows.
 *
 * Reviewed verdict (from the human labels of the case, `human_labels`; the
 * root-cause label left out): every reviewer who labelled a metric passed
 * every metric they labelled → passed; every one of them failed at least one
 * → failed; reviewers disagree → none (the automatic verdict stays, and the
 * case stays in the review queue).
 *
 * Final verdict = the reviewed verdict when there is one, else the automatic
 * quality_status. The gate, the report, the dashboards, the Quality and
 * Failures pages and the traces list all use it. In SQL the same rule is
 * dashboards/source/aggregate-metrics.ts FINAL_VERDICT; the store contract
 * test checks both give the same verdicts.
 */
import type { CaseResult } from "../contracts/case-result.js";
import type { HumanLabel } from "./judge/calibration/human-label.js";

type QualityStatus = CaseResult["quality_status"];

/** The human label metric that carries the primary root cause, not a verdict on a metric. */
export const ROOT_CAUSE_LABEL_METRIC = "root_cause";

export interface HumanVerdict {
  /** passed when every reviewer passed every labelled metric; failed when every reviewer failed one; null when the reviewers disagree. */
  verdict: "passed" | "failed" | null;
  reviewers: string[];
}

/** The reviewed verdict of a case from its labels; null when nobody labelled a metric. */
export function humanVerdictOf(labels: readonly HumanLabel[]): HumanVerdict | null {
  const byReviewer = new Map<string, boolean>();
  for (const label of labels) {
    if (label.metric === ROOT_CAUSE_LABEL_METRIC) continue;
    byReviewer.set(label.labeler_id, (byReviewer.get(label.labeler_id) ?? false) || label.verdict === "fail");
  }
  if (byReviewer.size === 0) return null;
  const failing = new Set(byReviewer.values());
  return { verdict: failing.size === 2 ? null : failing.has(true) ? "failed" : "passed", reviewers: [...byReviewer.keys()].sort() };
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
