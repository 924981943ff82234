/**
 * Calibration of judges against human labels (issue 6: "report agreement and
 * Cohen's kappa per judge and metric"). A judge's verdict and a human's label
 * on the same (case result, metric) form a pair; with several labelers, each
 * human label is its own pair. Per judge and metric:
 *   - pass/fail: percent agreement and kappa over the categories fail, pass;
 *   - ordinal: when both sides gave a value, the values in ordered buckets
 *     (ordinal-buckets.ts) — percent agreement, kappa and the linear and
 *     quadratic weighted kappas, which give partial credit to near misses.
 * Grader errors are not verdicts and are not paired; they are counted.
 */
import type { EvaluationResult } from "../../../contracts/evaluation-result.js";
import { cohenKappa, type AgreementStatistics, type RatingPair } from "./cohen-kappa.js";
import type { HumanLabel } from "./human-label.js";
import { bucketLabels, bucketOf, DEFAULT_BUCKET_EDGES } from "./ordinal-buckets.js";

export interface JudgeLabel {
  judgeId: string;
  metric: string;
  caseResultId: string;
  verdict: "pass" | "fail";
  value: number | null;
}

export interface CalibrationEntry {
  judgeId: string;
  metric: string;
  /** Human–judge pairs. */
  pairs: number;
  /** Human labels of this metric with no verdict of this judge. */
  unpairedHumanLabels: number;
  passFail: AgreementStatistics;
  ordinal: AgreementStatistics;
}

/**
 * Judge verdicts from stored Evaluation Results of judged metrics
 * (evaluator_id `judge.<metric>`, evaluator_version `<rubric version>+<judge id>`,
 * judge-evaluations.ts). Errors and not-applicable results are skipped.
 */
export function judgeLabelsFromEvaluationResults(results: readonly EvaluationResult[]): JudgeLabel[] {
  const labels: JudgeLabel[] = [];
  for (const result of results) {
    if (!result.evaluator_id.startsWith("judge.")) continue;
    // A heuristic judge's score is stored as a measurement, review required below its pass rule (judge-evaluations.ts): read as its verdict here.
    const heuristicMeasurement = result.outcome === "measured" && result.confidence.semantics === "heuristic";
    if (result.outcome !== "passed" && result.outcome !== "failed" && !heuristicMeasurement) continue;
    const verdict = heuristicMeasurement ? (result.review_required ? "fail" : "pass") : result.outcome === "passed" ? "pass" : "fail";
    const metric = result.evaluator_id.slice("judge.".length);
    const separator = result.evaluator_version.indexOf("+");
    const judgeId = separator >= 0 ? result.evaluator_version.slice(separator + 1) : result.evaluator_version;
    labels.push({ judgeId, metric, caseResultId: result.case_result_id, verdict, value: result.metric_values[metric] ?? null });
  }
  return labels;
}

export function calibrationReport(humanLabels: readonly HumanLabel[], judgeLabels: readonly JudgeLabel[], bucketEdges: readonly number[] = DEFAULT_BUCKET_EDGES): CalibrationEntry[] {
  const humansByItem = new Map<string, HumanLabel[]>();
  for (const label of humanLabels) {
    const key = `${label.case_result_id}\u0000${label.metric}`;
    humansByItem.set(key, [...(humansByItem.get(key) ?? []), label]);
  }
  const groups = new Map<string, { judgeId: string; metric: string; passFail: RatingPair[]; ordinal: RatingPair[]; pairedHumanLabels: Set<string> }>();
  for (const judged of judgeLabels) {
    const groupKey = `${judged.judgeId}\u0000${judged.metric}`;
    let group = groups.get(groupKey);
    if (group === undefined) {
      group = { judgeId: judged.judgeId, metric: judged.metric, passFail: [], ordinal: [], pairedHumanLabels: new Set() };
      groups.set(groupKey, group);
    }
    for (const human of humansByItem.get(`${judged.caseResultId}\u0000${judged.metric}`) ?? []) {
      group.pairedHumanLabels.add(human.label_id);
      group.passFail.push([human.verdict, judged.verdict]);
      if (human.value !== null && judged.value !== null) group.ordinal.push([bucketOf(human.value, bucketEdges), bucketOf(judged.value, bucketEdges)]);
    }
  }
  return [...groups.values()]
    .sort((first, second) => (first.judgeId === second.judgeId ? first.metric.localeCompare(second.metric) : first.judgeId.localeCompare(second.judgeId)))
    .map((group) => ({
      judgeId: group.judgeId,
      metric: group.metric,
      pairs: group.passFail.length,
      unpairedHumanLabels: humanLabels.filter((label) => label.metric === group.metric && !group.pairedHumanLabels.has(label.label_id)).length,
      passFail: cohenKappa(group.passFail, ["fail", "pass"]),
      ordinal: cohenKappa(group.ordinal, bucketLabels(bucketEdges)),
    }));
}
