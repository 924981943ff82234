/**
 * QualityReader on ClickHouse. The numbers are the dashboards' definitions
 * (dashboards/source/aggregate-metrics.ts, the layers of quality-board.ts):
 * the same SELECT builder, with a scope whose range, service and run are
 * query parameters instead of Grafana macros, and the tables qualified with
 * the database as the report qualifies them. Per source of a layer three
 * queries: over the range, per time bucket, per service.
 */
import { aggregateSelect, FINAL_VERDICT, type AggregateMetric } from "../../dashboards/source/aggregate-metrics.js";
import type { Scope } from "../../dashboards/source/sql-scope.js";
import { qualityBoardLayers } from "../../dashboards/source/quality-board.js";
import { ROOT_CAUSE_LABEL_NAMES } from "../../evaluators/root-cause/root-cause-labels.js";
import { qualifyTables } from "../../report/qualify-tables.js";
import { caseResult as caseResultSchema, type CaseResult } from "../../contracts/case-result.js";
import { bucketTimes, type BehaviourRequests, type FailureBoard, type QualityAggregate, type QualityBoard, type QualityReader, type QualityScope } from "../ports/quality-reader.js";
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import type { TenantScope } from "../ports/tenant-scope.js";
import { TenantFilter } from "./tenant-filter.js";

/** The primary root-cause label at the start of a root_cause Evaluation Result's reason (as the Failures dashboard reads it). */
const ROOT_CAUSE_LABEL = "extract(reason, '^([A-Z][A-Z_]*)')";
const BUCKET = "toUnixTimestamp(toStartOfInterval(toDateTime({time}, 'UTC'), toIntervalSecond({bucketSeconds:UInt32}))) * 1000";

/** The page's range and filters as parameters: nothing from the request is spliced into the SQL. */
const parameterScope: Scope = (timeColumn) =>
  [
    `${timeColumn} >= fromUnixTimestamp64Milli({fromMs:Int64}, 'UTC')`,
    `${timeColumn} < fromUnixTimestamp64Milli({toMs:Int64}, 'UTC')`,
    "({service:String} = '' OR service_name = {service:String})",
    "({runId:String} = '' OR run_id = {runId:String})",
  ].join(" AND ");

const number = (value: unknown): number | null => {
  if (value === null || value === undefined) return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
};

export class ClickHouseQualityReader implements QualityReader {
  private readonly tenants: TenantFilter;
  /** The page's range and filters, and the reader's tenants (every source of the boards has tenant_id). */
  private readonly scoped: Scope;

  constructor(
    private readonly connection: ClickHouseConnection,
    scope: TenantScope = "all",
  ) {
    // Only `on("case_results")` is used, a condition on tenant_id that names no table: the database is not needed in it.
    this.tenants = new TenantFilter(connection.database, scope);
    this.scoped = (timeColumn) => `${parameterScope(timeColumn)} AND ${this.tenants.on("case_results")}`;
  }

  private async rows(query: string, scope: QualityScope, extra: Record<string, unknown> = {}): Promise<Record<string, unknown>[]> {
    const result = await this.connection.client.query({
      query: qualifyTables(query, this.connection.database),
      query_params: { fromMs: scope.fromMs, toMs: scope.toMs, bucketSeconds: scope.bucketSeconds, service: scope.service ?? "", runId: scope.runId ?? "", ...this.tenants.parameters, ...extra },
      format: "JSONEachRow",
    });
    return result.json<Record<string, unknown>>();
  }

  async services(scope: QualityScope): Promise<string[]> {
    const rows = await this.rows(`SELECT DISTINCT service_name AS service FROM case_results FINAL WHERE ${this.scoped("started_at")} ORDER BY service`, { ...scope, service: undefined });
    return rows.map((row) => String(row.service));
  }

  async behaviourRequests(scope: QualityScope, limit: number): Promise<BehaviourRequests> {
    const rows = await this.rows(`SELECT payload FROM case_results FINAL WHERE partial_trace = 0 AND ${this.scoped("started_at")} ORDER BY started_at, trace_id LIMIT {limit:UInt64}`, scope, { limit: Math.max(0, Math.floor(limit)) + 1 });
    const caseResults: CaseResult[] = [];
    for (const row of rows.slice(0, limit)) {
      const parsed = caseResultSchema.safeParse(JSON.parse(String(row.payload)));
      if (parsed.success) caseResults.push(parsed.data);
    }
    return { caseResults, truncated: rows.length > limit };
  }

  async qualityBoard(scope: QualityScope): Promise<QualityBoard> {
    const times = bucketTimes(scope);
    const position = new Map(times.map((time, index) => [time, index]));
    const services = scope.service === undefined ? await this.services(scope) : [scope.service];
    const layers = [];
    for (const layer of qualityBoardLayers()) {
      const bySource = new Map<string, AggregateMetric[]>();
      for (const aggregate of layer.aggregates) bySource.set(aggregate.source, [...(bySource.get(aggregate.source) ?? []), aggregate]);
      const aggregates: QualityAggregate[] = [];
      for (const group of bySource.values()) {
        const samples = group.map((aggregate): AggregateMetric => ({
          ...aggregate,
          label: `${aggregate.label} · samples`,
          value: aggregate.samples,
          ...(aggregate.rollup === undefined ? {} : { rollup: { value: aggregate.rollup.samples, samples: aggregate.rollup.samples } }),
        }));
        // Over a range of traffic the metric aggregates read metric_rollups, as the Grafana boards' range panels
        // do (a month is 43,200 rows per series, not every metric value); over one run they read the raw rows, so
        // a run's percentiles are the gate's exact nearest-rank values, not t-digest estimates.
        const preferRollups = scope.runId === undefined;
        const [[range], overTime, byService] = await Promise.all([
          this.rows(aggregateSelect([...group, ...samples], { scope: this.scoped, preferRollups }), scope),
          this.rows(aggregateSelect(group, { leading: [`${BUCKET} AS bucket`], scope: this.scoped, groupBy: "bucket", orderBy: "bucket", preferRollups }), scope),
          this.rows(aggregateSelect(group, { leading: ["service_name AS service"], scope: this.scoped, groupBy: "service", orderBy: "service", preferRollups }), scope),
        ]);
        for (const aggregate of group) {
          const series: (number | null)[] = times.map(() => null);
          for (const row of overTime) {
            const index = position.get(Number(row.bucket));
            if (index !== undefined) series[index] = number(row[aggregate.label]);
          }
          aggregates.push({
            name: aggregate.name,
            label: aggregate.label,
            unit: aggregate.unit,
            value: number(range?.[aggregate.label]),
            samples: number(range?.[`${aggregate.label} · samples`]) ?? 0,
            overTime: series,
            byService: Object.fromEntries(byService.map((row) => [String(row.service), number(row[aggregate.label])])),
          });
        }
      }
      // The layer's order, whatever the sources' order.
      aggregates.sort((first, second) => layer.aggregates.findIndex((item) => item.name === first.name) - layer.aggregates.findIndex((item) => item.name === second.name));
      layers.push({ title: layer.title, aggregates });
    }
    return { times, services, layers };
  }

  async failureBoard(scope: QualityScope): Promise<FailureBoard> {
    const times = bucketTimes(scope);
    const position = new Map(times.map((time, index) => [time, index]));
    const failingCases = `SELECT case_result_id FROM case_results FINAL WHERE ${this.scoped("started_at")} AND ${FINAL_VERDICT} = 'failed'`;
    const [total] = await this.rows(`SELECT count() AS failing FROM case_results FINAL WHERE ${this.scoped("started_at")} AND ${FINAL_VERDICT} = 'failed'`, scope);
    const rows = await this.rows(
      [
        `SELECT ${BUCKET.replaceAll("{time}", "started_at")} AS bucket, ${ROOT_CAUSE_LABEL} AS root_cause, count() AS failing`,
        "FROM evaluation_results FINAL",
        "WHERE evaluator_id = 'root_cause' AND match(reason, '^[A-Z][A-Z_]*:')",
        "AND started_at >= fromUnixTimestamp64Milli({fromMs:Int64}, 'UTC') AND started_at < fromUnixTimestamp64Milli({toMs:Int64}, 'UTC')",
        `AND case_result_id IN (${failingCases})`,
        "GROUP BY bucket, root_cause",
      ].join("\n"),
      scope,
    );
    const groups = ROOT_CAUSE_LABEL_NAMES.map((rootCause) => ({ rootCause: rootCause as string, failing: 0, overTime: times.map(() => 0) }));
    const byLabel = new Map(groups.map((group) => [group.rootCause, group]));
    for (const row of rows) {
      const group = byLabel.get(String(row.root_cause));
      if (group === undefined) continue;
      const count = Number(row.failing);
      group.failing += count;
      const index = position.get(Number(row.bucket));
      if (index !== undefined) group.overTime[index]! += count;
    }
    groups.sort((first, second) => second.failing - first.failing || (first.rootCause < second.rootCause ? -1 : 1));
    const failing = Number(total?.failing ?? 0);
    return { times, failing, withoutRootCause: failing - groups.reduce((sum, group) => sum + group.failing, 0), groups };
  }
}
