/** Evaluated requests for the aggregate tests: a Case Result plus hand-written stored metric values. */
import type { CaseResult } from "../../../../contracts/case-result.js";
import type { EvalCase } from "../../../../contracts/eval-case.js";
import type { EvaluationResult } from "../../../../contracts/evaluation-result.js";
import type { EvaluatedCase } from "../../../../evaluators/aggregate/evaluated-case.js";
import { caseResultWith, type ObservationInput } from "../rules/build-case-result.js";

export function storedResult(caseResultId: string, evaluatorId: string, metricValues: Record<string, number | null>, outcome: EvaluationResult["outcome"] = "passed"): EvaluationResult {
  return {
    evaluation_result_id: `er_${caseResultId}_${evaluatorId}`,
    case_result_id: caseResultId,
    evaluator_id: evaluatorId,
    evaluator_version: "1",
    metric_values: metricValues,
    outcome,
    reason: "stored for the test",
    evidence_refs: [],
    confidence: { value: 1, semantics: "deterministic_rule" },
    review_required: false,
    error_type: "none",
    evaluated_at: "2026-07-08T10:00:00Z",
  };
}

export interface RequestInput {
  id: string;
  observation?: ObservationInput;
  fields?: Partial<CaseResult>;
  metrics?: Record<string, number | null>;
  evalCase?: EvalCase | null;
}

export function evaluatedRequest(input: RequestInput): EvaluatedCase {
  const caseResult = caseResultWith(input.observation ?? {}, { case_result_id: input.id, ...input.fields });
  const evaluationResults = input.metrics ? [storedResult(input.id, "test.metrics", input.metrics)] : [];
  return { caseResult, evaluationResults, evalCase: input.evalCase ?? null };
}
