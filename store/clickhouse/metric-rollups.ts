/**
 * Keeps `metric_rollups` (migration 0009) and `abstention_rollups` (0017) in
 * step with `metric_values`, and `request_rollups` (migration 0014),
 * `session_rollups` and `root_cause_rollups` (migration 0016) and
 * `stage_rollups` (migration 0019) with
 * `case_results` (and the root-cause `evaluation_results`): the
 * sinks note the request minutes, tenants and services they wrote to, and
 * those minutes are recomputed from `metric_values FINAL` and
 * `case_results FINAL` (and their hours in `metric_rollups_hourly`, migration
 * 0018, from `metric_rollups FINAL` once the minutes are done) — after writes, at
 * most once per refresh interval (the timer starts with a write, so an idle
 * collector runs no query), and once more on close. A recomputed minute
 * replaces the earlier one (a newer version of the same key), so replays,
 * re-evaluations and NULL rows that hide a value count as FINAL counts them.
 * A key of a recomputed minute that the recompute no longer produces (a
 * re-evaluated request moved to another dataset, run, session or root-cause
 * label) would keep its last row and be
 * counted by every panel: after its inserts a refresh counts such keys in
 * one read and, only where there are some, deletes the rows of its minutes
 * older than itself (a lightweight DELETE; staleKeysSelect, staleRowsDelete).
 * Several collectors refreshing the same minutes rely, as the versions do,
 * on clocks that agree to within a refresh: a refresh whose clock is ahead
 * of another's by more than that could take the other's newer rows for
 * stale ones, until the minute is written and refreshed again.
 *
 * A refresh recomputes, beside the groups (tenant × service) it was asked
 * for, every group holding another row of a request they hold
 * (groups-of-refreshed-requests.ts): a partial trace's result stored beside
 * the complete one under another tenant is one request in root_cause_rollups,
 * and the group its older row was counted under must lose it.
 *
 * Session summaries (migration 0021) are kept per session, not per minute:
 * after a range's minutes are recomputed, every session with a session_rollups
 * row in them has its summary recomputed from all of its minute rows
 * (session_rollups_by_session, sorted by session; refreshSessions).
 *
 * A minute is noted after its write succeeded, and the set of minutes to
 * refresh is taken when a refresh starts: a write landing during a refresh
 * notes its minute again, and the next refresh reads it. A refresh that
 * fails keeps its minutes for the next one.
 *
 * Dashboards therefore see a write at most one refresh interval (plus the
 * refresh's own time) after the raw rows have it; the interval grows to five
 * times the last refresh's duration when refreshes get slow, so recomputing
 * a busy minute never takes most of the engine.
 *
 * A process that dies between a write and its refresh (SIGKILL, a crash, a
 * machine that stops) takes its noted minutes with it, and those minutes
 * would stay wrong until written again. So a store that opens to write
 * catches up first (catchUp, called by openClickHouseStore), and a writing
 * process again every CATCH_UP_INTERVAL_MS (another process on the same
 * server may have died): every minute × tenant × service whose newest Case
 * Result was inserted (case_results.inserted_at) at or after its newest
 * request_rollups refresh began (that row's version) — or that has no
 * rollup row — is refreshed like a noted one. That comparison is the
 * watermark, kept per minute in the rows themselves: no state outside the
 * tables, and a minute another process refreshed since (a refresh recomputes
 * from all raw rows) is not redone. Only Case Results inserted within
 * CATCH_UP_LOOKBACK_MS before the newest refresh of any minute are looked
 * at: a dead process's writes follow its own last refresh, and the newest
 * refresh moves on only while some process writes, which catches up hourly.
 * case_results covers every write a rollup reads: the rule stage writes a
 * request's metric values and evaluations before its Case Result, and the
 * judge sink rewrites the Case Result after its own. Limits: the versions
 * come from the refreshing process's clock and inserted_at from the
 * server's, which agree on the embedded engine and, on a server, within the
 * clock skew the refreshes already rely on; an insert that began before a
 * refresh started and became visible only after the refresh read is taken
 * by that process's next refresh, not by a catch-up, so it is lost only when
 * the process dies within that interval as well; a review saved in the web
 * UI changes verdict counts without a Case Result write (human_labels), so a
 * process dying within a refresh interval after one leaves that minute's
 * verdict counts until the minute is refreshed again.
 */
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";
import { FINAL_WITHIN_PARTITIONS, withStatementSettings } from "./final-within-partitions.js";
import { HEURISTIC_JUDGE_ROW_SQL } from "../../evaluators/aggregate/dataset-shares.js";
import { REQUEST_ROLLUP_GROUP, requestRollupCounts, requestRollupSelect, SESSION_ROLLUP_COLUMNS, sessionRollupSelect } from "../../dashboards/source/aggregate-metrics.js";
import { rootCauseRollupColumns, rootCauseRollupSelect } from "../../dashboards/source/root-causes.js";
import { STAGE_ROLLUP_COLUMNS, stageRollupSelect } from "../../dashboards/source/stage-latency.js";
import { SESSION_SUMMARY_COLUMNS, sessionSummarySelect } from "../../dashboards/source/session-summaries.js";
import { ABSTENTION_ROLLUP_COLUMNS, abstentionRefreshSelect, abstentionRebuildSelect } from "./abstention-rollups.js";
import { refreshedRequests } from "./refreshed-requests.js";
import { groupsOfRefreshedRequestsSelect } from "./groups-of-refreshed-requests.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
export const DEFAULT_ROLLUP_REFRESH_MS = 5_000;

export interface MetricRollupOptions {
  /** Least time between two refreshes: the user setting clickhouse.rollupRefreshMs (RAGSCOPE_ROLLUP_REFRESH_MS). Default DEFAULT_ROLLUP_REFRESH_MS. */
  refreshIntervalMs?: number;
  /** Clock for row versions, injectable for tests. */
  now?: () => number;
  /**
   * Keep request_rollups too (default true). Only a store before migration 0014 has none: the upgrade test
   * builds one as the release before it did.
   */
  requestRollups?: boolean;
  /**
   * Keep session_rollups and root_cause_rollups too (default true). Only a store before migration 0016 has none: the
   * upgrade test builds one as the release before it did.
   */
  sessionAndRootCauseRollups?: boolean;
  /** Keep abstention_rollups too (default true); a store before migration 0017 has none. */
  abstentionRollups?: boolean;
  /** Keep metric_rollups_hourly too (default true); a store before migration 0018 has none. */
  hourlyRollups?: boolean;
  /** Keep stage_rollups too (default true); a store before migration 0019 has none. */
  stageRollups?: boolean;
  /** Keep session_rollups_by_session and session_summaries too (default true); a store before migration 0021 has none. */
  sessionSummaries?: boolean;
  /** Write the session rollups' and summaries' event counts (default true); a store before migration 0025 has no column for them. */
  sessionEventCounts?: boolean;
  /** Write request_rollups' task_not_judged (default true); a store before migration 0033 has no column for it. */
  notJudgedCount?: boolean;
  /** Write root_cause_rollups' failing_rows (default true); a store before migration 0038 has no column for it. */
  failingRows?: boolean;
}

/** What the sinks know of a written Case Result: when the request started, its tenant and service. */
export interface WrittenRequest {
  startedAt: string;
  tenantId: string;
  serviceName: string;
}

/**
 * The SELECT that computes rollup rows from metric_values FINAL (the migrations' backfills, 0009 and 0013,
 * compute the same). The heuristic judge's scores are left out: the rollups hold what a decision reads
 * (evaluators/aggregate/dataset-shares.ts), as the raw-row panels and the gate do.
 */
function rollupSelect(database: string, where: string): string {
  return `SELECT toStartOfMinute(ts) AS minute, metric, tenant_id, service_name, dataset_id, run_id,
       count(value) AS value_count, sum(ifNull(value, 0)) AS value_sum, countIf(value < 1) AS below_one, countIf(value > 0) AS above_zero,
       quantileTDigestStateIf(assumeNotNull(value), value IS NOT NULL) AS value_quantiles,
       {version:UInt64} AS version
FROM ${database}.metric_values FINAL
WHERE (${where}) AND NOT ${HEURISTIC_JUDGE_ROW_SQL}
GROUP BY minute, metric, tenant_id, service_name, dataset_id, run_id`;
}


/**
 * What a refresh reads and inserts for a range of minutes (parameters:
 * refreshParameters). FINAL within partitions: recomputing a minute reads the
 * granules of its day, not the whole table (final-within-partitions.ts).
 */
export function refreshSelect(database: string): string {
  return withStatementSettings(
    rollupSelect(
      database,
      refreshedRequests("ts"),
    ),
    FINAL_WITHIN_PARTITIONS,
  );
}

/**
 * The columns each rollup statement writes, in the order its SELECT computes them: named, so a column the SELECT
 * does not compute (written_at, migration 0020) takes its default.
 */
const METRIC_ROLLUP_COLUMNS = ["minute", "metric", "tenant_id", "service_name", "dataset_id", "run_id", "value_count", "value_sum", "below_one", "above_zero", "value_quantiles", "version"];
const HOURLY_ROLLUP_COLUMNS = ["hour", "hour_last_minute", "metric", "tenant_id", "service_name", "dataset_id", "run_id", "value_count", "value_sum", "below_one", "above_zero", "value_quantiles", "version"];

/** The columns of request_rollups in the order requestRollupSelect computes them (`notJudgedCount`: as requestRollupCounts). */
const requestRollupColumns = (notJudgedCount: boolean): string[] => ["minute", ...REQUEST_ROLLUP_GROUP, ...requestRollupCounts(notJudgedCount).map(([column]) => column), "rating_sum", "user_states", "version"];

/**
 * The SELECT computing metric_rollups_hourly rows (migration 0018) from the metric_rollups FINAL rows meeting
 * `where`: an hour's counts and sums added, its t-digest states merged. The migration's backfill computes the same.
 */
function hourlyRollupSelect(database: string, where: string): string {
  return `SELECT toStartOfHour(minute) AS hour, hour + INTERVAL 59 MINUTE AS hour_last_minute, metric, tenant_id, service_name, dataset_id, run_id,
       sum(value_count) AS value_count, sum(value_sum) AS value_sum, sum(below_one) AS below_one, sum(above_zero) AS above_zero,
       quantileTDigestMergeState(value_quantiles) AS value_quantiles,
       {version:UInt64} AS version
FROM ${database}.metric_rollups FINAL
WHERE (${where})
GROUP BY hour, metric, tenant_id, service_name, dataset_id, run_id`;
}

/**
 * The hours of a refresh's minutes, in its tenants and services (parameters: refreshParameters): the rows of
 * metric_rollups_hourly, and through metric_rollups' `hour` alias the minutes those hours sum.
 */
const REFRESHED_HOURS = "hour >= fromUnixTimestamp64Milli({hoursFrom:Int64}) AND hour < fromUnixTimestamp64Milli({hoursTo:Int64}) AND toUnixTimestamp(hour) IN {hours:Array(UInt32)} AND tenant_id IN {tenants:Array(String)} AND service_name IN {services:Array(String)}";

/**
 * What a refresh reads and inserts into metric_rollups_hourly: every hour one of its minutes is in, from
 * metric_rollups FINAL — so it runs after the minutes' own recompute (the same parameters as refreshSelect).
 */
export function hourlyRefreshSelect(database: string): string {
  return withStatementSettings(hourlyRollupSelect(database, REFRESHED_HOURS), FINAL_WITHIN_PARTITIONS);
}

/** What a refresh reads and inserts into request_rollups for a range of minutes (the same parameters as refreshSelect). */
export function requestRefreshSelect(database: string, notJudgedCount = true): string {
  return withStatementSettings(
    requestRollupSelect(
      database,
      refreshedRequests("started_at"),
      notJudgedCount,
    ),
    FINAL_WITHIN_PARTITIONS,
  );
}

/** What a refresh reads and inserts into session_rollups (migration 0016; the same parameters as refreshSelect). */
export function sessionRefreshSelect(database: string, eventCounts = true): string {
  return withStatementSettings(sessionRollupSelect(database, refreshedRequests("started_at"), eventCounts), FINAL_WITHIN_PARTITIONS);
}

/** What a refresh reads and inserts into stage_rollups (migration 0019; the same parameters as refreshSelect). */
export function stageRefreshSelect(database: string): string {
  return withStatementSettings(stageRollupSelect(database, refreshedRequests("started_at")), FINAL_WITHIN_PARTITIONS);
}

/** What a refresh reads and inserts into root_cause_rollups (migration 0016): evaluation_results has no tenant or service, its request has. */
export function rootCauseRefreshSelect(database: string, failingRows = true): string {
  return withStatementSettings(rootCauseRollupSelect(database, refreshedRequests("started_at", false), refreshedRequests("started_at"), failingRows), FINAL_WITHIN_PARTITIONS);
}

/** The rows of a per-minute rollup table in a refresh's minutes, tenants and services (every one has these columns). */
const REFRESHED_ROLLUP_ROWS = "minute >= fromUnixTimestamp64Milli({from:Int64}) AND minute < fromUnixTimestamp64Milli({to:Int64}) AND toUnixTimestamp(minute) IN {minutes:Array(UInt32)} AND tenant_id IN {tenants:Array(String)} AND service_name IN {services:Array(String)}";

/**
 * The rows of session_rollups_by_session in a refresh's minutes, tenants and services, of a share of its sessions
 * ({sessions}) and of the requests without a session id (key ''): the table is sorted by session, so the sessions
 * pick its rows and the minutes narrow them.
 */
const REFRESHED_SESSION_ROWS = `(session_key IN {sessions:Array(String)} OR session_key = '') AND ${REFRESHED_ROLLUP_ROWS}`;

/**
 * The summaries of a share of a refresh's sessions: every summary of theirs, earlier ones included, has its first
 * minute within the first and last minute of their stored minute rows, read before any of those rows was deleted.
 */
const REFRESHED_SUMMARIES = "session_key IN {sessions:Array(String)} AND first_minute >= toDateTime({sessionsFrom:UInt32}, 'UTC') AND first_minute <= toDateTime({sessionsTo:UInt32}, 'UTC')";

/**
 * A refresh's sessions, each with the first and last minute of its rows in session_rollups_by_session: every
 * session id with a session_rollups row in the refresh's minutes, tenants and services — the rows it just wrote
 * and, until the stale ones are deleted, the rows the recompute no longer produced (a request that left its
 * session, whose session's summary must change too).
 */
function refreshedSessionsSelect(database: string): string {
  return `SELECT session_key, toUnixTimestamp(min(minute)) AS first, toUnixTimestamp(max(minute)) AS last
FROM ${database}.session_rollups_by_session
WHERE session_key IN (SELECT session_key FROM ${database}.session_rollups WHERE ${REFRESHED_ROLLUP_ROWS} AND session_key != '')
GROUP BY session_key
ORDER BY first, session_key`;
}

/**
 * At most this many sessions a statement: their ids travel as a query parameter (the URL of an HTTP request to a
 * server, ~1 MiB at most; a session id is at most 256 bytes, contracts/identifiers.ts).
 */
export const SESSIONS_PER_STATEMENT = 1_000;

/** A rollup table a refresh writes, and the condition that selects the rows it recomputed. */
export interface RefreshedTable {
  table: string;
  rows: string;
}

/**
 * A rollup table with the statement that recomputes a refresh's rows and the one that rebuilds it all; neither for a
 * table a materialized view fills from another as that one is written (session_rollups_by_session).
 */
interface RollupTable extends RefreshedTable {
  refresh?: string;
  rebuild?: string;
  /** Summed from another rollup table (the hours from the minutes): recomputed once that table is done. */
  sumsRollups?: boolean;
  /** Kept per session, not per minute: a refresh recomputes it for its sessions (refreshSessions). */
  perSession?: boolean;
}

/**
 * After a refresh inserted its rows (version {version}): how many keys of each table's refreshed minutes, tenants
 * and services the recompute no longer produced — their newest row is older than the refresh. A group that vanished
 * from a minute (a re-evaluated request moved to another run, dataset, session or root-cause label) keeps
 * its last row otherwise, and the dashboards would still count it.
 *
 * A key's newest version is its rows' max(version) grouped by partition and sorting key: what FINAL within
 * partitions keeps of it (the tables are ReplacingMergeTree(version)), without FINAL's merge of the rows. One
 * result row per table (`rollup`, `stale`), the tables' counts read as a UNION: at one refreshed minute this took
 * 41 ms against 84 for a FINAL scalar subquery per table (3,000,000-value store, medians of 30 minutes).
 */
export function staleKeysSelect(database: string, tables: readonly SortedRefreshedTable[]): string {
  return tables
    .map(({ table, rows, sortingKey }) => {
      if (!/^[a-z_]+$/.test(table)) throw new Error(`not a rollup table name: ${table}`);
      return `SELECT '${table}' AS rollup, count() AS stale FROM (SELECT max(version) AS newest FROM ${database}.${quoteIdentifier(table)} WHERE ${rows} GROUP BY _partition_id, ${sortingKey}) WHERE newest < {version:UInt64}`;
    })
    .join("\nUNION ALL\n");
}

/** A refreshed table with its sorting key, as the engine gives it (system.tables.sorting_key). */
export interface SortedRefreshedTable extends RefreshedTable {
  sortingKey: string;
}

/**
 * Deletes a table's rows of the refreshed minutes, tenants and services older than the refresh: the stale keys, and
 * the versions the refresh replaced (FINAL reads neither; the next merge would drop the replaced ones anyway). A
 * lightweight DELETE, run only when staleKeysSelect found a stale key, which is rare: most refreshes delete nothing.
 */
export function staleRowsDelete(database: string, { table, rows }: RefreshedTable): string {
  return `DELETE FROM ${database}.${quoteIdentifier(table)} WHERE ${rows} AND version < {version:UInt64}`;
}

/** `minutes` ascending, as minuteRanges gives them. */
export function refreshParameters(minutes: readonly number[], tenants: readonly string[], services: readonly string[], version: number): Record<string, unknown> {
  const hours = [...new Set(minutes.map((minute) => Math.floor(minute / HOUR_MS) * HOUR_MS))];
  return {
    from: minutes[0]!,
    to: minutes[minutes.length - 1]! + MINUTE_MS,
    minutes: minutes.map((minute) => minute / 1000),
    hoursFrom: hours[0]!,
    hoursTo: hours[hours.length - 1]! + HOUR_MS,
    hours: hours.map((hour) => hour / 1000),
    tenants,
    services,
    version,
  };
}

/** Minutes further apart than this go to separate statements; closer ones share one (its time range reads the gap too). */
const GAP_IN_ONE_STATEMENT_MS = 60 * MINUTE_MS;
/** At most this many statements a refresh: minutes scattered over days (late traces) are read in a few wide ranges. */
const MOST_STATEMENTS = 16;

/** Dirty minutes grouped into time ranges, one statement each; each statement recomputes only its listed minutes. */
export function minuteRanges(minutes: readonly number[]): { minutes: number[] }[] {
  const sorted = [...minutes].sort((left, right) => left - right);
  const ranges: { minutes: number[] }[] = [];
  for (const minute of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && minute - last.minutes[last.minutes.length - 1]! <= GAP_IN_ONE_STATEMENT_MS) last.minutes.push(minute);
    else ranges.push({ minutes: [minute] });
  }
  while (ranges.length > MOST_STATEMENTS) {
    let closest = 0;
    for (let index = 1; index < ranges.length - 1; index += 1) {
      const gap = (index: number) => ranges[index + 1]!.minutes[0]! - ranges[index]!.minutes[ranges[index]!.minutes.length - 1]!;
      if (gap(index) < gap(closest)) closest = index;
    }
    ranges.splice(closest, 2, { minutes: [...ranges[closest]!.minutes, ...ranges[closest + 1]!.minutes] });
  }
  return ranges;
}

/**
 * How far before the newest request rollup refresh a catch-up looks for Case Results newer than their rollup: a
 * process that died left its unrefreshed writes after its own last refresh, and other processes refreshing since
 * (a shared server) run their catch-up every CATCH_UP_INTERVAL_MS while they write, well within this.
 */
export const CATCH_UP_LOOKBACK_MS = 24 * 60 * 60 * 1000;
/** A writing process catches up at most this often (the first write after it noted one triggers it). */
export const CATCH_UP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The minutes (epoch seconds), tenants and services of the Case Results inserted since {since:Int64} (epoch ms)
 * whose newest insert is at or after their newest request_rollups refresh began (its version), or that have no
 * request_rollups row: what a process that died before its refresh left behind (ClickHouseMetricRollups.catchUp).
 * The filter on inserted_at reads one column of the table (no index serves it), only the Case Results it keeps
 * are grouped, and only their keys' rollup rows are read (the IN set on request_rollups' sorting key). Measured on
 * chDB, 10,000,000 Case Results inserted over 60 days (5,259,200 rollup rows), nothing to catch up: 135–415 ms on
 * a shared, busy machine; grouping every Case Result and rollup row instead took ~0.7 s at 2,000,000. Minutes as
 * epoch seconds on both sides of the join.
 */
export function unrefreshedMinutesSelect(database: string): string {
  const recent = `${database}.case_results WHERE inserted_at >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')`;
  return `SELECT written.minute_seconds AS minute, written.tenant_id AS tenant_id, written.service_name AS service_name
FROM (SELECT tenant_id, service_name, toUnixTimestamp(toStartOfMinute(started_at)) AS minute_seconds, toUnixTimestamp64Milli(max(inserted_at)) AS newest_write
      FROM ${recent} GROUP BY tenant_id, service_name, minute_seconds) AS written
LEFT JOIN (SELECT tenant_id, service_name, toUnixTimestamp(minute) AS minute_seconds, max(version) AS refreshed
      FROM ${database}.request_rollups
      WHERE (tenant_id, service_name, minute) IN (SELECT tenant_id, service_name, toStartOfMinute(toDateTime(started_at, 'UTC')) FROM ${recent})
      GROUP BY tenant_id, service_name, minute_seconds) AS rolled
ON written.tenant_id = rolled.tenant_id AND written.service_name = rolled.service_name AND written.minute_seconds = rolled.minute_seconds
WHERE written.newest_write >= rolled.refreshed
SETTINGS join_use_nulls = 0`;
}

export class ClickHouseMetricRollups {
  readonly counters = { refreshes: 0, minutesRefreshed: 0, staleDeletes: 0, failures: 0, lastRefreshMs: 0, lastError: "", minutesCaughtUp: 0 };
  private readonly database: string;
  /** Minute start (ms) → tenant and service pairs written in it, as JSON [tenant, service]. */
  private dirty = new Map<number, Set<string>>();
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastStartedAt = Number.NEGATIVE_INFINITY;
  private closed = false;
  private sortingKeysRead: Promise<ReadonlyMap<string, string>> | null = null;
  /** When this process last caught up (catchUp), by the `now` clock; a writing process does again after CATCH_UP_INTERVAL_MS. */
  private lastCatchUpAt = Number.NEGATIVE_INFINITY;
  /** The catch-up a write started, which close() waits for. */
  private catchingUp: Promise<number> | null = null;

  constructor(
    private readonly connection: ClickHouseConnection,
    private readonly options: MetricRollupOptions = {},
  ) {
    this.database = quoteIdentifier(connection.database);
  }

  /** Called by a sink after a successful write: these requests' minutes need a refresh. */
  note(requests: Iterable<WrittenRequest>): void {
    for (const request of requests) {
      const started = Date.parse(request.startedAt);
      if (!Number.isFinite(started)) continue;
      const minute = Math.floor(started / MINUTE_MS) * MINUTE_MS;
      let groups = this.dirty.get(minute);
      if (!groups) this.dirty.set(minute, (groups = new Set()));
      groups.add(JSON.stringify([request.tenantId, request.serviceName]));
    }
    if (this.dirty.size > 0) this.schedule();
    // Another process writing the same store may have died before its refresh: a writing process looks once an hour.
    if (this.lastCatchUpAt !== Number.NEGATIVE_INFINITY && this.catchingUp === null && (this.options.now ?? Date.now)() - this.lastCatchUpAt >= CATCH_UP_INTERVAL_MS && !this.closed) {
      this.catchingUp = this.catchUp().finally(() => (this.catchingUp = null));
    }
  }

  /**
   * Refreshes the minutes whose Case Results are newer than their rollup (unrefreshedMinutesSelect): what a process
   * that died between a write and its refresh left. Returns how many minute × tenant × service groups it found;
   * never rejects (a failure is counted, and a failed refresh keeps its minutes for the next one).
   */
  async catchUp(): Promise<number> {
    if (this.options.requestRollups === false) return 0;
    this.lastCatchUpAt = (this.options.now ?? Date.now)();
    let found: { minute: string | number; tenant_id: string; service_name: string }[];
    try {
      const newest = await this.connection.client.query({ query: `SELECT toInt64(max(version)) AS newest FROM ${this.database}.request_rollups`, format: "JSONEachRow" });
      const [row] = await newest.json<{ newest: string | number }>();
      const since = Math.max(0, Number(row?.newest ?? 0) - CATCH_UP_LOOKBACK_MS);
      const result = await this.connection.client.query({ query: unrefreshedMinutesSelect(this.database), query_params: { since }, format: "JSONEachRow" });
      found = await result.json();
    } catch (error) {
      this.counters.failures += 1;
      this.counters.lastError = error instanceof Error ? error.message : String(error);
      return 0;
    }
    for (const row of found) {
      const minute = Number(row.minute) * 1000;
      let groups = this.dirty.get(minute);
      if (!groups) this.dirty.set(minute, (groups = new Set()));
      groups.add(JSON.stringify([row.tenant_id, row.service_name]));
    }
    this.counters.minutesCaughtUp += found.length;
    await this.refresh();
    return found.length;
  }

  /** Minutes noted and not refreshed yet. */
  pendingMinutes(): number {
    return this.dirty.size;
  }

  /** The configured least time between two refreshes, ms. */
  get refreshIntervalMs(): number {
    return this.options.refreshIntervalMs ?? DEFAULT_ROLLUP_REFRESH_MS;
  }

  private interval(): number {
    return Math.max(this.refreshIntervalMs, 5 * this.counters.lastRefreshMs);
  }

  private schedule(): void {
    if (this.timer !== null || this.closed) return;
    const wait = Math.max(0, this.lastStartedAt + this.interval() - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, wait);
    // A pending refresh never keeps a process alive: close() runs it.
    this.timer.unref();
  }

  /** Recomputes every noted minute now (tests and benchmarks call it to read rollups at once). Never rejects. */
  async refresh(): Promise<void> {
    while (this.running) await this.running;
    if (this.dirty.size === 0) return;
    const taken = this.dirty;
    this.dirty = new Map();
    this.lastStartedAt = Date.now();
    this.running = this.recompute(taken)
      .catch((error: unknown) => {
        this.counters.failures += 1;
        this.counters.lastError = error instanceof Error ? error.message : String(error);
        // Kept for the next refresh.
        for (const [minute, groups] of taken) {
          const current = this.dirty.get(minute);
          if (current) for (const group of groups) current.add(group);
          else this.dirty.set(minute, groups);
        }
      })
      .finally(() => {
        this.counters.lastRefreshMs = Date.now() - this.lastStartedAt;
        this.running = null;
        if (this.dirty.size > 0) this.schedule();
      });
    await this.running;
  }

  /**
   * The rollup tables this store has, each with the statement that recomputes a refresh's minutes, the one that
   * rebuilds it all and the rows a refresh recomputed. In the order they run: the hours after the minutes they sum.
   */
  private tables(): RollupTable[] {
    const database = this.database;
    const insert = (table: string, columns: readonly string[]) => `INSERT INTO ${database}.${table} (${columns.join(", ")}) `;
    const tables: RollupTable[] = [{ table: "metric_rollups", rows: REFRESHED_ROLLUP_ROWS, refresh: insert("metric_rollups", METRIC_ROLLUP_COLUMNS) + refreshSelect(database), rebuild: insert("metric_rollups", METRIC_ROLLUP_COLUMNS) + rollupSelect(database, "1") }];
    if (this.options.hourlyRollups !== false) {
      tables.push({ table: "metric_rollups_hourly", rows: REFRESHED_HOURS, sumsRollups: true, refresh: insert("metric_rollups_hourly", HOURLY_ROLLUP_COLUMNS) + hourlyRefreshSelect(database), rebuild: insert("metric_rollups_hourly", HOURLY_ROLLUP_COLUMNS) + hourlyRollupSelect(database, "1") });
    }
    if (this.options.requestRollups !== false) {
      const notJudgedCount = this.options.notJudgedCount !== false;
      const columns = requestRollupColumns(notJudgedCount);
      tables.push({ table: "request_rollups", rows: REFRESHED_ROLLUP_ROWS, refresh: insert("request_rollups", columns) + requestRefreshSelect(database, notJudgedCount), rebuild: insert("request_rollups", columns) + requestRollupSelect(database, "1", notJudgedCount) });
    }
    if (this.options.sessionAndRootCauseRollups !== false) {
      const eventCounts = this.options.sessionEventCounts !== false;
      const columns = SESSION_ROLLUP_COLUMNS.filter((column) => eventCounts || column !== "event_requests");
      tables.push({ table: "session_rollups", rows: REFRESHED_ROLLUP_ROWS, refresh: insert("session_rollups", columns) + sessionRefreshSelect(database, eventCounts), rebuild: insert("session_rollups", columns) + sessionRollupSelect(database, "1", eventCounts) });
      const failingRows = this.options.failingRows !== false;
      const rootCauseColumns = rootCauseRollupColumns(failingRows);
      tables.push({ table: "root_cause_rollups", rows: REFRESHED_ROLLUP_ROWS, refresh: insert("root_cause_rollups", rootCauseColumns) + rootCauseRefreshSelect(database, failingRows), rebuild: insert("root_cause_rollups", rootCauseColumns) + rootCauseRollupSelect(database, "1", "1", failingRows) });
    }
    if (this.options.abstentionRollups !== false) {
      tables.push({ table: "abstention_rollups", rows: REFRESHED_ROLLUP_ROWS, refresh: insert("abstention_rollups", ABSTENTION_ROLLUP_COLUMNS.split(", ")) + abstentionRefreshSelect(database), rebuild: insert("abstention_rollups", ABSTENTION_ROLLUP_COLUMNS.split(", ")) + abstentionRebuildSelect(database) });
    }
    if (this.options.stageRollups !== false) {
      tables.push({ table: "stage_rollups", rows: REFRESHED_ROLLUP_ROWS, refresh: insert("stage_rollups", STAGE_ROLLUP_COLUMNS) + stageRefreshSelect(database), rebuild: insert("stage_rollups", STAGE_ROLLUP_COLUMNS) + stageRollupSelect(database, "1") });
    }
    if (this.sessionSummaries()) {
      const eventCounts = this.options.sessionEventCounts !== false;
      const summaryColumns = SESSION_SUMMARY_COLUMNS.filter((column) => eventCounts || column !== "event_requests");
      // Kept per session, after the minutes' inserts (refreshSessions): a view fills the first as session_rollups is written.
      tables.push({ table: "session_rollups_by_session", rows: REFRESHED_SESSION_ROWS, perSession: true });
      tables.push({
        table: "session_summaries",
        rows: REFRESHED_SUMMARIES,
        perSession: true,
        // A share's sessions, without their minute rows the refresh found stale (newest version older than itself).
        refresh: insert("session_summaries", summaryColumns) + withStatementSettings(sessionSummarySelect(database, `session_key IN {sessions:Array(String)} AND NOT (${REFRESHED_ROLLUP_ROWS} AND version < {version:UInt64})`, eventCounts), FINAL_WITHIN_PARTITIONS),
        rebuild: insert("session_summaries", summaryColumns) + withStatementSettings(sessionSummarySelect(database, "1", eventCounts), FINAL_WITHIN_PARTITIONS),
      });
    }
    return tables;
  }

  private async recompute(minutes: Map<number, Set<string>>): Promise<void> {
    const version = (this.options.now ?? Date.now)();
    const tables = this.tables();
    for (const range of minuteRanges([...minutes.keys()])) {
      const pairs = range.minutes.flatMap((minute) => [...minutes.get(minute)!].map((group) => JSON.parse(group) as [string, string]));
      // Tenants and services apart (the sorting key's columns): a group of a tenant and a service that were not
      // written together is recomputed too, to the same rows, which costs a read and changes nothing.
      const tenants = new Set(pairs.map(([tenant]) => tenant));
      const services = new Set(pairs.map(([, service]) => service));
      if (this.options.sessionAndRootCauseRollups !== false) await this.addGroupsOfTheirRequests(range.minutes, tenants, services, version);
      const parameters = refreshParameters(range.minutes, [...tenants], [...services], version);
      // The hours sum the minutes as they stand once the minutes' stale keys are gone, so they come second.
      const minutesPhase = tables.filter((table) => !table.sumsRollups && !table.perSession);
      for (const phase of [minutesPhase, tables.filter((table) => table.sumsRollups)]) {
        if (phase.length === 0) continue;
        for (const { refresh } of phase) if (refresh !== undefined) await this.connection.client.command({ query: refresh, query_params: parameters });
        // Before session_rollups' stale rows are deleted: a session that lost a request in these minutes is among them.
        if (phase === minutesPhase) this.counters.staleDeletes += await this.refreshSessions(tables.filter((table) => table.perSession), parameters);
        // Keys the recompute no longer produced are deleted, so no dashboard counts them.
        this.counters.staleDeletes += await this.deleteStaleKeys(phase, parameters);
      }
      this.counters.minutesRefreshed += range.minutes.length;
    }
    this.counters.refreshes += 1;
  }

  /**
   * Adds to a range's `tenants` and `services` the groups holding another row of a request they hold
   * (groups-of-refreshed-requests.ts): the root-cause rollups count a request stored twice under one of them only.
   * Until none is found: a group added holds requests of its own, whose other rows may lie in yet another (rare; the
   * usual refresh finds nothing at the first read). Every table is recomputed over them, to the rows it had.
   */
  private async addGroupsOfTheirRequests(minutes: readonly number[], tenants: Set<string>, services: Set<string>, version: number): Promise<void> {
    for (;;) {
      const result = await this.connection.client.query({ query: groupsOfRefreshedRequestsSelect(this.database), query_params: refreshParameters(minutes, [...tenants], [...services], version), format: "JSONEachRow" });
      const found = await result.json<{ tenant_id: string; service_name: string }>();
      if (found.length === 0) return;
      for (const group of found) {
        tenants.add(group.tenant_id);
        services.add(group.service_name);
      }
    }
  }

  private sessionSummaries(): boolean {
    return this.options.sessionSummaries !== false && this.options.sessionAndRootCauseRollups !== false;
  }

  /**
   * Recomputes the summaries of the sessions with rows in a refresh's minutes (migration 0021), a share of them at a
   * time: writes their summaries from session_rollups_by_session without the rows the minutes' recompute no longer
   * produced, deletes the summaries it no longer produced, and only then deletes those minute rows and the stale
   * counts of requests without a session id (session_rollups' own go with the other minute tables', next) — a
   * refresh that fails half-way leaves the rows that tell the next one where the earlier summaries lie. Returns the
   * deletes run.
   */
  private async refreshSessions(tables: readonly RollupTable[], parameters: Record<string, unknown>): Promise<number> {
    const [bySession, summaries] = tables;
    if (bySession === undefined || summaries?.refresh === undefined) return 0;
    const result = await this.connection.client.query({ query: refreshedSessionsSelect(this.database), query_params: parameters, format: "JSONEachRow" });
    const sessions = await result.json<{ session_key: string; first: string | number; last: string | number }>();
    let deletes = 0;
    // In order of their first minute, so that a share's sessions lie close together and its summaries' read is narrow.
    // At least one share: the minutes' rows without a session id are checked for stale ones in every share.
    for (let start = 0; start === 0 || start < sessions.length; start += SESSIONS_PER_STATEMENT) {
      const share = sessions.slice(start, start + SESSIONS_PER_STATEMENT);
      const shareParameters = {
        ...parameters,
        sessions: share.map((session) => session.session_key),
        sessionsFrom: share.length === 0 ? 0 : Math.min(...share.map((session) => Number(session.first))),
        sessionsTo: share.length === 0 ? 0 : Math.max(...share.map((session) => Number(session.last))),
      };
      if (share.length > 0) {
        await this.connection.client.command({ query: summaries.refresh, query_params: shareParameters });
        deletes += await this.deleteStaleKeys([summaries], shareParameters);
      }
      deletes += await this.deleteStaleKeys([bySession], shareParameters);
    }
    return deletes;
  }

  /**
   * Counts, in one read for all `tables`, the keys of their `rows` whose newest version is older than {version}
   * (staleKeysSelect), and deletes those rows where there are some (staleRowsDelete). Returns the deletes run.
   */
  private async deleteStaleKeys(tables: readonly RefreshedTable[], parameters: Record<string, unknown>): Promise<number> {
    const sortingKeys = await this.sortingKeys();
    const sorted = tables.map((table) => ({ ...table, sortingKey: sortingKeys.get(table.table) ?? "" }));
    const missing = sorted.find((table) => table.sortingKey === "");
    if (missing) throw new Error(`the rollup table ${missing.table} has no sorting key in system.tables; run \`ragscope migrate\``);
    const result = await this.connection.client.query({ query: staleKeysSelect(this.database, sorted), query_params: parameters, format: "JSONEachRow" });
    const stale = new Map((await result.json<{ rollup: string; stale: string | number }>()).map((row) => [row.rollup, Number(row.stale)]));
    let deletes = 0;
    for (const table of tables) {
      if ((stale.get(table.table) ?? 0) === 0) continue;
      await this.connection.client.command({ query: staleRowsDelete(this.database, table), query_params: parameters });
      deletes += 1;
    }
    return deletes;
  }

  /** The rollup tables' sorting keys, read from the engine once (a migration that changes one runs before the store opens). */
  private async sortingKeys(): Promise<ReadonlyMap<string, string>> {
    if (this.sortingKeysRead === null) {
      const names = this.tables().map(({ table }) => table);
      this.sortingKeysRead = this.connection.client
        .query({ query: "SELECT name, sorting_key FROM system.tables WHERE database = {database:String} AND name IN {names:Array(String)}", query_params: { database: this.connection.database, names }, format: "JSONEachRow" })
        .then((result) => result.json<{ name: string; sorting_key: string }>())
        .then((rows) => new Map(rows.map((row) => [row.name, row.sorting_key])));
      // A failed read is tried again by the next refresh.
      this.sortingKeysRead.catch(() => (this.sortingKeysRead = null));
    }
    return this.sortingKeysRead;
  }

  /** Recomputes the rollup of every stored metric value and request (after a bulk load or a repair). */
  async rebuild(): Promise<void> {
    while (this.running) await this.running;
    const version = (this.options.now ?? Date.now)();
    for (const { table, rebuild } of this.tables()) {
      if (rebuild !== undefined) await this.connection.client.command({ query: rebuild, query_params: { version } });
      // Keys of rows no longer stored (the rebuild produced none): deleted, as a refresh deletes its minutes' stale keys.
      await this.deleteStaleKeys([{ table, rows: "1" }], { version });
    }
  }

  /** Stops the timer and refreshes what is pending. */
  async close(): Promise<void> {
    this.closed = true;
    await this.catchingUp;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.refresh();
  }
}
