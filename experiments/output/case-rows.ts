/** One row per case for the table, the JSON and the JUnit file: verdict, failed metrics with value and threshold, root cause, error. */
import type { EvaluatedCase } from "../../evaluators/aggregate/index.js";
import { shownReason } from "./blind-redaction.js";

export interface CaseRow {
  caseId: string;
  caseVersion: string;
  executionStatus: string;
  qualityStatus: string;
  error: { type: string; message: string | null } | null;
  failed: { evaluatorId: string; reason: string }[];
  rootCause: string | null;
  /** The request's latency as the trace recorded it; null when it did not. */
  latencyMs: number | null;
}

export function caseRows(evaluated: readonly EvaluatedCase[]): CaseRow[] {
  return evaluated.map((item) => {
    const result = item.caseResult;
    const rootCause = item.evaluationResults.find((evaluation) => evaluation.evaluator_id === "root_cause");
    return {
      caseId: result.case_id,
      caseVersion: result.case_version,
      executionStatus: result.execution_status,
      qualityStatus: result.quality_status,
      error: result.execution_status === "failed" || result.execution_error.type !== "none" ? { type: result.execution_error.type, message: result.execution_error.message } : null,
      failed: item.evaluationResults
        .filter((evaluation) => evaluation.evaluator_id !== "root_cause" && (evaluation.outcome === "failed" || evaluation.outcome === "error" || (evaluation.outcome === "measured" && evaluation.review_required && evaluation.evaluator_id.startsWith("judge."))))
        .map((evaluation) => ({ evaluatorId: evaluation.evaluator_id, reason: shownReason(item, evaluation.reason) })),
      rootCause: rootCause ? shownReason(item, rootCause.reason) : null,
      latencyMs: result.rag_observation.latency_ms,
    };
  });
}
