/**
 * QualityReader on ClickHouse. The numbers are the dashboards' definitions
 * (dashboards/source/aggregate-metrics.ts, the layers of quality-board.ts):
 * the same SELECT builder, with a scope whose range, service and run are
 * query parameters instead of Grafana macros, and the tables qualified with
 * the database as the report qualifies them. One statement per source for
 * the whole board: over the range, per time bucket and per service at once
 * (GROUPING SETS). The behaviour requests are read from the stored
 * behaviour_fields column (migration 0017), not from payloads.
 */
import { aggregateSelect, DID_NOT_COMPLETE, type AggregateMetric, type RangeReading } from "../../dashboards/source/aggregate-metrics.js";
import { sqlList, type Scope } from "../../dashboards/source/sql-scope.js";
import { qualityBoardLayers } from "../../dashboards/source/quality-board.js";
import { attributedRootCauses, attributedVerdict } from "../../dashboards/source/root-causes.js";
import { ROOT_CAUSE_LABEL_NAMES } from "../../evaluators/root-cause/root-cause-labels.js";
import { qualifyTables } from "../../report/qualify-tables.js";
import { bucketTimes, type BehaviourRequests, type FailureBoard, type QualityAggregate, type QualityBoard, type QualityReader, type QualityScope } from "../ports/quality-reader.js";
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import type { TenantScope } from "../ports/tenant-scope.js";
import { TenantFilter } from "./tenant-filter.js";
import { behaviourRequestOf } from "./behaviour-fields.js";

/**
 * grouping(bucket, service) per grouping set (standard SQL, ClickHouse's default
 * force_grouping_standard_compatibility): a bit is set for each argument the set leaves out, the first
 * argument the higher bit.
 */
const GROUPED_BY_NEITHER = 0b11;
const GROUPED_BY_BUCKET = 0b01;
const GROUPED_BY_SERVICE = 0b10;
/** The aggregates of the board that read one source in one form (rolled up or raw), by the layer each part belongs to. */
interface SourceGroup {
  aggregates: AggregateMetric[];
  /** `<layer> <source>` → the stored metrics that layer's aggregates of the source read. */
  parts: Map<string, string[]>;
}

/**
 * A rollup row is a whole minute, in the range when the minute starts in it: it gives the raw rows' numbers
 * only when the range starts and ends on a minute and a bucket is whole minutes. The abstention rates read
 * the raw pairs before their rollups (migration 0017) and keep their numbers: over a range that is not whole
 * minutes (a custom one, or under two hours, whose buckets are shorter) they still read the raw pairs — few.
 */
function wholeMinutes(scope: QualityScope): boolean {
  return scope.fromMs % 60_000 === 0 && scope.toMs % 60_000 === 0 && scope.bucketSeconds % 60 === 0;
}

/** The column counting the rows of a part of a source group. */
const partRows = (part: number): string => `rows of part ${part}`;

const BUCKET = "toUnixTimestamp(toStartOfInterval(toDateTime({time}, 'UTC'), toIntervalSecond({bucketSeconds:UInt32}))) * 1000";

/** The page's range as parameters. */
const inRange = (timeColumn: string): string => `${timeColumn} >= fromUnixTimestamp64Milli({fromMs:Int64}, 'UTC') AND ${timeColumn} < fromUnixTimestamp64Milli({toMs:Int64}, 'UTC')`;

/** The page reads whole hours of the metric rollups where its range and buckets allow (aggregate-metrics.ts). */
const HOURS: RangeReading = { inRange, bucketSeconds: "{bucketSeconds:UInt32}" };

/** The page's range and filters as parameters: nothing from the request is spliced into the SQL. */
const parameterScope: Scope = (timeColumn) =>
  [
    inRange(timeColumn),
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
    // behaviour_fields (migration 0017) instead of the payload: the same fields, a few hundred bytes a request.
    const rows = await this.rows(
      `SELECT trace_id, behaviour_fields FROM case_results FINAL WHERE partial_trace = 0 AND ${this.scoped("started_at")} ORDER BY started_at, trace_id LIMIT {limit:UInt64}`,
      scope,
      { limit: Math.max(0, Math.floor(limit)) + 1 },
    );
    return { requests: rows.slice(0, limit).map((row) => behaviourRequestOf(String(row.trace_id), String(row.behaviour_fields))), truncated: rows.length > limit };
  }

  async qualityBoard(scope: QualityScope): Promise<QualityBoard> {
    const times = bucketTimes(scope);
    const position = new Map(times.map((time, index) => [time, index]));
    const layers = qualityBoardLayers();
    // Over a range of traffic the aggregates read their rollups (metric_rollups, request_rollups,
    // abstention_rollups), as the Grafana boards' range panels do (a month is 43,200 rows per series, not every
    // metric value); over one run they read the raw rows, so a run's percentiles are the gate's exact
    // nearest-rank values, not t-digest estimates.
    const preferRollups = scope.runId === undefined;
    // One statement per source for the whole board (every layer), its aggregates over the range, per bucket and
    // per service in one scan (GROUPING SETS): the same expressions the three queries of each layer and source
    // ran apart, so the same numbers. Aggregates with and without a rollup form are kept apart, so each is read
    // in the form it would be read alone.
    const bySource = new Map<string, SourceGroup>();
    for (const layer of layers) {
      for (const aggregate of layer.aggregates) {
        const key = `${aggregate.source} ${aggregate.rollup === undefined ? "raw" : "rolled up"}`;
        let group = bySource.get(key);
        if (group === undefined) bySource.set(key, (group = { aggregates: [], parts: new Map() }));
        group.aggregates.push(aggregate);
        const part = `${layer.title} ${aggregate.source}`;
        group.parts.set(part, [...(group.parts.get(part) ?? []), ...aggregate.storedMetrics]);
      }
    }
    const groups = [...bySource.values()];
    const [services, ...sourceRows] = await Promise.all([
      scope.service === undefined ? this.services(scope) : Promise.resolve([scope.service]),
      ...groups.map((group) => this.groupedRows(group, scope, preferRollups && (group.aggregates[0]!.source !== "abstention" || wholeMinutes(scope)))),
    ]);
    const computed = new Map<string, QualityAggregate>();
    layers.forEach((layer) => {
      for (const aggregate of layer.aggregates) {
        const index = groups.findIndex((group) => group.aggregates.includes(aggregate));
        const { range, overTime, byService } = sourceRows[index]!;
        const part = [...groups[index]!.parts.keys()].indexOf(`${layer.title} ${aggregate.source}`);
        const series: (number | null)[] = times.map(() => null);
        for (const row of overTime) {
          const at = position.get(Number(row.bucket));
          if (at !== undefined) series[at] = number(row[aggregate.label]);
        }
        computed.set(aggregate.name, {
          name: aggregate.name,
          label: aggregate.label,
          unit: aggregate.unit,
          value: number(range?.[aggregate.label]),
          samples: number(range?.[`${aggregate.label} · samples`]) ?? 0,
          overTime: series,
          // The services the layer's own rows have (a service without a row of the layer's metrics is absent, not null).
          byService: Object.fromEntries(byService.filter((row) => Number(row[partRows(part)] ?? 1) > 0).map((row) => [String(row.service), number(row[aggregate.label])])),
        });
      }
    });
    // Each layer in its own order, whatever the sources' order.
    return { times, services, layers: layers.map((layer) => ({ title: layer.title, aggregates: layer.aggregates.map((aggregate) => computed.get(aggregate.name)!) })) };
  }

  /**
   * One source's aggregates over the range (with their samples), per time bucket and per service, in one
   * statement; for each layer's part of a source that reads stored metrics, how many of the rows are of its
   * metrics (a service with none of them had no row in that layer's own query).
   */
  private async groupedRows(group: SourceGroup, scope: QualityScope, preferRollups: boolean): Promise<{ range: Record<string, unknown> | undefined; overTime: Record<string, unknown>[]; byService: Record<string, unknown>[] }> {
    const samples = group.aggregates.map((aggregate): AggregateMetric => ({
      ...aggregate,
      label: `${aggregate.label} · samples`,
      value: aggregate.samples,
      ...(aggregate.rollup === undefined ? {} : { rollup: { value: aggregate.rollup.samples, samples: aggregate.rollup.samples } }),
    }));
    const first = group.aggregates[0]!;
    const rowCounts = [...group.parts.values()].flatMap((storedMetrics, part): AggregateMetric[] => {
      if (storedMetrics.length === 0) return [];
      // `metric` is a column of metric_values and of metric_rollups alike.
      const count = `countIf(metric IN (${sqlList([...new Set(storedMetrics)])}))`;
      return [{ ...first, name: partRows(part), label: partRows(part), value: count, samples: count, ...(first.rollup === undefined ? {} : { rollup: { value: count, samples: count } }) }];
    });
    const rows = await this.rows(
      aggregateSelect([...group.aggregates, ...samples, ...rowCounts], {
        leading: [`${BUCKET} AS bucket`, "service_name AS service", "grouping(bucket, service) AS grouping_set"],
        hours: HOURS,
        scope: this.scoped,
        groupBy: "GROUPING SETS ((), (bucket), (service))",
        preferRollups,
      }),
      scope,
    );
    const grouped = (set: number) => rows.filter((row) => Number(row.grouping_set) === set);
    return { range: grouped(GROUPED_BY_NEITHER)[0], overTime: grouped(GROUPED_BY_BUCKET), byService: grouped(GROUPED_BY_SERVICE) };
  }

  async failureBoard(scope: QualityScope): Promise<FailureBoard> {
    const times = bucketTimes(scope);
    const position = new Map(times.map((time, index) => [time, index]));
    // Every row of the scope with its reviewers' agreements and its root cause (root-causes.ts attributedRootCauses),
    // reading the reviews once: its final verdict is decided after the joins. Reading FINAL_VERDICT's two review sets
    // per row, the failing total in a statement of its own and the causes' reviews a third time cost more engine time
    // (test/bench/root-cause-readers.bench.ts). (Aliases apart from the columns: the WHERE names the columns.)
    const scopedRows = `SELECT case_result_id, trace_id AS row_trace, started_at AS row_started, quality_status AS row_verdict, ${DID_NOT_COMPLETE} AS row_did_not_complete FROM case_results FINAL WHERE ${this.scoped("started_at")}`;
    // One row per request, a Case Result id's trace and start (root-causes.ts rootCauseRollupSelect): each request of
    // a case sent again (its own trace, start and service) counts, as the trace list behind a bar lists it, under the
    // cause written with it; a partial trace's result stored beside the complete one (the same trace and start) is
    // one request. `failing_rows` keeps the rows, which the total counts (as the quality board).
    // any(root_cause) picks nothing: the cause is joined per request (its reviews by id, the evaluator's by id, trace
    // and start: attributedRootCauses), so every row of a group carries the same one.
    const failingRequests = [
      "SELECT case_result_id, row_started AS request_started, any(root_cause) AS request_root_cause, count() AS failing_rows",
      `FROM (${attributedRootCauses(scopedRows, ["row_trace", "row_started", "row_verdict", "row_did_not_complete"], inRange("started_at"), { request: { trace: "row_trace", started: "row_started" } })})`,
      `WHERE ${attributedVerdict("row_verdict", "row_did_not_complete")} = 'failed'`,
      "GROUP BY case_result_id, row_trace, row_started",
    ].join("\n");
    // Each failing request under the root cause its reviewers agreed on, else the root-cause evaluator's; those
    // without one ('') only for the total.
    const rows = await this.rows(
      [
        `SELECT ${BUCKET.replaceAll("{time}", "request_started")} AS bucket, request_root_cause AS root_cause, count() AS failing, sum(failing_rows) AS rows_failing`,
        `FROM (${failingRequests})`,
        "GROUP BY bucket, root_cause",
      ].join("\n"),
      scope,
    );
    const groups = ROOT_CAUSE_LABEL_NAMES.map((rootCause) => ({ rootCause: rootCause as string, failing: 0, overTime: times.map(() => 0) }));
    const byLabel = new Map(groups.map((group) => [group.rootCause, group]));
    let failing = 0;
    // In the total's unit (rows): a partial trace's result stored beside the complete one is two rows of one request,
    // counted once in its group; the total minus the groups' requests would count its second row as one without a cause.
    let withoutRootCause = 0;
    for (const row of rows) {
      failing += Number(row.rows_failing);
      const group = byLabel.get(String(row.root_cause));
      if (group === undefined) {
        withoutRootCause += Number(row.rows_failing);
        continue;
      }
      const count = Number(row.failing);
      group.failing += count;
      const index = position.get(Number(row.bucket));
      if (index !== undefined) group.overTime[index]! += count;
    }
    groups.sort((first, second) => second.failing - first.failing || (first.rootCause < second.rootCause ? -1 : 1));
    return { times, failing, withoutRootCause, groups };
  }
}
