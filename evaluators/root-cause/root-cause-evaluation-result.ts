/**
 * Stores a root cause as an Evaluation Result (contracts/evaluation-result.ts):
 * evaluator_id "root_cause", no metric values, reason "<LABEL>: <why>",
 * outcome `failed` (it describes a failed case), evidence_refs the deciding
 * chunks (`chunk://id`, as the rule evaluators write them) and the Evaluation
 * Results whose values decided (`evaluation://id`). Confidence is 1 for an
 * attribution decided by ids, ranks and flags, 0.5 for a heuristic one; an
 * UNATTRIBUTED case (no step found a cause) asks for review.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { evaluationResultIdFor } from "../../contracts/ids.js";
import { ROOT_CAUSE_EVALUATOR_ID } from "./attribution-facts.js";
import type { RootCauseAttribution } from "./root-cause-attribution.js";
import { UNATTRIBUTED } from "./root-cause-labels.js";

export const ROOT_CAUSE_EVALUATOR_VERSION = "1";

export function rootCauseEvaluationResult(caseResult: CaseResult, attribution: RootCauseAttribution, evaluatedAt: string): EvaluationResult {
  const heuristic = attribution.confidence === "heuristic";
  const values = Object.entries(attribution.evidence.metricValues).map(([name, value]) => `${name}=${value}`);
  return {
    evaluation_result_id: evaluationResultIdFor(caseResult.case_result_id, ROOT_CAUSE_EVALUATOR_ID, ROOT_CAUSE_EVALUATOR_VERSION),
    case_result_id: caseResult.case_result_id,
    evaluator_id: ROOT_CAUSE_EVALUATOR_ID,
    evaluator_version: ROOT_CAUSE_EVALUATOR_VERSION,
    metric_values: {},
    outcome: "failed",
    reason: `${attribution.label}: ${attribution.reason}${values.length > 0 ? ` [${values.join(", ")}]` : ""}`,
    evidence_refs: [...attribution.evidence.chunkIds.map((id) => `chunk://${id}`), ...attribution.evidence.evaluationResultIds.map((id) => `evaluation://${id}`)],
    confidence: { value: heuristic ? 0.5 : 1, semantics: attribution.confidence },
    review_required: attribution.label === UNATTRIBUTED,
    error_type: "none",
    evaluated_at: evaluatedAt,
  };
}
