/**
 * Grows a dashboard benchmark store by copies of the requests the sink wrote:
 * the target size (300,000,000 metric values) takes ~5 CPU hours to write
 * through the sink on a 2-core machine, its copies ~1/20 of that.
 *
 * Copy k of a request is the same request with ids of its own (`~<tag>k`
 * after each id, its session and user ids too, so sessions and users grow
 * with the traffic; the tag is drawn per growth, so growing a grown store
 * again never makes an id it already holds — FINAL would collapse the two), started k × 200 ms later (within the ~20 s between two of the
 * sink's requests at the 3,000,000-value size), in the same tenant and
 * service. Each copy is one INSERT … SELECT per table (trace_list and
 * trace_list_metrics follow by the store's materialized views), written in blocks of
 * 100,000 rows — parts the engine merges in the background, as it merges
 * the collector's batches — not one bulk insert. The rollups are then
 * recomputed day by day through the store's own refresh, as the collector
 * refreshes the minutes it wrote.
 */
import { randomBytes } from "node:crypto";
import type { ClickHouseConnection } from "../../store/clickhouse/clickhouse-connection.js";
import type { ClickHouseStore } from "../../store/clickhouse/clickhouse-store.js";
import { queryRows } from "../support/temporary-store.js";

const SHIFT_MS = 200;

/** Per table: the columns a copy writes, each as written for copy {copy:UInt32} (materialized columns are left to the engine). */
const COPIED: Record<string, Record<string, string>> = {
  case_results: {
    case_result_id: "concat(case_result_id, '~', {tag:String}, toString({copy:UInt32}))",
    trace_id: "concat(trace_id, '~', {tag:String}, toString({copy:UInt32}))",
    started_at: "addMilliseconds(started_at, {copy:UInt32} * {shift:UInt32})",
    completed_at: "addMilliseconds(completed_at, {copy:UInt32} * {shift:UInt32})",
    payload: `replaceRegexpAll(payload, '"(session_id|user_id)":"([^"]+)"', concat('"\\\\1":"\\\\2~', {tag:String}, toString({copy:UInt32}), '"'))`,
  },
  evaluation_results: {
    evaluation_result_id: "concat(evaluation_result_id, '~', {tag:String}, toString({copy:UInt32}))",
    case_result_id: "concat(case_result_id, '~', {tag:String}, toString({copy:UInt32}))",
    trace_id: "concat(trace_id, '~', {tag:String}, toString({copy:UInt32}))",
    started_at: "addMilliseconds(started_at, {copy:UInt32} * {shift:UInt32})",
  },
  metric_values: {
    evaluation_result_id: "concat(evaluation_result_id, '~', {tag:String}, toString({copy:UInt32}))",
    case_result_id: "concat(case_result_id, '~', {tag:String}, toString({copy:UInt32}))",
    trace_id: "concat(trace_id, '~', {tag:String}, toString({copy:UInt32}))",
    ts: "addMilliseconds(ts, {copy:UInt32} * {shift:UInt32})",
  },
};

async function writtenColumns(connection: ClickHouseConnection, table: string): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    connection,
    "SELECT name FROM system.columns WHERE database = {database:String} AND table = {table:String} AND default_kind NOT IN ('MATERIALIZED', 'ALIAS') AND name != 'inserted_at' ORDER BY position",
    { database: connection.database, table },
  );
  return rows.map((row) => row.name);
}

/**
 * Adds `copies` copies of every stored request to the store, then recomputes its rollups: day by day through the
 * collector's refresh (the default), or `rebuild` in one pass per rollup table (ClickHouseMetricRollups.rebuild,
 * what an operator runs after a bulk load; the same rows, ~2.4× less time at 3,000,000 values, fewer and larger
 * rollup parts at first). Returns the seconds each step took.
 */
export async function growDashboardStore(store: ClickHouseStore, copies: number, log: (line: string) => void, rollups: "refresh" | "rebuild" = "refresh"): Promise<{ copySeconds: number; refreshSeconds: number }> {
  const { connection } = store;
  const database = connection.database;
  const started = performance.now();
  const tables = Object.keys(COPIED);
  const tag = randomBytes(3).toString("hex");
  // The requests as written, frozen: every copy is made from them, not from earlier copies.
  for (const table of tables) {
    await connection.client.command({ query: `DROP TABLE IF EXISTS ${database}.grow_seed_${table}` });
    await connection.client.command({ query: `CREATE TABLE ${database}.grow_seed_${table} ENGINE = MergeTree ORDER BY tuple() AS SELECT * FROM ${database}.${table} FINAL` });
  }
  const inserts = new Map<string, string>();
  for (const table of tables) {
    const columns = await writtenColumns(connection, table);
    const select = columns.map((column) => COPIED[table]![column] ?? column).join(", ");
    inserts.set(table, `INSERT INTO ${database}.${table} (${columns.join(", ")}) SELECT ${select} FROM ${database}.grow_seed_${table}`);
  }
  for (let copy = 1; copy <= copies; copy += 1) {
    for (const table of tables) {
      await connection.client.command({
        query: inserts.get(table)!,
        query_params: { copy, shift: SHIFT_MS, tag },
        clickhouse_settings: { max_insert_block_size: "100000", min_insert_block_size_rows: "100000" },
      });
    }
    log(`dashboard-scale: ${copy} of ${copies} copies written (${Math.round((performance.now() - started) / 1000)} s)`);
  }
  for (const table of tables) await connection.client.command({ query: `DROP TABLE ${database}.grow_seed_${table}` });
  const copied = performance.now();
  if (rollups === "rebuild") {
    await store.rollups.rebuild();
    log(`dashboard-scale: rollups rebuilt (${Math.round((performance.now() - copied) / 1000)} s)`);
    return { copySeconds: (copied - started) / 1000, refreshSeconds: (performance.now() - copied) / 1000 };
  }
  // The rollups of every minute the copies wrote to, a day at a time, through the collector's own refresh.
  const pairs = await queryRows<{ day: string; tenant_id: string; service_name: string }>(
    connection,
    `SELECT DISTINCT toString(toDate(started_at)) AS day, tenant_id, service_name FROM ${database}.case_results ORDER BY day`,
  );
  for (const day of [...new Set(pairs.map((pair) => pair.day))]) {
    const dayStart = Date.parse(`${day}T00:00:00Z`);
    const dayPairs = pairs.filter((entry) => entry.day === day);
    const requests = [];
    for (let minute = 0; minute < 1_440; minute += 1) {
      for (const pair of dayPairs) requests.push({ startedAt: new Date(dayStart + minute * 60_000).toISOString(), tenantId: pair.tenant_id, serviceName: pair.service_name });
    }
    store.rollups.note(requests);
    await store.rollups.refresh();
    log(`dashboard-scale: rollups of ${day} recomputed (${Math.round((performance.now() - copied) / 1000)} s)`);
  }
  return { copySeconds: (copied - started) / 1000, refreshSeconds: (performance.now() - copied) / 1000 };
}
