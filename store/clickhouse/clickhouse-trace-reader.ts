/**
 * TraceReader on ClickHouse. The list is two queries: the page's keys first
 * (only the sorting columns are read, filtered and ordered newest first, with
 * a keyset condition instead of OFFSET), then the page's rows by id. Both read
 * trace_list, and the metric filter trace_list_metrics (migration 0015): copies
 * of case_results and metric_values sorted by day first, so the newest days
 * are one range of each part instead of a run per tenant and service spread
 * over all of them; their keys are permutations of the copied tables' keys, so
 * FINAL collapses the same rows and the list is what case_results would give.
 * A trace's detail reads case_results and evaluation_results by id. Every query collapses
 * replayed rows with FINAL and takes its values as parameters. The reader's
 * tenant scope is a condition of every query that finds rows (tenant-filter.ts);
 * queries that only complete a row already found by id under the scope do not
 * repeat it.
 */
import { TupleParam } from "@clickhouse/client";
import type { StoredRawSpan } from "../../contracts/raw-spans.js";
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import { evalCase as evalCaseSchema } from "../../contracts/eval-case.js";
import { evalCaseFor, evalCaseServesTenant } from "../../contracts/eval-case-tenant.js";
import { caseIdentity } from "../../contracts/eval-case-identity.js";
import { evaluationResult as evaluationResultSchema } from "../../contracts/evaluation-result.js";
import type { RunListing } from "../ports/run-listing.js";
import { inSlices, LIST_TEXT_CHARACTERS, listText, type TraceCursor, type TraceDetail, type TraceFilter, type TraceLocation, type TracePage, type TraceReader, type TraceRequest, type TraceSummary } from "../ports/trace-reader.js";
import type { TenantScope } from "../ports/tenant-scope.js";
import { FINAL_VERDICT, finalVerdictCandidates } from "../../dashboards/source/aggregate-metrics.js";
import { attributedRootCauses, HAS_ROOT_CAUSE_LABEL, ROOT_CAUSE_EVALUATOR, ROOT_CAUSE_LABEL } from "../../dashboards/source/root-causes.js";
import { ROOT_CAUSE_LABEL_NAMES, UNATTRIBUTED } from "../../evaluators/root-cause/root-cause-labels.js";
import { ROOT_CAUSE_LABEL_METRIC } from "../../evaluators/reviewed-verdict.js";
import { qualifyTables } from "../../report/qualify-tables.js";
import { quoteIdentifier, type ClickHouseConnection } from "./clickhouse-connection.js";
import { TenantFilter } from "./tenant-filter.js";
import { casesWithOneContent } from "./stored-case-contents.js";
import { listRunsOnClickHouse } from "./clickhouse-run-listing.js";
import { evaluationResultsOfRequests, readEvaluationResultsOnClickHouse } from "./clickhouse-evaluation-results-reader.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { FINAL_WITHIN_PARTITIONS, withStatementSettings } from "./final-within-partitions.js";
import { NEWEST_REQUEST_ORDER, newestCaseResultRows, WRITE_ORDER } from "./newest-row.js";

/** A column of a list row as read: the query and answer cut in the engine, one character past the list's, so that a cut is known (trace-reader.ts listText). */
function listColumn(column: string): string {
  return column === "query" || column === "output" ? `substringUTF8(${column}, 1, ${LIST_TEXT_CHARACTERS + 1})` : column;
}

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
  error_type: string;
  latency_ms: number | null;
  started_at_ms: string | number;
  query: string | null;
  output: string;
  has_output: number;
}

/**
 * A row of the list: its Case Result id and start, and the tenant and service of its sorting key (which tell two rows of
 * one id and start apart); its trace id (its request, with the start) under an alias apart from the column, which the
 * key queries' conditions name.
 */
type KeyRow = { case_result_id: string; started_at_ms: string | number; tenant_id: string; service_name: string; key_trace_id: string };

/** A request of the list (a Case Result id's trace and start): a case sent again has one per request, each with its own root cause. */
const requestKey = (caseResultId: string, traceId: string, startedAtMs: string | number): string => JSON.stringify([caseResultId, traceId, Number(startedAtMs)]);
/** trace_list's sorting key: the day, tenant, service and Case Result id. */
type SortingKey = [day: string, tenant: string, service: string, caseResultId: string];

/**
 * A filter's condition on trace_list, and the one the candidate queries ask instead (newestKeys): met by every row
 * that meets the first, and cheaper. `exact(among)` puts `among`, a further condition on the Case Result id, into its
 * subqueries, so that reading the candidates' rows does not read the whole window again; `checking`, when given, is a
 * SELECT of the only rows the condition is asked about (case_result_id, request_trace, request_started: the check of
 * the candidates' requests), which a condition on requests reads instead of finding them in trace_list.
 */
interface FilterCondition {
  exact(among: string, checking?: string): string;
  candidate: string;
  /**
   * Whether the key query with FINAL asks the candidate form and checks its rows' ids against the exact one after
   * (newestKeys): for a filter whose exact form aggregates a whole window of another table, the rows of the page.
   */
  checked: boolean;
}

const DAY_MS = 86_400_000;

/** The UTC day of a time, as trace_list's sorting key holds it (toDate of a DateTime64 in UTC). */
const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
/** The windows in days, each a UTC day boundary back from the newest day: one day, a week, a month, a quarter, a year. */
const WINDOW_DAYS = [1, 7, 31, 92, 366] as const;
/** A window's lower bound that admits every row (DateTime64 starts at 1900). */
const MINIMUM_TIME_MS = Date.parse("1900-01-01T00:00:00.000Z");
/** An upper bound that admits every row (DateTime64 ends in 2299). */
const MAXIMUM_TIME_MS = Date.parse("2299-12-31T00:00:00.000Z");
/** The text filter's LIKE pattern: the text lower-cased, its wildcards and backslashes escaped, between two `%`. */
const TEXT_PATTERN = String.raw`concat('%', replaceRegexpAll(lowerUTF8({text:String}), '([%_\\\\])', '\\\\\\1'), '%')`;
/**
 * The list's order (compareNewestFirst in trace-reader.ts, which the cursor follows): newest first, then the Case
 * Result id, trace id, tenant and service, each descending. Total: after FINAL a row is one (day, tenant, service,
 * id), and the day follows from the start. By the start and id alone two rows of one id at the same start (a case sent
 * again from another service at the same millisecond, a result rebuilt without a tenant beside its request's row) tied,
 * came back in either order, and a page that ended between them skipped the other.
 */
const LIST_ORDER = (startedAt: string, traceId: string): string => `${startedAt} DESC, case_result_id DESC, ${traceId} DESC, tenant_id DESC, service_name DESC`;
/** The requests a check reads (FilterCondition's `checking`): the candidates' rows, as newestKeys passes them. */
const CHECKED_REQUESTS = `SELECT tupleElement(request, 1) AS case_result_id, tupleElement(request, 2) AS request_trace, fromUnixTimestamp64Milli(tupleElement(request, 3), 'UTC') AS request_started
  FROM (SELECT arrayJoin({checkRequests:Array(Tuple(String, String, Int64))}) AS request)`;
/** The key query's time window; `{windowFromMs}` is set per window by newestKeys. */
const WINDOW_CONDITION = (column: string): string => `${column} >= fromUnixTimestamp64Milli({windowFromMs:Int64}, 'UTC')`;

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
    // What selects among the scope's rows (a filter), apart from the time: the range, the cursor and the window.
    const filters: FilterCondition[] = [];
    const times: string[] = [];
    // The key query's limit, window and candidate keys are set per window by newestKeys.
    const parameters: Record<string, unknown> = {};
    const same = (condition: string) => filters.push({ exact: () => condition, candidate: condition, checked: false });
    const equal = (column: string, name: string, value: string | undefined) => {
      if (value === undefined) return;
      same(`${column} = {${name}:String}`);
      parameters[name] = value;
    };
    equal("service_name", "service", filter.service);
    equal("tenant_id", "tenant", filter.tenant);
    equal("route", "route", filter.route);
    equal("run_id", "runId", filter.runId);
    equal("quality_status", "automaticVerdict", filter.automaticVerdict);
    // The final verdict: an agreed human review's, else the automatic one. Kept apart: the candidates (newestKeys)
    // are found with cheaper conditions one of which every row with that verdict meets.
    let verdict: { exact: string; candidates: string[] } | null = null;
    // root_cause=UNATTRIBUTED lists failing requests only (the Failures board's count): with another verdict, none.
    const verdictOfList = filter.rootCause === UNATTRIBUTED ? "failed" : filter.verdict;
    if (filter.rootCause === UNATTRIBUTED && filter.verdict !== undefined && filter.verdict !== "failed") return { traces: [], next: null };
    if (verdictOfList !== undefined) {
      // trace_list holds execution_status and error_type (migration 0029): whether a request completed is read from
      // the list's own rows. Before, every query of this filter scanned case_results for the requests that did not.
      verdict = { exact: `${qualifyTables(FINAL_VERDICT, this.connection.database)} = {verdict:String}`, candidates: finalVerdictCandidates(verdictOfList).map((condition) => qualifyTables(condition, this.connection.database)) };
      parameters.verdict = verdictOfList;
    }
    if (filter.datasetId !== undefined) {
      same(`(dataset_id = {datasetId:String} OR (case_id, case_version) IN (SELECT case_id, case_version FROM ${database}.eval_cases FINAL WHERE dataset_id = {datasetId:String}))`);
      parameters.datasetId = filter.datasetId;
    }
    // Subqueries over the other growing tables take the key query's time window too: their rows carry their
    // Case Result's start (evaluation_results.started_at, metric_values.ts), so the window prunes their months and days.
    if (filter.rootCause !== undefined) {
      // The cause the Failures board counts (root-causes.ts attributedRootCauses): the one the request's reviewers
      // agreed on, else the evaluator's. Only a request that some version of the evaluator's result or some reviewer
      // gave a label can have it: those, read without FINAL (which merges the window's results of every request),
      // are the candidates, and the exact form attributes only them, reading only their results and reviews. Reviews
      // carry no time; the requests reviewers labelled are few beside the traces.
      // UNATTRIBUTED is the board's "without a root-cause label": a failing request whose cause is none of the labels
      // (root-causes.ts isUnlabelledRootCause) — no cause, the evaluator's UNATTRIBUTED, a newer evaluator's name. Its
      // condition is the complement: no request some result or reviewer gave a label to ends up attributed one of them.
      const unattributed = filter.rootCause === UNATTRIBUTED;
      const namedBy = (among: string) =>
        (unattributed
          ? [
              `SELECT case_result_id FROM ${database}.evaluation_results WHERE ${HAS_ROOT_CAUSE_LABEL} AND ${ROOT_CAUSE_LABEL} IN {rootCauseLabels:Array(String)} AND ${WINDOW_CONDITION("started_at")}${among}`,
              `UNION DISTINCT SELECT case_result_id FROM ${database}.human_labels WHERE metric = '${ROOT_CAUSE_LABEL_METRIC}' AND note IN {rootCauseLabels:Array(String)}${among}`,
            ]
          : [
              `SELECT case_result_id FROM ${database}.evaluation_results WHERE evaluator_id = '${ROOT_CAUSE_EVALUATOR}' AND startsWith(reason, {rootCausePrefix:String}) AND ${WINDOW_CONDITION("started_at")}${among}`,
              `UNION DISTINCT SELECT case_result_id FROM ${database}.human_labels WHERE metric = '${ROOT_CAUSE_LABEL_METRIC}' AND note = {rootCause:String}${among}`,
            ]
        ).join(" ");
      // Per request (a Case Result id's trace and start), as the Failures board counts them: the evaluator's cause is
      // the one written with the request, so each request of a case sent again has its own (root-causes.ts).
      // Checking the candidates' rows, those are the requests: finding the named ids' requests again in trace_list read
      // the window's ids (the check alone ~103 → ~74 ms at 2,000,000 traces, test/bench/trace-list-filters.bench.ts).
      const attributed = (among: string, checking?: string) => {
        const named = `case_result_id IN (${namedBy(among)})`;
        const requests =
          checking === undefined
            ? `SELECT DISTINCT case_result_id, trace_id AS request_trace, started_at AS request_started FROM ${database}.trace_list WHERE ${named} AND ${WINDOW_CONDITION("started_at")}`
            : `SELECT case_result_id, request_trace, request_started FROM (${checking}) WHERE ${named}`;
        const causes = attributedRootCauses(requests, ["request_trace", "request_started"], `${WINDOW_CONDITION("started_at")} AND ${named}`, { database, labelsWhere: named, request: { trace: "request_trace", started: "request_started" } });
        return unattributed
          ? `(case_result_id, trace_id, started_at) NOT IN (SELECT case_result_id, request_trace, request_started FROM (${causes}) WHERE root_cause IN {rootCauseLabels:Array(String)})`
          : `(case_result_id, trace_id, started_at) IN (SELECT case_result_id, request_trace, request_started FROM (${causes}) WHERE root_cause = {rootCause:String})`;
      };
      // A request without a label has no row naming it: every failing row is a candidate (the verdict's own
      // candidates find them), and the check drops the labelled ones.
      filters.push({ exact: attributed, candidate: unattributed ? "1" : `case_result_id IN (${namedBy("")})`, checked: true });
      if (unattributed) parameters.rootCauseLabels = [...ROOT_CAUSE_LABEL_NAMES];
      else {
        parameters.rootCause = filter.rootCause;
        parameters.rootCausePrefix = `${filter.rootCause}:`;
      }
    }
    if (filter.fromMs !== undefined) {
      times.push("started_at >= fromUnixTimestamp64Milli({fromMs:Int64}, 'UTC')");
      parameters.fromMs = filter.fromMs;
    }
    if (filter.toMs !== undefined) {
      times.push("started_at < fromUnixTimestamp64Milli({toMs:Int64}, 'UTC')");
      parameters.toMs = filter.toMs;
    }
    if (filter.text !== undefined && filter.text !== "") {
      // The answer and the query lower-cased when the row was written (migration 0034; a NULL query is '', which no
      // text matches), the text lower-cased by the engine, then LIKE with its wildcards escaped. At
      // 10,000,000 rows LIKE over the stored lower-cased columns took ~55 % of lowerUTF8 over both on every search
      // (119–145 against 218–230 ms), which took ~45 % of positionCaseInsensitiveUTF8's time (207 against 465 ms).
      same(`(output_lower LIKE ${TEXT_PATTERN} OR query_lower LIKE ${TEXT_PATTERN})`);
      parameters.text = filter.text;
    }
    // A trace id or Case Result id (the list's q= when it is one): trace_list holds neither in a skip index, and the
    // id only last in its sorting key, so alone either would scan the window's column. case_results has a bloom filter
    // on each (migration 0007): the window's requests with it are found there, and their sorting keys (a permutation
    // of trace_list's) select trace_list's rows by its primary key. The row's own column then checks the version the
    // list shows (a case sent again the same day from the same service replaced its earlier request's trace id).
    const exactId = (column: "trace_id" | "case_result_id", name: string, value: string | undefined) => {
      if (value === undefined) return;
      same(
        `(toDate(started_at), tenant_id, service_name, case_result_id) IN (SELECT toDate(started_at), tenant_id, service_name, case_result_id FROM ${database}.case_results
           WHERE ${column} = {${name}:String} AND ${WINDOW_CONDITION("started_at")} AND ${this.tenants.on("case_results")}) AND ${column} = {${name}:String}`,
      );
      parameters[name] = value;
    };
    exactId("trace_id", "traceId", filter.traceId);
    exactId("case_result_id", "caseResultId", filter.caseResultId);
    if (filter.metric !== undefined && (filter.below !== undefined || filter.above !== undefined)) {
      const bounds = (column: string) => [filter.below === undefined ? "" : ` AND ${column} < {below:Float64}`, filter.above === undefined ? "" : ` AND ${column} > {above:Float64}`].join("");
      // The list's service and tenant conditions hold for a trace's metric rows too (they carry its Case Result's
      // service and tenant, which the sorting key holds after the metric): the subquery reads only those rows.
      const sameRequests = [
        filter.service === undefined ? "" : " AND service_name = {service:String}",
        filter.tenant === undefined ? "" : " AND tenant_id = {tenant:String}",
        ` AND ${this.tenants.on("trace_list_metrics")}`,
      ].join("");
      // Each sorting key's newest version, collapsed by hand (argMax by FINAL's order, newest-row.ts, grouped by the
      // key's columns but the metric, which is fixed), as FINAL keeps it; the bounds apply to that version. A hash aggregation
      // of the window's rows costs about half of FINAL's merge of them (10,000,000 traces: 129 → 66 ms).
      // Candidates: any version of the metric within the bounds, without the aggregation (a metric that no row holds
      // within them was aggregated over the whole store: at 10,000,000 traces ~3.5 s).
      filters.push({
        exact: (among) =>
          `case_result_id IN (SELECT case_result_id FROM (SELECT case_result_id, evaluator_id, argMax(value, ${WRITE_ORDER}) AS newest_value FROM ${database}.trace_list_metrics
             WHERE metric = {metric:String}${sameRequests} AND ${WINDOW_CONDITION("ts")}${among} GROUP BY toDate(ts), tenant_id, service_name, case_result_id, evaluator_id) WHERE newest_value IS NOT NULL${bounds("newest_value")})`,
        candidate: `case_result_id IN (SELECT case_result_id FROM ${database}.trace_list_metrics WHERE metric = {metric:String}${sameRequests} AND ${WINDOW_CONDITION("ts")}${bounds("value")})`,
        checked: true,
      });
      parameters.metric = filter.metric;
      if (filter.below !== undefined) parameters.below = filter.below;
      if (filter.above !== undefined) parameters.above = filter.above;
    }
    if (page.after !== null) {
      // After the cursor in the list's total order (LIST_ORDER: start, id, trace, tenant, service). The bound on the
      // start alone lets the primary key and the partitions skip the days and months after the cursor's, which the
      // tuple does not.
      times.push(`started_at <= fromUnixTimestamp64Milli({afterMs:Int64}, 'UTC')`);
      times.push("(started_at, case_result_id, trace_id, tenant_id, service_name) < (fromUnixTimestamp64Milli({afterMs:Int64}, 'UTC'), {afterId:String}, {afterTraceId:String}, {afterTenant:String}, {afterService:String})");
      parameters.afterMs = page.after.startedAtMs;
      parameters.afterId = page.after.caseResultId;
      parameters.afterTraceId = page.after.traceId;
      parameters.afterTenant = page.after.tenantId;
      parameters.afterService = page.after.serviceName;
    }
    times.push(WINDOW_CONDITION("started_at"));
    // Each window reads only the days the windows before it did not (newestKeys).
    times.push("started_at < fromUnixTimestamp64Milli({windowToMs:Int64}, 'UTC')");
    const scope = this.tenants.on("trace_list");
    // A filter's id set prunes the sorting key's ranges when it is small; one of a day's worth of ids selects
    // every range anyway, and checking them against it cost ~25 ms at 124,000 ids (10,000,000 traces).
    const inSettings = { use_index_for_in_with_subqueries_max_values: 10_000 };
    /** The key query's conditions, each filter's in the form `form` gives. */
    const keyConditions = (form: (condition: FilterCondition) => string) => [scope, ...filters.map(form), ...times, ...(verdict === null ? [] : [verdict.exact])].join(" AND ");
    const keyConditionsAmong = (among: string) => keyConditions((condition) => condition.exact(among));
    const keyQuery = (conditions: string, limit: string) =>
      withStatementSettings(
        `SELECT case_result_id, toUnixTimestamp64Milli(started_at) AS started_at_ms, tenant_id, service_name, trace_id AS key_trace_id FROM ${database}.trace_list FINAL WHERE ${conditions}
         ORDER BY ${LIST_ORDER("started_at", "trace_id")} LIMIT {${limit}:UInt32}`,
        { ...FINAL_WITHIN_PARTITIONS, ...inSettings },
      );
    const keySql = keyQuery(keyConditionsAmong(""), "limit");
    // The checked filters' candidate forms in the key query, then their exact forms over the ids it returned (newestKeys).
    const checked = filters.filter((condition) => condition.checked);
    const checkedSql =
      checked.length === 0
        ? null
        : {
            keys: keyQuery(keyConditions((condition) => (condition.checked ? condition.candidate : condition.exact(""))), "checkedLimit"),
            check: withStatementSettings(
              // Each row's request (its trace and start beside its id): a filter on the root cause is one on requests.
              `SELECT case_result_id, trace_id, started_at_ms FROM (SELECT arrayJoin({checkRequests:Array(Tuple(String, String, Int64))}) AS request, tupleElement(request, 1) AS case_result_id, tupleElement(request, 2) AS trace_id, tupleElement(request, 3) AS started_at_ms, fromUnixTimestamp64Milli(started_at_ms, 'UTC') AS started_at)
               WHERE ${checked.map((condition) => condition.exact(" AND case_result_id IN {checkIds:Array(String)}", CHECKED_REQUESTS)).join(" AND ")}`,
              inSettings,
            ),
          };
    // The same rows among the candidates' keys: every version of each key (the sorting key selects their granules),
    // its newest collapsed by hand (argMax by FINAL's order, newest-row.ts, as the page's summaries are: one row's
    // start and trace id, the row the unfiltered list reads with FINAL) and kept when that version meets the
    // conditions, as FINAL then WHERE keeps it; the filters' subqueries read the candidates' rows only. Reading
    // only the columns of the matching rows, this costs a third of FINAL over the same granules, which reads every
    // column of them (10 keys on 200 parts: ~75 against ~250 ms).
    const candidatesSql = withStatementSettings(
      `SELECT case_result_id, argMax((started_at, trace_id), ${WRITE_ORDER}) AS newest_request, toUnixTimestamp64Milli(tupleElement(newest_request, 1)) AS started_at_ms, tenant_id, service_name, tupleElement(newest_request, 2) AS key_trace_id
       FROM ${database}.trace_list
       WHERE (toDate(started_at), tenant_id, service_name, case_result_id) IN {candidates:Array(Tuple(Date, String, String, String))}
       GROUP BY toDate(started_at), tenant_id, service_name, case_result_id HAVING argMax(${keyConditionsAmong(" AND case_result_id IN {candidateIds:Array(String)}")}, ${WRITE_ORDER})
       ORDER BY ${LIST_ORDER("tupleElement(newest_request, 1)", "key_trace_id")} LIMIT {limit:UInt32}`,
      inSettings,
    );
    const candidateConditions = [scope, ...filters.map((condition) => condition.candidate), ...times];
    // An unfiltered list has a row in every window that has one: looking for candidates would only add a query.
    const candidateQueries =
      filters.length > 0 || verdict !== null
        ? (verdict === null ? [candidateConditions] : verdict.candidates.map((candidate) => [...candidateConditions, candidate])).map((where) =>
            withStatementSettings(`SELECT DISTINCT toDate(started_at) AS day, tenant_id, service_name, case_result_id FROM ${database}.trace_list WHERE ${where.join(" AND ")} LIMIT {candidateLimit:UInt32}`, inSettings),
          )
        : [];
    const keys = await this.newestKeys(
      { all: keySql, checked: checkedSql, ofCandidates: candidatesSql, candidates: candidateQueries },
      parameters,
      page.after?.startedAtMs ?? null,
      filter.toMs ?? null,
      filter.fromMs ?? null,
      page.limit + 1,
    );
    const pageKeys = keys.slice(0, page.limit);
    const lastKey = pageKeys[pageKeys.length - 1];
    const next = keys.length > page.limit && lastKey !== undefined ? { startedAtMs: Number(lastKey.started_at_ms), caseResultId: lastKey.case_result_id, traceId: lastKey.key_trace_id, tenantId: lastKey.tenant_id, serviceName: lastKey.service_name } : null;
    if (pageKeys.length === 0) return { traces: [], next: null };
    const ids = pageKeys.map((key) => key.case_result_id);
    // The page's own time span (its rows are newest first): selects the months and days of the page's rows only.
    const span = { spanFromMs: Number(pageKeys[pageKeys.length - 1]!.started_at_ms), spanToMs: Number(pageKeys[0]!.started_at_ms) };
    const inSpan = (column: string) => `${column} BETWEEN fromUnixTimestamp64Milli({spanFromMs:Int64}, 'UTC') AND fromUnixTimestamp64Milli({spanToMs:Int64}, 'UTC')`;
    // Each sorting key's newest version, collapsed by hand (argMax by FINAL's order, newest-row.ts: every column of
    // the one row the key query read with FINAL, or picked the same way) rather than with FINAL: without
    // FINAL the ids filter every granule of the window before the other columns are read (at 10,000,000 traces
    // 77 → 24 ms). The key query's start times are the newest versions', so the span never leaves one out.
    // The rows of the page's sorting keys (its rows' day, tenant, service and id), as the candidates are read: the ids
    // alone let the primary index narrow only within a day's tenant and service, so a page whose rows lie days apart
    // (a rare text's ten traces over 20 days) read every id of its span. The ids stay beside the keys: the engine
    // filters the id column first, before it reads the key's other columns. 10,000,000 traces in 200 parts, this
    // statement alone, median of 7: a rare text's page 169 ms (ids alone) → 83 (keys alone) → 46 (both); the newest
    // page 13 / 14 / 14.
    // One argMax of the row's columns together, the order compared once a row: fourteen argMax, one a column, each by
    // this order, cost ~10 % more of the process's CPU than the reader by version alone (trace-list-filters.bench.ts,
    // 1,000,000 traces, newest 50: 115 against 103 ms); this one as much as it (48 against 48 ms, 9 rounds).
    const shown = ["trace_id", "run_id", "case_id", "case_version", "dataset_id", "route", "quality_status", "execution_status", "error_type", "latency_ms", "query", "output", "has_output"];
    const summaries = await this.rows<SummaryRow>(
      `SELECT case_result_id, service_name, tenant_id, ${shown.map((column, index) => `tupleElement(newest_row, ${index + 1}) AS ${column}`).join(", ")},
              toUnixTimestamp64Milli(tupleElement(newest_row, ${shown.length + 1})) AS started_at_ms
       FROM (SELECT case_result_id, service_name, tenant_id, argMax((${shown.map(listColumn).join(", ")}, started_at), ${WRITE_ORDER}) AS newest_row
             FROM ${database}.trace_list WHERE case_result_id IN {ids:Array(String)} AND (toDate(started_at), tenant_id, service_name, case_result_id) IN {pageKeys:Array(Tuple(Date, String, String, String))} AND ${inSpan("started_at")} AND ${this.tenants.on("trace_list")}
             GROUP BY toDate(started_at), tenant_id, service_name, case_result_id)`,
      { ids, pageKeys: pageKeys.map((key) => new TupleParam([utcDay(Number(key.started_at_ms)), key.tenant_id, key.service_name, key.case_result_id])), ...span },
    );
    // The page's root causes as the Failures board counts them (root-causes.ts): per request, the evaluator's the one
    // written with it; reading the page's results and reviews only.
    const pageRequests = `SELECT tupleElement(request, 1) AS case_result_id, tupleElement(request, 2) AS request_trace, fromUnixTimestamp64Milli(tupleElement(request, 3), 'UTC') AS request_started
       FROM (SELECT arrayJoin({requests:Array(Tuple(String, String, Int64))}) AS request)`;
    // The evaluation results written with the page's requests (the only ones the attribution joins), on the page's
    // days: the sorting key (evaluator, day, id) then reads those days, and the bloom filters on case_result_id and
    // trace_id keep to their granules. With the ids and the span alone, a page whose rows lie days apart (a rare
    // text's ten traces over 20 days, 10,000,000 traces in 200 parts) read every root-cause result of the span:
    // this statement alone, median of 5, 210 → 17 ms; the newest page 12 / 14. The same rows: the attribution's
    // join drops every other result.
    const pageResults = `(case_result_id, trace_id, started_at) IN (SELECT case_result_id, request_trace, request_started FROM (${pageRequests})) AND toDate(started_at) IN {pageDays:Array(Date)} AND ${inSpan("started_at")}`;
    const rootCauses = new Map(
      (
        await this.rows<{ case_result_id: string; request_trace: string; request_started_ms: string | number; root_cause: string }>(
          withStatementSettings(
            `SELECT case_result_id, request_trace, toUnixTimestamp64Milli(request_started) AS request_started_ms, root_cause FROM (${attributedRootCauses(pageRequests, ["request_trace", "request_started"], pageResults, { database, labelsWhere: "case_result_id IN {ids:Array(String)}", request: { trace: "request_trace", started: "request_started" } })})`,
            FINAL_WITHIN_PARTITIONS,
          ),
          {
            ids,
            ...span,
            pageDays: [...new Set(summaries.map((row) => utcDay(Number(row.started_at_ms))))],
            requests: summaries.map((row) => new TupleParam([row.case_result_id, row.trace_id, Number(row.started_at_ms)])),
          },
        )
      )
        .filter((row) => row.root_cause !== "")
        .map((row) => [requestKey(row.case_result_id, row.request_trace, row.request_started_ms), row.root_cause]),
    );
    const missingDatasets = summaries.filter((row) => row.dataset_id === "" && row.case_id !== "");
    // With the tenant the case names: another tenant's case lends a trace that only names its ids no dataset (contracts/eval-case-tenant.ts).
    const datasets = new Map<string, { datasetId: string; tenant: string }>();
    if (missingDatasets.length > 0) {
      for (const row of await this.rows<{ case_id: string; case_version: string; dataset_id: string; case_tenant: string }>(
        `SELECT case_id, case_version, dataset_id, JSONExtractString(payload, 'context', 'tenant_id') AS case_tenant FROM ${database}.eval_cases FINAL WHERE case_id IN {caseIds:Array(String)}`,
        { caseIds: [...new Set(missingDatasets.map((row) => row.case_id))] },
      ))
        datasets.set(`${row.case_id}@${row.case_version}`, { datasetId: row.dataset_id, tenant: row.case_tenant });
    }
    const datasetOfCase = (row: { case_id: string; case_version: string; tenant_id: string }) => {
      const found = datasets.get(`${row.case_id}@${row.case_version}`);
      return found === undefined || !evalCaseServesTenant({ context: { tenant_id: found.tenant } }, row.tenant_id === "" ? null : row.tenant_id) ? "" : found.datasetId;
    };
    // By sorting key, not by id alone: a case of a run sent again (after midnight UTC, from a renamed service) keeps
    // its result id under another request, and each request is a row of the list with its own trace, service and time.
    // A result rebuilt without a tenant at the same start (from a partial trace) is a row of its own too: the tenant
    // and service tell it from the request's other row, which has the same id and start (keyed by those alone, the
    // page showed one of the two rows twice and never the other).
    const keyOf = (row: { case_result_id: string; started_at_ms: string | number; tenant_id: string; service_name: string }) => JSON.stringify([row.case_result_id, Number(row.started_at_ms), row.tenant_id, row.service_name]);
    const byKey = new Map(summaries.map((row) => [keyOf(row), row]));
    const traces: TraceSummary[] = [];
    for (const key of pageKeys) {
      const id = key.case_result_id;
      const row = byKey.get(keyOf(key));
      if (row === undefined) continue;
      traces.push({
        caseResultId: row.case_result_id,
        traceId: row.trace_id,
        runId: row.run_id,
        caseId: row.case_id,
        datasetId: row.dataset_id !== "" ? row.dataset_id : datasetOfCase(row),
        serviceName: row.service_name,
        tenantId: row.tenant_id,
        route: row.route,
        qualityStatus: row.quality_status,
        executionStatus: row.execution_status,
        errorType: row.error_type,
        latencyMs: row.latency_ms === null ? null : Number(row.latency_ms),
        startedAt: new Date(Number(row.started_at_ms)).toISOString(),
        query: listText(row.query),
        output: Number(row.has_output) === 1 ? listText(row.output) : null,
        rootCause: rootCauses.get(requestKey(row.case_result_id, row.trace_id, row.started_at_ms)) ?? null,
      });
    }
    return { traces, next };
  }

  /**
   * The first `wanted` rows of the key query, newest first, read window by window: the list is ordered by
   * start time, which trace_list's sorting key holds only as the day, so without a bound the engine reads and
   * sorts every row of every month to return 50. Each window starts at a UTC day (the
   * sorting key's resolution) and reaches up to the newest row the query can return (the cursor, the range's
   * end, else the store's newest start); it widens only while it holds fewer than `wanted` rows and older rows
   * may exist. Rows outside a window are older than every row in it, so a full window's first rows are the
   * whole store's: the result is the unbounded query's. A wider window reads only the days before the last
   * one's start, and its rows follow the ones already found: a filter that matches little reads each day
   * once (before, the windows overlapped and read the newest days up to six times: at 10,000,000 traces a
   * filter that matched nothing read ~2.1 times the store).
   *
   * A filtered list first looks for each window's candidates: the sorting keys of the rows that meet the key
   * query's conditions without FINAL (the verdict's as the cheaper conditions one of which its rows meet). Every
   * row of the list is one: FINAL keeps one of a key's stored versions and tests it with the same conditions.
   * Without FINAL the engine filters the cheap columns first and stops at the limit; with it, it reads and
   * merges every row's sorting key of the window before filtering. No candidate: the window has no row of the
   * list and is not read with FINAL. A few (up to `wanted`): only their keys' rows are read, every version of
   * each, and the newest kept if it meets the conditions. More: a filter that matches often, read with FINAL as
   * it is (a metric's or root cause's candidate form first, its rows checked after: readAll). When a window's
   * candidates are fewer than `wanted`, every older day's are asked for at once. At 10,000,000 list rows in 200
   * parts (trace-list-filters.bench.ts): verdict "failed", which none had, ~1,500 → ~100 ms; a metric bound no
   * value met ~3,100–6,300 → ~100–300 ms; a text none held ~2,000 → ~310–400 ms, one ten held ~2,300 → ~540–610 ms
   * (what is left is the scan of the texts; the engine's query condition cache answers the same search again from
   * its marks).
   */
  private async newestKeys(
    queries: { all: string; checked: { keys: string; check: string } | null; ofCandidates: string; candidates: readonly string[] },
    parameters: Record<string, unknown>,
    afterMs: number | null,
    toMs: number | null,
    fromMs: number | null,
    wanted: number,
  ): Promise<KeyRow[]> {
    // min/max of a partition-key column come from the parts' minmax indexes, not from the rows.
    const [bounds] = await this.rows<{ oldest: string | number | null; newest: string | number | null }>(
      `SELECT toUnixTimestamp64Milli(min(started_at)) AS oldest, toUnixTimestamp64Milli(max(started_at)) AS newest FROM ${this.database}.trace_list HAVING count() > 0`,
      {},
    );
    if (bounds === undefined || bounds.oldest === null || bounds.newest === null) return [];
    const oldest = Math.max(Number(bounds.oldest), fromMs ?? -Infinity);
    const newest = Math.min(Number(bounds.newest), afterMs ?? Infinity, toMs === null ? Infinity : toMs - 1);
    if (newest < oldest) return [];
    const newestDay = Math.floor(newest / DAY_MS) * DAY_MS;
    const found: KeyRow[] = [];
    const window = (windowFromMs: number, windowToMs: number) => ({ ...parameters, windowFromMs, windowToMs, limit: wanted - found.length });
    const candidatesIn = (windowFromMs: number, windowToMs: number, most: number) => this.candidateKeys(queries.candidates, window(windowFromMs, windowToMs), most);
    const readAll = async (windowFromMs: number, windowToMs: number) => {
      const needed = wanted - found.length;
      if (queries.checked !== null) {
        // The window's first rows with the checked filters' candidate forms (any version's metric value within the
        // bounds, any version's root cause), twice as many as wanted, then their ids against the exact forms, whose
        // aggregation by key (a metric's newest value) or FINAL (the newest root cause) now reads these ids only.
        // Every row of the list is among the first query's rows, in the same order: the ones that pass are all the
        // list's rows down to the last row read, so when they are enough, or the window had no more, they are the
        // list's. Else the window is read with the exact forms. At 10,000,000 traces, a metric a hundredth of them
        // met: the key query ~180 → ~50 ms, the check ~50 ms.
        const checkedLimit = needed * 2;
        const windowParameters = window(windowFromMs, windowToMs);
        const rows = await this.rows<KeyRow>(queries.checked.keys, { ...windowParameters, checkedLimit });
        const checkRequests = rows.map((row) => new TupleParam([row.case_result_id, row.key_trace_id, Number(row.started_at_ms)]));
        const passed = new Set(
          rows.length === 0
            ? []
            : (await this.rows<{ case_result_id: string; trace_id: string; started_at_ms: string | number }>(queries.checked.check, { ...windowParameters, checkIds: rows.map((row) => row.case_result_id), checkRequests })).map((row) => requestKey(row.case_result_id, row.trace_id, row.started_at_ms)),
        );
        const kept = rows.filter((row) => passed.has(requestKey(row.case_result_id, row.key_trace_id, row.started_at_ms)));
        if (kept.length >= needed || rows.length < checkedLimit) {
          found.push(...kept.slice(0, needed));
          return;
        }
      }
      found.push(...(await this.rows<KeyRow>(queries.all, window(windowFromMs, windowToMs))));
    };
    const readCandidates = async (keys: readonly SortingKey[], windowFromMs: number, windowToMs: number) => {
      if (keys.length === 0) return;
      found.push(...(await this.rows<KeyRow>(queries.ofCandidates, { ...window(windowFromMs, windowToMs), candidates: keys.map((key) => new TupleParam(key)), candidateIds: keys.map((key) => key[3]) })));
    };
    // Whether the older days' candidates were already asked for at once (at most once a list: see below).
    let olderAsked = false;
    let windowTo = MAXIMUM_TIME_MS;
    for (const days of [...WINDOW_DAYS, null]) {
      const windowFrom = days === null ? MINIMUM_TIME_MS : newestDay - (days - 1) * DAY_MS;
      // The last window is unbounded below: rows older than the store's minimum cannot exist, but a row written meanwhile could.
      const complete = windowFrom <= oldest;
      const from = complete ? MINIMUM_TIME_MS : windowFrom;
      const candidates = queries.candidates.length === 0 ? null : await candidatesIn(from, windowTo, wanted);
      if (candidates === null) await readAll(from, windowTo);
      else if (!complete && !olderAsked && candidates.length < wanted) {
        // Fewer candidates than the page wants: the list goes on into older days, and a filter that matched this
        // little here may match little anywhere. Every older day's candidates are asked for in one query, which stops
        // at the page's remainder: when they are that few, every row of the list is among these and the window's,
        // and one read of them all is the list (a text none held read the next windows' texts one query each, ~20 %
        // more, and each window's few candidates were read apart). When there are more, the windows go on as before,
        // and this query only found the first few.
        olderAsked = true;
        const older = await candidatesIn(MINIMUM_TIME_MS, from, wanted - candidates.length);
        if (older !== null) {
          await readCandidates([...candidates, ...older], MINIMUM_TIME_MS, windowTo);
          return found;
        }
        await readCandidates(candidates, from, windowTo);
      } else await readCandidates(candidates, from, windowTo);
      if (found.length >= wanted || complete) return found;
      windowTo = windowFrom;
    }
    return found;
  }

  /**
   * The sorting keys the candidate queries find in a window, as the key query's parameter; null when they find
   * more than `most` (the query for all is then cheaper than reading each one's granule).
   */
  private async candidateKeys(queries: readonly string[], parameters: Record<string, unknown>, most: number): Promise<SortingKey[] | null> {
    const keys = new Map<string, SortingKey>();
    for (const query of queries) {
      for (const row of await this.rows<{ day: string; tenant_id: string; service_name: string; case_result_id: string }>(query, { ...parameters, candidateLimit: most + 1 })) {
        const key: SortingKey = [row.day, row.tenant_id, row.service_name, row.case_result_id];
        keys.set(JSON.stringify(key), key);
      }
      if (keys.size > most) return null;
    }
    return [...keys.values()];
  }

  async readTrace(caseResultId: string, request?: TraceRequest): Promise<TraceDetail | null> {
    const database = this.database;
    // A case sent again has a row per request: its trace id selects one (the list links each request by it), as the
    // request's newest version holds it (the list's row: a request replaced under another trace id is not found by the old).
    const ofRequest = request === undefined ? "" : " WHERE trace_id = {traceId:String}";
    // Collapsed by hand (the newest version of each key, as ReplacingMergeTree keeps it) rather than with
    // FINAL: FINAL widens the id's bloom-filter selection to every granule of the same sorting-key range —
    // the whole day of the tenant and service for a case result, the whole day of every evaluator for its
    // Evaluation Results (EXPLAIN "PrimaryKeyExpand": 111 of 114 granules against 10) — which made a
    // trace's detail read most of a day's rows. Without FINAL the skip indexes keep their selection.
    // Each request's newest version (as FINAL keeps it), then of the id's requests (a case sent again has one per
    // request) the newest, by version and the list's order, as a run reads it (newest-row.ts).
    const requests = newestCaseResultRows(
      database,
      ["payload", "dataset_id", "started_at", "trace_id", "tenant_id", "service_name", "version"],
      `case_result_id = {caseResultId:String} AND ${this.tenants.on("case_results")}`,
    );
    const [row] = await this.rows<{ newest_payload: string; newest_dataset_id: string; started_at_ms: string | number; newest_service_name: string; newest_tenant_id: string }>(
      `SELECT argMax((payload, dataset_id, started_at, service_name, tenant_id), ${NEWEST_REQUEST_ORDER}) AS newest_request, tupleElement(newest_request, 1) AS newest_payload,
              tupleElement(newest_request, 2) AS newest_dataset_id, toUnixTimestamp64Milli(tupleElement(newest_request, 3)) AS started_at_ms,
              tupleElement(newest_request, 4) AS newest_service_name, tupleElement(newest_request, 5) AS newest_tenant_id
       FROM (${requests})${ofRequest} HAVING count() > 0`,
      { caseResultId, ...(request === undefined ? {} : { traceId: request.traceId }) },
    );
    if (row === undefined) return null;
    const caseResult = caseResultSchema.parse(JSON.parse(row.newest_payload));
    // The Evaluation Results written with this request: each key's newest row (as FINAL keeps it), when its start is
    // the request's. The start selects the month partition and the day of the sorting key.
    const evaluationResults = (
      await this.rows<{ payload: string }>(`${evaluationResultsOfRequests(database, "case_result_id = {caseResultId:String} AND toDate(started_at) = {day:Date}", "started_at_ms = {startedAtMs:Int64}")} ORDER BY evaluator_id, evaluation_result_id`, {
        caseResultId,
        startedAtMs: Number(row.started_at_ms),
        day: new Date(Number(row.started_at_ms)).toISOString().slice(0, 10),
      })
    ).map((item) => evaluationResultSchema.parse(JSON.parse(item.payload)));
    let evalCase = null;
    if (caseResult.case_id !== "") {
      // One row per content: a case stored with two contents (two pushes raced) is nobody's choice and shown as unknown.
      const stored = await this.rows<{ payload: string }>(`SELECT payload FROM ${database}.eval_cases FINAL WHERE case_id = {caseId:String} AND case_version = {caseVersion:String} LIMIT 8`, { caseId: caseResult.case_id, caseVersion: caseResult.case_version });
      const parsed = casesWithOneContent(stored.map((found) => evalCaseSchema.parse(JSON.parse(found.payload)))).get(caseIdentity(caseResult)) ?? null;
      // Another tenant's case shares only its ids with this trace: its gold data is not shown (contracts/eval-case-tenant.ts).
      evalCase = evalCaseFor(parsed, caseResult.rag_observation.tenant_id);
    }
    // The request's raw spans: its sorting key is the request's, as the Case Results' (migration 0035), so the same
    // case from another service or on another day is another row. The start selects the month partition.
    const [spans] = await this.rows<{ spans: string; span_count: string | number; truncated_values: string | number }>(
      `SELECT spans, span_count, truncated_values FROM ${database}.trace_spans FINAL
       WHERE tenant_id = {tenantId:String} AND service_name = {serviceName:String} AND toDate(started_at) = toDate(fromUnixTimestamp64Milli({startedAtMs:Int64}, 'UTC'))
         AND case_result_id = {caseResultId:String} AND started_at = fromUnixTimestamp64Milli({startedAtMs:Int64}, 'UTC') AND ${this.tenants.on("trace_spans")} LIMIT 1`,
      { caseResultId, startedAtMs: Number(row.started_at_ms), serviceName: row.newest_service_name, tenantId: row.newest_tenant_id },
    );
    const rawSpans = spans === undefined ? null : { spans: JSON.parse(spans.spans) as StoredRawSpan[], spanCount: Number(spans.span_count), truncatedValues: Number(spans.truncated_values) };
    return { caseResult, datasetId: row.newest_dataset_id !== "" ? row.newest_dataset_id : (evalCase?.dataset_id ?? ""), evaluationResults, evalCase, rawSpans };
  }

  async findByTraceId(traceId: string, limit: number): Promise<TraceLocation[]> {
    const database = this.database;
    // The bloom filter on case_results.trace_id (migration 0007) finds the rows that ever had the trace id, under the
    // scope; their sorting keys select every version of each request (the primary key), collapsed by hand as FINAL
    // keeps them (newest-row.ts): a request counts when that version still has the trace id, as the list shows it.
    // One row per Case Result id (a result rebuilt without a tenant at the same start is a second row of the same
    // request): the one the list shows first (the latest start, then the greatest tenant and service, as the
    // in-memory store picks it), one row's tenant, service and start together.
    const requests = newestCaseResultRows(
      database,
      ["case_result_id", "tenant_id", "service_name", "started_at", "trace_id"],
      `(tenant_id, service_name, toDate(started_at), case_result_id) IN (SELECT tenant_id, service_name, toDate(started_at), case_result_id FROM ${database}.case_results WHERE trace_id = {traceId:String} AND ${this.tenants.on("case_results")})`,
    );
    const rows = await this.rows<{ case_result_id: string; tenant: string; service: string; newest_ms: string | number }>(
      `SELECT case_result_id, argMax((tenant_id, service_name, started_at), (started_at, tenant_id, service_name)) AS listed_first, tupleElement(listed_first, 1) AS tenant,
              tupleElement(listed_first, 2) AS service, toUnixTimestamp64Milli(tupleElement(listed_first, 3)) AS newest_ms
       FROM (${requests})
       WHERE trace_id = {traceId:String}
       GROUP BY case_result_id ORDER BY newest_ms DESC, case_result_id DESC LIMIT {limit:UInt32}`,
      { traceId, limit },
    );
    return rows.map((row) => ({ caseResultId: row.case_result_id, traceId, tenantId: row.tenant, serviceName: row.service, startedAt: new Date(Number(row.newest_ms)).toISOString() }));
  }

  async findRequestsOfCases(caseResultIds: readonly string[]): Promise<Map<string, TraceLocation[]>> {
    const found = new Map<string, TraceLocation[]>();
    for (const ids of inSlices(caseResultIds)) {
      // Each sorting key's newest row (newest-row.ts), as the list shows a request; the case ids pick their granules.
      const requests = newestCaseResultRows(this.database, ["case_result_id", "tenant_id", "service_name", "started_at", "trace_id", "version"], `case_result_id IN {ids:Array(String)} AND ${this.tenants.on("case_results")}`);
      // Newest first as readTrace and readEvaluationResults pick a case's request (NEWEST_REQUEST_ORDER).
      const rows = await this.rows<{ case_result_id: string; trace_id: string; tenant_id: string; service_name: string; started_ms: string | number }>(
        `SELECT case_result_id, trace_id, tenant_id, service_name, toUnixTimestamp64Milli(started_at) AS started_ms FROM (${requests}) ORDER BY case_result_id, ${NEWEST_REQUEST_ORDER} DESC`,
        { ids },
      );
      for (const row of rows) {
        const location = { caseResultId: row.case_result_id, traceId: row.trace_id, tenantId: row.tenant_id, serviceName: row.service_name, startedAt: new Date(Number(row.started_ms)).toISOString() };
        found.set(row.case_result_id, [...(found.get(row.case_result_id) ?? []), location]);
      }
    }
    return found;
  }

  async readEvaluationResults(caseResultIds: readonly string[]): Promise<Map<string, EvaluationResult[]>> {
    return readEvaluationResultsOnClickHouse(this.database, this.tenants, this.rows.bind(this), caseResultIds);
  }

  async listRuns(limit: number): Promise<RunListing[]> {
    return listRunsOnClickHouse(this.database, this.tenants, this.rows.bind(this), limit);
  }
}
