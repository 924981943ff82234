/**
 * Rows for the ClickHouse tables of deploy/clickhouse/migrations, from one
 * evaluated Case Result. `version` orders the copies of a row that replays
 * create: the later evaluation wins in ReplacingMergeTree.
 */
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";

export interface CaseRows {
  caseResult: Record<string, unknown>;
  evaluationResults: Record<string, unknown>[];
  metricValues: Record<string, unknown>[];
}

export function toRows(evaluation: CaseEvaluation, datasetId: string, version: number): CaseRows {
  const result = evaluation.caseResult;
  const observation = result.rag_observation;
  const shared = {
    run_id: result.run_id,
    case_id: result.case_id,
    trace_id: result.trace_id,
  };
  const context = {
    ...shared,
    case_version: result.case_version,
    dataset_id: datasetId,
    service_name: observation.service_name ?? "",
    tenant_id: observation.tenant_id ?? "",
    route: observation.route ?? "",
  };
  return {
    caseResult: {
      case_result_id: result.case_result_id,
      ...context,
      execution_status: result.execution_status,
      quality_status: result.quality_status,
      partial_trace: observation.partial_trace ? 1 : 0,
      output: result.output ?? "",
      latency_ms: observation.latency_ms,
      started_at: result.started_at,
      completed_at: result.completed_at,
      payload: JSON.stringify(result),
      version,
    },
    evaluationResults: evaluation.evaluationResults.map((item) => ({
      evaluation_result_id: item.evaluation_result_id,
      case_result_id: item.case_result_id,
      ...shared,
      evaluator_id: item.evaluator_id,
      evaluator_version: item.evaluator_version,
      outcome: item.outcome,
      reason: item.reason,
      review_required: item.review_required ? 1 : 0,
      error_type: item.error_type,
      started_at: result.started_at,
      evaluated_at: item.evaluated_at,
      payload: JSON.stringify(item),
      version,
    })),
    metricValues: evaluation.evaluationResults.flatMap((item) =>
      Object.entries(item.metric_values).map(([metric, value]) => ({
        metric,
        case_result_id: item.case_result_id,
        evaluator_id: item.evaluator_id,
        evaluator_version: item.evaluator_version,
        evaluation_result_id: item.evaluation_result_id,
        value,
        outcome: item.outcome,
        ...context,
        ts: result.started_at,
        evaluated_at: item.evaluated_at,
        version,
      })),
    ),
  };
}
