/** Writes one evaluated Case Result's rows into the in-memory tables, with the ClickHouse adapter's row versions. */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { rowVersion } from "../clickhouse/result-rows.js";
import type { MemoryTables } from "./memory-tables.js";

export function writeEvaluationResults(tables: MemoryTables, caseResult: CaseResult, results: readonly EvaluationResult[], clockMs: number): void {
  const version = rowVersion(clockMs, !caseResult.rag_observation.partial_trace);
  for (const result of results) {
    tables.evaluations.upsert(result.evaluation_result_id, { runId: caseResult.run_id, caseId: caseResult.case_id, result }, version);
    for (const metric in result.metric_values) {
      const value = result.metric_values[metric];
      tables.metricValues.upsert(`${metric}\u0000${result.case_result_id}\u0000${result.evaluator_id}`, { metric, caseResultId: result.case_result_id, evaluatorId: result.evaluator_id, runId: caseResult.run_id, value: value ?? null }, version);
    }
  }
}

export function writeCaseResult(tables: MemoryTables, caseResult: CaseResult, clockMs: number): void {
  tables.caseResults.upsert(caseResult.case_result_id, caseResult, rowVersion(clockMs, !caseResult.rag_observation.partial_trace));
}
