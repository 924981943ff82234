/**
 * Agreement on the review queue, per metric with the number of items:
 * between reviewers (Cohen's kappa over cases two reviewers labelled — the
 * first two by reviewer id when more did), and between the LLM judge and the
 * reviewers (the judge calibration report: each human label paired with the
 * judge's verdict on the same case and metric). The root cause is compared
 * between reviewers over the 18 labels. The anonymous reviewer's labels (the UI without tokens) are left out, as
 * they are from the reviewed verdict (evaluators/reviewed-verdict.ts).
 */
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { calibrationReport, judgeLabelsFromEvaluationResults, type CalibrationEntry } from "../../evaluators/judge/calibration/calibration-report.js";
import { cohenKappa, type AgreementStatistics } from "../../evaluators/judge/calibration/cohen-kappa.js";
import { bucketLabels, bucketOf } from "../../evaluators/judge/calibration/ordinal-buckets.js";
import type { HumanLabel } from "../../evaluators/judge/calibration/human-label.js";
import { countsTowardReview } from "../../evaluators/reviewed-verdict.js";
import { chosenRootCause, ROOT_CAUSE_METRIC } from "./review-labels.js";

export interface ReviewerAgreement {
  metric: string;
  reviewers: [string, string] | null;
  /**
   * On the verdicts (pass / fail), or the root causes. Weighted kappas need ordered categories: with two they equal
   * the plain kappa, and root causes have no order, so they are null here — the ordered scale is `ordinal`.
   */
  statistics: AgreementStatistics;
  /**
   * On the values both reviewers gave, in the judge calibration's buckets (ordinal-buckets.ts), with the weighted
   * kappas: the scale the judge's `ordinal` agreement is on, so this is the ceiling it can be held to. Null for
   * root causes, which have no value.
   */
  ordinal: AgreementStatistics | null;
}

export function reviewerAgreement(labels: readonly HumanLabel[]): ReviewerAgreement[] {
  const byItem = new Map<string, HumanLabel[]>();
  for (const label of labels) {
    // A withdrawn root cause is no rating: the reviewer chose none.
    if (label.metric === ROOT_CAUSE_METRIC && chosenRootCause(label) === null) continue;
    // Nor is the anonymous reviewer's label: it may be any reviewer's, the one it would be compared with included.
    if (!countsTowardReview(label)) continue;
    // A label moved off its request (trace_id "") reviews no answer.
    if (label.trace_id === "") continue;
    // Two reviewers agree or not on one answer: pairs are per request of a case.
    const key = `${label.metric}\u0000${label.case_result_id}\u0000${label.trace_id}`;
    byItem.set(key, [...(byItem.get(key) ?? []), label]);
  }
  const byMetric = new Map<string, { pairs: [string, string][]; values: [string, string][]; reviewers: Set<string> }>();
  for (const [key, itemLabels] of byItem) {
    const metric = key.slice(0, key.indexOf("\u0000"));
    const entry = byMetric.get(metric) ?? { pairs: [], values: [], reviewers: new Set<string>() };
    byMetric.set(metric, entry);
    if (itemLabels.length < 2) continue;
    const [first, second] = [...itemLabels].sort((a, b) => (a.labeler_id < b.labeler_id ? -1 : 1));
    const rating = (label: HumanLabel) => (metric === ROOT_CAUSE_METRIC ? label.note : label.verdict);
    entry.pairs.push([rating(first!), rating(second!)]);
    if (metric !== ROOT_CAUSE_METRIC && first!.value !== null && second!.value !== null) entry.values.push([bucketOf(first!.value), bucketOf(second!.value)]);
    entry.reviewers.add(first!.labeler_id).add(second!.labeler_id);
  }
  return [...byMetric.entries()]
    .sort(([first], [second]) => (first < second ? -1 : 1))
    .map(([metric, entry]) => {
      const reviewers = [...entry.reviewers].sort();
      const rootCause = metric === ROOT_CAUSE_METRIC;
      const nominal = { ...cohenKappa(entry.pairs, rootCause ? [] : ["fail", "pass"]), linearWeightedKappa: null, quadraticWeightedKappa: null };
      return { metric, reviewers: reviewers.length === 2 ? [reviewers[0]!, reviewers[1]!] : null, statistics: nominal, ordinal: rootCause ? null : cohenKappa(entry.values, bucketLabels()) };
    });
}

export function judgeAgreement(labels: readonly HumanLabel[], evaluationResults: readonly EvaluationResult[]): CalibrationEntry[] {
  return calibrationReport(
    labels.filter((label) => label.metric !== ROOT_CAUSE_METRIC && label.trace_id !== ""),
    judgeLabelsFromEvaluationResults(evaluationResults),
  );
}
