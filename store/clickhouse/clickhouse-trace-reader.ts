/**
 * TraceReader on ClickHouse. The list is two queries: the page's keys first
 * (only the sorting columns are read, filtered and ordered newest first, with
 * a keyset condition instead of OFFSET), then the page's rows by id (the
 * payload, compressed, is read for those rows only). Every query collapses
 * replayed rows with FINAL and takes its values as parameters. The reader's
 * tenant scope is a condition of every query that finds rows (tenant-filter.ts);
 * queries that only complete a row already found by id under the scope do not
 * repeat it.
 */
import type { StoredRawSpan } from "../../contracts/raw-spans.js";
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import { evalCase as evalCaseSchema } from "../../contracts/eval-case.js";
import { evaluationResult as evaluationResultSchema } from "../../contracts/evaluation-result.js";
import { runLineage, type RunLineage } from "../../contracts/run-lineage.js";
import { rootCauseLabelOf, type TraceCursor, type TraceDetail, type TraceFilter, type TracePage, type TraceReader, type TraceSummary } from "../ports/trace-reader.js";
import type { TenantScope } from "../ports/tenant-scope.js";
import { FINAL_VERDICT } from "../../dashboards/source/aggregate-metrics.js";
import { qualifyTables } from "../../report/qualify-tables.js";
import { quoteIdentifier, type ClickHouseConnection } from "./clickhouse-connection.js";
import { TenantFilter } from "./tenant-filter.js";

interface SummaryRow {
  case_result_id: string;
  trace_id: string;
  run_id: string;
  case_id: string;
  case_version: string;
  dataset_id: string;
  service_name: string;
  tenant_id: string;
  route: string;
  quality_status: string;
  execution_status: string;
  latency_ms: number | null;
  started_at_ms: string | number;
  query: string | null;
  output: string;
  has_output: number;
}

export class ClickHouseTraceReader implements TraceReader {
  private readonly database: string;
  private readonly tenants: TenantFilter;

  constructor(
    private readonly connection: ClickHouseConnection,
    scope: TenantScope = "all",
  ) {
    this.database = quoteIdentifier(connection.database);
    this.tenants = new TenantFilter(this.database, scope);
  }

  private async rows<Row>(query: string, parameters: Record<string, unknown>): Promise<Row[]> {
    const result = await this.connection.client.query({ query, query_params: { ...parameters, ...this.tenants.parameters }, format: "JSONEachRow" });
    return result.json<Row>();
  }

  async listTraces(filter: TraceFilter, page: { after: TraceCursor | null; limit: number }): Promise<TracePage> {
    const database = this.database;
    const conditions: string[] = [this.tenants.on("case_results")];
    const parameters: Record<string, unknown> = { limit: page.limit + 1 };
    const equal = (column: string, name: string, value: string | undefined) => {
      if (value === undefined) return;
      conditions.push(`${column} = {${name}:String}`);
      parameters[name] = value;
    };
    equal("service_name", "service", filter.service);
    equal("tenant_id", "tenant", filter.tenant);
    equal("route", "route", filter.route);
    equal("run_id", "runId", filter.runId);
    // The final verdict: an agreed human review's, else the automatic one.
    equal(qualifyTables(FINAL_VERDICT, this.connection.database), "verdict", filter.verdict);
    if (filter.datasetId !== undefined) {
      conditions.push(`(dataset_id = {datasetId:String} OR (case_id, case_version) IN (SELECT case_id, case_version FROM ${database}.eval_cases FINAL WHERE dataset_id = {datasetId:String}))`);
      parameters.datasetId = filter.datasetId;
    }
    if (filter.rootCause !== undefined) {
      conditions.push(`case_result_id IN (SELECT case_result_id FROM ${database}.evaluation_results FINAL WHERE evaluator_id = 'root_cause' AND startsWith(reason, {rootCausePrefix:String}))`);
      parameters.rootCausePrefix = `${filter.rootCause}:`;
    }
    if (filter.fromMs !== undefined) {
      conditions.push("started_at >= fromUnixTimestamp64Milli({fromMs:Int64}, 'UTC')");
      parameters.fromMs = filter.fromMs;
    }
    if (filter.toMs !== undefined) {
      conditions.push("started_at < fromUnixTimestamp64Milli({toMs:Int64}, 'UTC')");
      parameters.toMs = filter.toMs;
    }
    if (filter.text !== undefined && filter.text !== "") {
      conditions.push("(positionCaseInsensitiveUTF8(output, {text:String}) > 0 OR positionCaseInsensitiveUTF8(JSONExtractString(payload, 'rag_observation', 'query'), {text:String}) > 0)");
      parameters.text = filter.text;
    }
    if (filter.metric !== undefined && (filter.below !== undefined || filter.above !== undefined)) {
      const bounds = [filter.below === undefined ? "" : " AND value < {below:Float64}", filter.above === undefined ? "" : " AND value > {above:Float64}"].join("");
      conditions.push(`case_result_id IN (SELECT case_result_id FROM ${database}.metric_values FINAL WHERE metric = {metric:String} AND value IS NOT NULL${bounds})`);
      parameters.metric = filter.metric;
      if (filter.below !== undefined) parameters.below = filter.below;
      if (filter.above !== undefined) parameters.above = filter.above;
    }
    if (page.after !== null) {
      conditions.push("(started_at, case_result_id) < (fromUnixTimestamp64Milli({afterMs:Int64}, 'UTC'), {afterId:String})");
      parameters.afterMs = page.after.startedAtMs;
      parameters.afterId = page.after.caseResultId;
    }
    const where = `WHERE ${conditions.join(" AND ")}`;
    const keys = await this.rows<{ case_result_id: string; started_at_ms: string | number }>(
      `SELECT case_result_id, toUnixTimestamp64Milli(started_at) AS started_at_ms FROM ${database}.case_results FINAL ${where}
       ORDER BY started_at DESC, case_result_id DESC LIMIT {limit:UInt32}`,
      parameters,
    );
    const pageKeys = keys.slice(0, page.limit);
    const next = keys.length > page.limit && pageKeys.length > 0 ? { startedAtMs: Number(pageKeys[pageKeys.length - 1]!.started_at_ms), caseResultId: pageKeys[pageKeys.length - 1]!.case_result_id } : null;
    if (pageKeys.length === 0) return { traces: [], next: null };
    const ids = pageKeys.map((key) => key.case_result_id);
    const summaries = await this.rows<SummaryRow>(
      `SELECT case_result_id, trace_id, run_id, case_id, case_version, dataset_id, service_name, tenant_id, route, quality_status, execution_status, latency_ms,
              toUnixTimestamp64Milli(started_at) AS started_at_ms,
              JSONExtract(payload, 'rag_observation', 'query', 'Nullable(String)') AS query,
              output, JSONType(payload, 'output') = 'String' AS has_output
       FROM ${database}.case_results FINAL WHERE case_result_id IN {ids:Array(String)} AND ${this.tenants.on("case_results")} SETTINGS use_skip_indexes_if_final = 1`,
      { ids },
    );
    const rootCauses = new Map(
      (await this.rows<{ case_result_id: string; reason: string }>(`SELECT case_result_id, reason FROM ${database}.evaluation_results FINAL WHERE evaluator_id = 'root_cause' AND case_result_id IN {ids:Array(String)}`, { ids })).map((row) => [row.case_result_id, rootCauseLabelOf(row.reason)]),
    );
    const missingDatasets = summaries.filter((row) => row.dataset_id === "" && row.case_id !== "");
    const datasets = new Map<string, string>();
    if (missingDatasets.length > 0) {
      for (const row of await this.rows<{ case_id: string; case_version: string; dataset_id: string }>(
        `SELECT case_id, case_version, dataset_id FROM ${database}.eval_cases FINAL WHERE case_id IN {caseIds:Array(String)}`,
        { caseIds: [...new Set(missingDatasets.map((row) => row.case_id))] },
      ))
        datasets.set(`${row.case_id}@${row.case_version}`, row.dataset_id);
    }
    const byId = new Map(summaries.map((row) => [row.case_result_id, row]));
    const traces: TraceSummary[] = [];
    for (const id of ids) {
      const row = byId.get(id);
      if (row === undefined) continue;
      traces.push({
        caseResultId: row.case_result_id,
        traceId: row.trace_id,
        runId: row.run_id,
        caseId: row.case_id,
        datasetId: row.dataset_id !== "" ? row.dataset_id : (datasets.get(`${row.case_id}@${row.case_version}`) ?? ""),
        serviceName: row.service_name,
        tenantId: row.tenant_id,
        route: row.route,
        qualityStatus: row.quality_status,
        executionStatus: row.execution_status,
        latencyMs: row.latency_ms === null ? null : Number(row.latency_ms),
        startedAt: new Date(Number(row.started_at_ms)).toISOString(),
        query: row.query,
        output: Number(row.has_output) === 1 ? row.output : null,
        rootCause: rootCauses.get(id) ?? null,
      });
    }
    return { traces, next };
  }

  async readTrace(caseResultId: string): Promise<TraceDetail | null> {
    const database = this.database;
    // Collapsed by hand (the newest version of each key, as ReplacingMergeTree keeps it) rather than with
    // FINAL: FINAL widens the id's bloom-filter selection to every granule of the same sorting-key range —
    // the whole day of the tenant and service for a case result, the whole day of every evaluator for its
    // Evaluation Results (EXPLAIN "PrimaryKeyExpand": 111 of 114 granules against 10) — which made a
    // trace's detail read most of a day's rows. Without FINAL the skip indexes keep their selection.
    const [row] = await this.rows<{ payload: string; dataset_id: string; started_at_ms: string | number }>(
      `SELECT argMax(payload, version) AS payload, argMax(dataset_id, version) AS dataset_id, toUnixTimestamp64Milli(argMax(started_at, version)) AS started_at_ms
       FROM ${database}.case_results WHERE case_result_id = {caseResultId:String} AND ${this.tenants.on("case_results")} GROUP BY case_result_id`,
      { caseResultId },
    );
    if (row === undefined) return null;
    const caseResult = caseResultSchema.parse(JSON.parse(row.payload));
    // Evaluation Results carry their Case Result's start time: it selects the month partition and the day in the sorting key.
    // Grouped by the sorting key's columns that vary here (the day is fixed by started_at), as FINAL collapses them.
    const evaluationResults = (
      await this.rows<{ payload: string }>(
        `SELECT argMax(payload, version) AS payload FROM ${database}.evaluation_results
         WHERE case_result_id = {caseResultId:String} AND started_at = fromUnixTimestamp64Milli({startedAtMs:Int64}, 'UTC')
         GROUP BY evaluator_id, evaluation_result_id ORDER BY evaluator_id, evaluation_result_id`,
        { caseResultId, startedAtMs: Number(row.started_at_ms) },
      )
    ).map((item) => evaluationResultSchema.parse(JSON.parse(item.payload)));
    let evalCase = null;
    if (caseResult.case_id !== "") {
      const [found] = await this.rows<{ payload: string }>(`SELECT payload FROM ${database}.eval_cases FINAL WHERE case_id = {caseId:String} AND case_version = {caseVersion:String} LIMIT 1`, { caseId: caseResult.case_id, caseVersion: caseResult.case_version });
      evalCase = found === undefined ? null : evalCaseSchema.parse(JSON.parse(found.payload));
    }
    // The request's start selects the month partition; the sorting key is the case result id.
    const [spans] = await this.rows<{ spans: string; span_count: string | number; truncated_values: string | number }>(
      `SELECT spans, span_count, truncated_values FROM ${database}.trace_spans FINAL
       WHERE case_result_id = {caseResultId:String} AND started_at = fromUnixTimestamp64Milli({startedAtMs:Int64}, 'UTC') AND ${this.tenants.on("trace_spans")} LIMIT 1`,
      { caseResultId, startedAtMs: Number(row.started_at_ms) },
    );
    const rawSpans = spans === undefined ? null : { spans: JSON.parse(spans.spans) as StoredRawSpan[], spanCount: Number(spans.span_count), truncatedValues: Number(spans.truncated_values) };
    return { caseResult, datasetId: row.dataset_id !== "" ? row.dataset_id : (evalCase?.dataset_id ?? ""), evaluationResults, evalCase, rawSpans };
  }

  async listRuns(limit: number): Promise<RunLineage[]> {
    const rows = await this.rows<{ payload: string }>(`SELECT payload FROM ${this.database}.runs FINAL WHERE ${this.tenants.on("runs")} ORDER BY started_at DESC, run_id DESC LIMIT {limit:UInt32}`, { limit });
    return rows.map((row) => runLineage.parse(JSON.parse(row.payload)));
  }
}
