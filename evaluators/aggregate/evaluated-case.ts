/**
 * The input of every dataset-level aggregate: a Case Result with the
 * Evaluation Results stored for it and, for offline runs, its Eval Case.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { isWithinLargestMeasurement } from "../../core/largest-measurement.js";
import { isJudgeUsageMetric } from "../judge/judge-usage-metrics.js";

export interface EvaluatedCase {
  caseResult: CaseResult;
  evaluationResults: readonly EvaluationResult[];
  /** Null or absent for online traffic. */
  evalCase?: EvalCase | null;
  /** Reviewers whose agreed verdict replaced the automatic one in caseResult.quality_status (evaluators/reviewed-verdict.ts); absent when it is the automatic verdict. */
  reviewedBy?: readonly string[];
}

/**
 * The case's value of a metric: the first Evaluation Result that carries it
 * with a value (a metric has one owner in a registry; a judge re-run may add a
 * second result, and the first stored wins). Null when not applicable or absent.
 * A value that is not finite or is beyond 2^53 − 1 either way
 * (core/largest-measurement.ts) is none, as both stores hold it (store/clickhouse/result-rows.ts
 * hasValue): `ragscope eval`'s printed summary and `ragscope gate`, which read
 * the results as written, then count the case as the web UI's run summary does.
 * The judge's usage (judge_cost, its tokens) is carried by every judge result
 * for its own call: the case's value is their sum, null when one is not known
 * (a call without a price) — one result's read one metric's call as the case's.
 */
export function metricValueOf(evaluated: EvaluatedCase, metric: string): number | null {
  if (isJudgeUsageMetric(metric)) return judgeUsageOf(evaluated, metric);
  return firstMeasured(evaluated, metric)?.value ?? null;
}

/** The first Evaluation Result carrying a measured value of `metric` (metricValueOf's rule), with that value. */
function firstMeasured(evaluated: EvaluatedCase, metric: string): { result: EvaluationResult; value: number } | null {
  for (const result of evaluated.evaluationResults) {
    const value = result.metric_values[metric];
    if (isWithinLargestMeasurement(value)) return { result, value };
  }
  return null;
}

function judgeUsageOf(evaluated: EvaluatedCase, metric: string): number | null {
  let total: number | null = null;
  for (const result of evaluated.evaluationResults) {
    if (!(metric in result.metric_values)) continue;
    const value = result.metric_values[metric];
    if (!isWithinLargestMeasurement(value)) return null;
    total = (total ?? 0) + value;
  }
  return isWithinLargestMeasurement(total) ? total : null;
}

/**
 * The recorded semantics (`confidence.semantics`) of the Evaluation Result whose value metricValueOf reads, so a
 * surface can say whether that value is a heuristic's reading (metric-catalog.ts isHeuristicReading); null when the
 * case has no value of the metric.
 */
export function semanticsOfMetricValue(evaluated: EvaluatedCase, metric: string): EvaluationResult["confidence"]["semantics"] | null {
  return firstMeasured(evaluated, metric)?.result.confidence.semantics ?? null;
}
