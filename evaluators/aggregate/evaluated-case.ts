/**
 * The input of every dataset-level aggregate: a Case Result with the
 * Evaluation Results stored for it and, for offline runs, its Eval Case.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
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
 * The judge's usage (judge_cost, its tokens) is carried by every judge result
 * for its own call: the case's value is their sum, null when one is not known
 * (a call without a price) — one result's read one metric's call as the case's.
 */
export function metricValueOf(evaluated: EvaluatedCase, metric: string): number | null {
  if (isJudgeUsageMetric(metric)) return judgeUsageOf(evaluated, metric);
  for (const result of evaluated.evaluationResults) {
    const value = result.metric_values[metric];
    if (value !== undefined && value !== null && Number.isFinite(value)) return value;
  }
  return null;
}

function judgeUsageOf(evaluated: EvaluatedCase, metric: string): number | null {
  let total: number | null = null;
  for (const result of evaluated.evaluationResults) {
    if (!(metric in result.metric_values)) continue;
    const value = result.metric_values[metric];
    if (value === undefined || value === null || !Number.isFinite(value)) return null;
    total = (total ?? 0) + value;
  }
  return total !== null && Number.isFinite(total) ? total : null;
}
