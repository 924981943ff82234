/** One row per case for the table, the JSON and the JUnit file: verdict, failed metrics with value and threshold, root cause, error. */
import type { EvaluatedCase } from "../../evaluators/aggregate/index.js";
import { isHeuristicSignalAgainst } from "../../evaluators/case-verdict.js";
import { graderErrorTypeOf } from "../../evaluators/judge/judge-evaluations.js";
import { shownReason } from "./blind-redaction.js";

export interface CaseRow {
  caseId: string;
  caseVersion: string;
  executionStatus: string;
  qualityStatus: string;
  error: { type: string; message: string | null } | null;
  failed: { evaluatorId: string; reason: string }[];
  /** Evaluations that errored: a judge's grader error (by its type: timeout, http_error, …) or an input an evaluator refused (invalid_evidence). */
  errored: { evaluatorId: string; errorType: string; reason: string }[];
  /** Heuristic signals against the case (a review rule that held, the heuristic judge's failure): why it needs review. */
  reviewSignals: { evaluatorId: string; reason: string }[];
  rootCause: string | null;
  /** The request's latency as the trace recorded it; null when it did not. */
  latencyMs: number | null;
}

export function caseRows(evaluated: readonly EvaluatedCase[]): CaseRow[] {
  return evaluated.map((item) => {
    const result = item.caseResult;
    const rootCause = item.evaluationResults.find((evaluation) => evaluation.evaluator_id === "root_cause");
    const evaluations = item.evaluationResults.filter((evaluation) => evaluation.evaluator_id !== "root_cause");
    return {
      caseId: result.case_id,
      caseVersion: result.case_version,
      executionStatus: result.execution_status,
      qualityStatus: result.quality_status,
      error: result.execution_status === "failed" || result.execution_error.type !== "none" ? { type: result.execution_error.type, message: result.execution_error.message } : null,
      failed: evaluations
        .filter((evaluation) => evaluation.outcome === "failed" || evaluation.outcome === "error" || (evaluation.outcome === "measured" && evaluation.review_required && evaluation.evaluator_id.startsWith("judge.")))
        .map((evaluation) => ({ evaluatorId: evaluation.evaluator_id, reason: shownReason(item, evaluation.reason) })),
      errored: evaluations
        .filter((evaluation) => evaluation.outcome === "error")
        .map((evaluation) => ({ evaluatorId: evaluation.evaluator_id, errorType: graderErrorTypeOf(evaluation) ?? evaluation.error_type, reason: shownReason(item, evaluation.reason) })),
      reviewSignals: evaluations.filter(isHeuristicSignalAgainst).map((evaluation) => ({ evaluatorId: evaluation.evaluator_id, reason: shownReason(item, evaluation.reason) })),
      rootCause: rootCause ? shownReason(item, rootCause.reason) : null,
      latencyMs: result.rag_observation.latency_ms,
    };
  });
}
