/**
 * ExperimentReader over the in-memory tables, with the ClickHouse adapter's
 * rules (clickhouse-experiment-reader.ts): complete Case Results only (a
 * partial result is not a request the experiment can count), experiments by
 * their number of requests, most first, then by id; requests by start time,
 * then trace id; metric values that were measured (not null), by trace id,
 * metric and evaluator, each marked when it is the heuristic judge's.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { ExperimentData, ExperimentReader } from "../ports/experiment-reader.js";
import type { MemoryTables } from "./memory-tables.js";

const compare = (first: string, second: string) => (first < second ? -1 : first > second ? 1 : 0);

export class MemoryExperimentReader implements ExperimentReader {
  constructor(private readonly tables: MemoryTables) {}

  private requests(): CaseResult[] {
    return this.tables.caseResults.values().filter((caseResult) => !caseResult.rag_observation.partial_trace && (caseResult.rag_observation.experiment_id ?? "") !== "");
  }

  async experimentIds(): Promise<string[]> {
    const counts = new Map<string, number>();
    for (const caseResult of this.requests()) counts.set(caseResult.rag_observation.experiment_id!, (counts.get(caseResult.rag_observation.experiment_id!) ?? 0) + 1);
    return [...counts.entries()].sort(([firstId, first], [secondId, second]) => second - first || compare(firstId, secondId)).map(([id]) => id);
  }

  async experiment(experimentId: string): Promise<ExperimentData> {
    const caseResults = this.requests()
      .filter((caseResult) => caseResult.rag_observation.experiment_id === experimentId)
      .sort((first, second) => compare(first.started_at, second.started_at) || compare(first.trace_id, second.trace_id))
      .map((caseResult) => structuredClone(caseResult));
    // Each metric value with the trace it was written with, as metric_values carries it.
    const ids = new Set(caseResults.map((caseResult) => caseResult.case_result_id));
    const metricValues = this.tables.metricValues
      .values()
      .filter((row) => row.value !== null && ids.has(row.caseResultId))
      .map((row) => ({ traceId: row.traceId, metric: row.metric, evaluatorId: row.evaluatorId, value: row.value!, heuristicJudgement: row.heuristicJudgement }))
      .sort((first, second) => compare(first.traceId, second.traceId) || compare(first.metric, second.metric) || compare(first.evaluatorId, second.evaluatorId));
    return { caseResults, metricValues };
  }
}
