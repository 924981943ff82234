/**
 * The root-cause evaluator's Evaluation Result for one request, as the store tests write it beside a failing Case
 * Result: evaluator_id `root_cause`, a reason `<LABEL>: …` (dashboards/source/root-causes.ts reads the label from it).
 */
import type { EvaluationResult } from "../../contracts/evaluation-result.js";

export function rootCauseResult(caseResultId: string, label: string, evaluatedAt: string): EvaluationResult {
  return {
    evaluation_result_id: `er_${caseResultId}_root`,
    case_result_id: caseResultId,
    evaluator_id: "root_cause",
    evaluator_version: "1",
    metric_values: {},
    outcome: "failed",
    reason: `${label}: written by the test`,
    evidence_refs: [],
    confidence: { value: 1, semantics: "deterministic_rule" },
    review_required: false,
    error_type: "none",
    evaluated_at: evaluatedAt,
  };
}
