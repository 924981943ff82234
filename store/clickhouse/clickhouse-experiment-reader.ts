/**
 * ExperimentReader on ClickHouse: case_results by their experiment_id column
 * (migration 0009), metric_values of those Case Results. Partial results (a
 * trace released without its root) are left out: they are not requests the
 * experiment can count. A reader built for a tenant scope (tenant-filter.ts)
 * finds only those tenants' requests and their metric values, so another
 * tenant's experiment reads as one that is not stored. Rows come in a fixed
 * order: a mean summed in another order differs in its last digits, and two
 * reads of one experiment (the CLI and the UI) must show the same numbers.
 */
import { caseResult as caseResultSchema, type CaseResult } from "../../contracts/case-result.js";
import { HEURISTIC_JUDGE_ROW_SQL } from "../../evaluators/aggregate/dataset-shares.js";
import type { ExperimentData, ExperimentMetricValue, ExperimentReader } from "../ports/experiment-reader.js";
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";
import type { TenantScope } from "../ports/tenant-scope.js";
import { TenantFilter } from "./tenant-filter.js";

export class ClickHouseExperimentReader implements ExperimentReader {
  private readonly database: string;
  private readonly tenants: TenantFilter;

  constructor(
    private readonly connection: ClickHouseConnection,
    scope: TenantScope = "all",
  ) {
    this.database = quoteIdentifier(connection.database);
    this.tenants = new TenantFilter(this.database, scope);
  }

  async experimentIds(): Promise<string[]> {
    const result = await this.connection.client.query({
      query: `SELECT experiment_id, count() AS requests FROM ${this.database}.case_results FINAL WHERE experiment_id != '' AND partial_trace = 0 AND ${this.tenants.on("case_results")} GROUP BY experiment_id ORDER BY requests DESC, experiment_id`,
      query_params: this.tenants.parameters,
      format: "JSONEachRow",
    });
    return (await result.json<{ experiment_id: string }>()).map((row) => row.experiment_id);
  }

  async experiment(experimentId: string): Promise<ExperimentData> {
    const cases = await this.connection.client.query({
      query: `SELECT payload FROM ${this.database}.case_results FINAL WHERE experiment_id = {experimentId:String} AND partial_trace = 0 AND ${this.tenants.on("case_results")} ORDER BY started_at, trace_id`,
      query_params: { experimentId, ...this.tenants.parameters },
      format: "JSONEachRow",
    });
    const caseResults: CaseResult[] = [];
    for (const row of await cases.json<{ payload: string }>()) {
      const parsed = caseResultSchema.safeParse(JSON.parse(row.payload));
      if (parsed.success) caseResults.push(parsed.data);
    }
    // Whether a value is the heuristic judge's is read with the rule the gate, the boards and the rollups use:
    // the experiment report leaves those values out of every decision.
    const metrics = await this.connection.client.query({
      query: `SELECT trace_id, metric, evaluator_id, value, ${HEURISTIC_JUDGE_ROW_SQL} AS heuristic_judgement FROM ${this.database}.metric_values FINAL
        WHERE value IS NOT NULL AND ${this.tenants.on("metric_values")}
          AND case_result_id IN (SELECT case_result_id FROM ${this.database}.case_results FINAL WHERE experiment_id = {experimentId:String} AND partial_trace = 0 AND ${this.tenants.on("case_results")})
        ORDER BY trace_id, metric, evaluator_id`,
      query_params: { experimentId, ...this.tenants.parameters },
      format: "JSONEachRow",
    });
    const metricValues: ExperimentMetricValue[] = (await metrics.json<{ trace_id: string; metric: string; evaluator_id: string; value: number; heuristic_judgement: number | boolean }>()).map((row) => ({
      traceId: row.trace_id,
      metric: row.metric,
      evaluatorId: row.evaluator_id,
      value: Number(row.value),
      heuristicJudgement: Number(row.heuristic_judgement) === 1,
    }));
    return { caseResults, metricValues };
  }
}
