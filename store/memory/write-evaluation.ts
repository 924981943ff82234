/**
 * Writes one evaluated Case Result's rows into the in-memory tables, with the ClickHouse adapter's row versions and
 * its tables' sorting keys (request-rows.ts): each row carries the trace and start of the request it was written with.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { isHeuristicJudgement } from "../../evaluators/case-verdict.js";
import { rowVersion, storedMetricValue } from "../clickhouse/result-rows.js";
import { dayOf, type MemoryTables } from "./memory-tables.js";
import { requestKey } from "./request-rows.js";

export function writeEvaluationResults(tables: MemoryTables, caseResult: CaseResult, results: readonly EvaluationResult[], clockMs: number): void {
  const version = rowVersion(clockMs, !caseResult.rag_observation.partial_trace);
  const request = { traceId: caseResult.trace_id, startedAt: caseResult.started_at };
  const tenantId = caseResult.rag_observation.tenant_id ?? "";
  const serviceName = caseResult.rag_observation.service_name ?? "";
  const day = dayOf(caseResult.started_at);
  for (const result of results) {
    const heuristicJudgement = isHeuristicJudgement(result);
    // evaluation_results' sorting key: evaluator, day, id.
    tables.evaluations.upsert(JSON.stringify([result.evaluator_id, day, result.evaluation_result_id]), { runId: caseResult.run_id, caseId: caseResult.case_id, result, ...request }, version);
    for (const metric in result.metric_values) {
      // Held as the ClickHouse adapter stores it (result-rows.ts storedMetricValue): a value that is not finite or
      // is beyond 2^53 − 1 is none, so the run summary counts it not applicable and its mean stays a number.
      const value = result.metric_values[metric];
      // metric_values' sorting key: metric, tenant, service, day, Case Result, evaluator.
      tables.metricValues.upsert(JSON.stringify([metric, tenantId, serviceName, day, result.case_result_id, result.evaluator_id]), { metric, caseResultId: result.case_result_id, evaluatorId: result.evaluator_id, runId: caseResult.run_id, tenantId, serviceName, value: storedMetricValue(value), heuristicJudgement, ...request }, version);
    }
  }
}

export function writeCaseResult(tables: MemoryTables, caseResult: CaseResult, clockMs: number): void {
  tables.caseResults.upsert(requestKey(caseResult), caseResult, rowVersion(clockMs, !caseResult.rag_observation.partial_trace));
}
