/**
 * Dead letters (whole message bodies), quarantined results and the alert
 * history expire 400 days after they were written, as every other stored
 * row does (migration 0028, README "Retention"); the alert evaluator's
 * current state and pending rollup repairs never expire. The engine applies
 * a TTL when it merges (OPTIMIZE … FINAL forces that merge here). An upgrade
 * keeps what was stored and a TTL an operator had already added, run through
 * `ragscope migrate` as an operator runs it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openClickHouse, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { migrationsFolder, runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
/** Over 400 days before any day this test runs on: the time a message or an alert carried. */
const LONG_AGO = "2023-11-14 22:13:05.000";
const EXPIRING_TABLES = ["dead_letters", "quarantined_results", "alerts"];

/** One row of each table as the collector writes them (columns of migrations 0004–0011), `extra` added. */
async function insertRows(connection: ClickHouseConnection, suffix: string, extra: Record<string, unknown> = {}): Promise<void> {
  const rows: Record<string, Record<string, unknown>> = {
    dead_letters: { letter_id: `letter_${suffix}`, received_at: LONG_AGO, code: "undecodable", reason: "not OTLP", trace_id: "trace_1", content_type: "application/json", body_bytes: 2, body_base64: "e30=" },
    quarantined_results: { case_result_id: `cr_${suffix}`, trace_id: "trace_1", run_id: "run_1", case_id: "case_1", error: "bad value", payload: "{}", quarantined_at: LONG_AGO, version: 1 },
    alerts: { event_id: `event_${suffix}`, alert_id: "alert_1", rule_id: "rule_1", metric: "faithfulness", state: "firing", threshold: "< 0.8", statistic: "mean", value: 0.5, lower: 0.4, upper: 0.6, confidence: 0.95, sample_count: 30, window_spec: "1h", trace_ids: ["trace_1"], at: LONG_AGO, fired_at: LONG_AGO, message: "m", payload: "{}", version: 1 },
  };
  for (const [table, row] of Object.entries(rows)) {
    await connection.client.insert({ table: `${connection.database}.${table}`, values: [{ ...row, ...extra }], format: "JSONEachRow" });
  }
  await connection.client.insert({ table: `${connection.database}.alert_state`, values: [{ rule_id: `rule_${suffix}`, state: "firing", alert_id: "alert_1", fired_at: LONG_AGO, updated_at: LONG_AGO }], format: "JSONEachRow" });
}

async function ttlOf(connection: ClickHouseConnection, table: string): Promise<string | null> {
  const [row] = await queryRows<{ engine_full: string }>(connection, "SELECT engine_full FROM system.tables WHERE database = {database:String} AND name = {table:String}", { database: connection.database, table });
  return /\bTTL (.+?)(?= SETTINGS|$)/.exec(row!.engine_full)?.[1] ?? null;
}

async function idsAfterMerge(connection: ClickHouseConnection, table: string, idColumn: string): Promise<string[]> {
  // Merges apply the TTL: what a background merge would drop, this one drops; it also collapses
  // the replacing tables' versions, so no FINAL (dead_letters is a plain MergeTree).
  await connection.client.command({ query: `OPTIMIZE TABLE ${connection.database}.${table} FINAL` });
  const rows = await queryRows<{ id: string }>(connection, `SELECT ${idColumn} AS id FROM {{database}}.${table} ORDER BY id`);
  return rows.map((row) => row.id);
}

describe("retention of dead letters, quarantined results and alerts", () => {
  let store: TemporaryStore;
  before(async () => {
    store = await temporaryStore();
  });
  after(async () => {
    await store.cleanup();
  });

  test("a row written over 400 days ago is dropped, one written now is kept, whatever time it carries; alert state never expires", async () => {
    await insertRows(store.connection, "fresh");
    // 401 days before now: past the 400-day retention.
    const [old] = await queryRows<{ written: string }>(store.connection, "SELECT toString(now() - INTERVAL 401 DAY) AS written");
    await insertRows(store.connection, "old", { written_at: old!.written });
    assert.deepEqual(await idsAfterMerge(store.connection, "dead_letters", "letter_id"), ["letter_fresh"]);
    assert.deepEqual(await idsAfterMerge(store.connection, "quarantined_results", "case_result_id"), ["cr_fresh"]);
    assert.deepEqual(await idsAfterMerge(store.connection, "alerts", "event_id"), ["event_fresh"]);
    // A rule firing since long ago keeps its state: no TTL on alert_state.
    assert.deepEqual(await idsAfterMerge(store.connection, "alert_state", "rule_id"), ["rule_fresh", "rule_old"]);
    for (const table of EXPIRING_TABLES) assert.equal(await ttlOf(store.connection, table), "written_at + toIntervalDay(400)", table);
    assert.equal(await ttlOf(store.connection, "alert_state"), null);
    assert.equal(await ttlOf(store.connection, "rollup_repairs"), null);
  });
});

describe("upgrading to retention of dead letters, quarantined results and alerts (migration 0028)", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-letter-retention-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("keeps the stored rows, counts them from the upgrade, and keeps a TTL an operator had added", async () => {
    const previous = path.join(folder, "release-0027");
    const dataDir = path.join(folder, "store");
    await cp(migrationsFolder, previous, { recursive: true, filter: (source) => !/\/\d{4}_/.test(source) || Number(path.basename(source).slice(0, 4)) <= 27 });
    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      await runMigrations(connection, previous);
      assert.equal(await ttlOf(connection, "dead_letters"), null, "before 0028 dead letters were kept forever");
      // Rows carrying times over 400 days old, stored by the previous release.
      await insertRows(connection, "stored");
      // An operator who had limited the alert history already.
      await connection.client.command({ query: "ALTER TABLE ragscope.alerts MODIFY TTL toDateTime(at) + INTERVAL 50 YEAR" });
    } finally {
      await connection.close();
    }

    const run = spawnSync(process.execPath, [ragscope, "migrate", "--data-dir", dataDir], { encoding: "utf8", cwd: folder, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_DATA_DIR: "", RAGSCOPE_CONFIG: "" } });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /applied 0028_retention_of_letters_quarantine_and_alerts/);
    assert.match(run.stdout, /0028_retention_of_letters_quarantine_and_alerts: kept the retention of alerts as an operator set it \(TTL toDateTime\(at\) \+ toIntervalYear\(50\)\)/);

    const upgraded = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      assert.equal(await ttlOf(upgraded, "dead_letters"), "written_at + toIntervalDay(400)");
      assert.equal(await ttlOf(upgraded, "quarantined_results"), "written_at + toIntervalDay(400)");
      assert.equal(await ttlOf(upgraded, "alerts"), "toDateTime(at) + toIntervalYear(50)", "an operator's TTL stays");
      assert.equal(await ttlOf(upgraded, "alert_state"), null);
      assert.equal(await ttlOf(upgraded, "rollup_repairs"), null);
      // The stored rows carry 2023 times but count from the upgrade: a merge keeps them.
      assert.deepEqual(await idsAfterMerge(upgraded, "dead_letters", "letter_id"), ["letter_stored"]);
      assert.deepEqual(await idsAfterMerge(upgraded, "quarantined_results", "case_result_id"), ["cr_stored"]);
      assert.deepEqual(await idsAfterMerge(upgraded, "alerts", "event_id"), ["event_stored"]);
      assert.deepEqual(await idsAfterMerge(upgraded, "alert_state", "rule_id"), ["rule_stored"]);
    } finally {
      await upgraded.close();
    }
  });
});
