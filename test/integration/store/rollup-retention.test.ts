/**
 * The rollups' retention counts from when a row was written, as the raw
 * rows' does (migration 0020). A request replayed with a start three years
 * old is kept raw; its rollup rows must be kept too, or every rollup-read
 * panel shows nothing for it. The engine applies a TTL when it merges
 * (OPTIMIZE … FINAL forces that merge here). An upgrade keeps each table's
 * retention as an operator set it (store/clickhouse/kept-retention.ts), run
 * through `ragscope migrate` as an operator runs it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { migrationsFolder, runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { seedExample } from "../../support/case-results.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const ROLLUP_TABLES = ["metric_rollups", "metric_rollups_hourly", "request_rollups", "session_rollups", "root_cause_rollups", "abstention_rollups", "stage_rollups"];
/** Over 400 days before any day this test runs on. */
const LONG_AGO = "2023-11-14T22:13:05.000Z";

async function engineOf(connection: TemporaryStore["connection"], table: string): Promise<string> {
  const [row] = await queryRows<{ engine_full: string }>(connection, "SELECT engine_full FROM system.tables WHERE database = {database:String} AND name = {table:String}", { database: connection.database, table });
  return row!.engine_full;
}

describe("rollup retention", () => {
  let store: TemporaryStore;
  before(async () => {
    store = await temporaryStore();
  });
  after(async () => {
    await store.cleanup();
  });

  test("a request replayed with a start three years old keeps its rollup rows, as it keeps its raw rows", async () => {
    const rollups = new ClickHouseMetricRollups(store.connection);
    const sink = new ClickHouseSink(store.connection, { rollups, datasetOf: () => "ds" });
    const { caseResult, evalCase } = seedExample();
    const evaluation = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: "cr_long_ago", trace_id: "trace_long_ago", started_at: LONG_AGO }, evalCase, "2023-11-14T22:14:00.000Z");
    (evaluation.caseResult.rag_observation as unknown as { stage_timings: unknown[] }).stage_timings = [{ stage: "retrieve", span_name: "rag.retrieve", duration_ms: 41, status: "ok" }];
    const written = await sink.write([evaluation]);
    assert.ok(written.ok, written.ok ? "" : written.error.message);
    await rollups.refresh();
    assert.equal(rollups.counters.failures, 0, rollups.counters.lastError);
    // Merges apply the TTL: what a background merge would drop, this one drops.
    for (const table of [...ROLLUP_TABLES, "case_results", "metric_values"]) await store.connection.client.command({ query: `OPTIMIZE TABLE ${store.connection.database}.${table} FINAL` });
    const count = async (table: string) => Number((await queryRows<{ rows: string }>(store.connection, `SELECT count() AS rows FROM {{database}}.${table} FINAL`))[0]!.rows);
    assert.equal(await count("case_results"), 1, "the raw row is kept");
    for (const table of ["metric_rollups", "metric_rollups_hourly", "request_rollups", "session_rollups", "stage_rollups"]) assert.ok((await count(table)) > 0, `${table} keeps the request's rollup rows`);
    const [requests] = await queryRows<{ requests: string }>(store.connection, "SELECT sum(all_requests) AS requests FROM {{database}}.request_rollups FINAL WHERE minute = toStartOfMinute(parseDateTimeBestEffort({started:String}))", { started: LONG_AGO });
    assert.equal(Number(requests!.requests), 1);
    for (const table of ROLLUP_TABLES) assert.match(await engineOf(store.connection, table), /\bTTL written_at \+ toIntervalDay\(400\)/, table);
  });
});

describe("upgrading to rollup retention from write time (migration 0020)", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-rollup-retention-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("keeps each table's retention: the default 400 days, an operator's 90 days and 6 months, an operator's removed TTL", async () => {
    const previous = path.join(folder, "release-0019");
    const dataDir = path.join(folder, "store");
    await cp(migrationsFolder, previous, { recursive: true, filter: (source) => !/\/\d{4}_/.test(source) || Number(path.basename(source).slice(0, 4)) <= 19 });
    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      assert.equal((await runMigrations(connection, previous)).applied.length, 18);
      // What README "Retention" told operators to do before this release.
      await connection.client.command({ query: "ALTER TABLE ragscope.session_rollups MODIFY TTL minute + INTERVAL 90 DAY" });
      await connection.client.command({ query: "ALTER TABLE ragscope.metric_rollups_hourly MODIFY TTL hour + INTERVAL 6 MONTH" });
      await connection.client.command({ query: "ALTER TABLE ragscope.root_cause_rollups REMOVE TTL" });
    } finally {
      await connection.close();
    }

    const run = spawnSync(process.execPath, [ragscope, "migrate", "--data-dir", dataDir], { encoding: "utf8", cwd: folder, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_DATA_DIR: "", RAGSCOPE_CONFIG: "" } });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /applied 0020_rollup_retention_from_write/);
    assert.match(run.stdout, /0020_rollup_retention_from_write: kept the retention of root_cause_rollups as it is \(no TTL: kept forever\)/);

    const upgraded = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const ttl = async (table: string) => /\bTTL (.+?)(?= SETTINGS|$)/.exec(await engineOf(upgraded, table))?.[1] ?? null;
      assert.equal(await ttl("metric_rollups"), "written_at + toIntervalDay(400)");
      assert.equal(await ttl("request_rollups"), "written_at + toIntervalDay(400)");
      assert.equal(await ttl("abstention_rollups"), "written_at + toIntervalDay(400)");
      assert.equal(await ttl("stage_rollups"), "written_at + toIntervalDay(400)");
      assert.equal(await ttl("session_rollups"), "written_at + toIntervalDay(90)", "an operator's 90 days stay 90 days");
      // The session summaries and minutes sorted by session (migration 0021) keep what session_rollups keeps.
      assert.equal(await ttl("session_rollups_by_session"), "written_at + toIntervalDay(90)");
      assert.equal(await ttl("session_summaries"), "written_at + toIntervalDay(90)");
      assert.equal(await ttl("metric_rollups_hourly"), "written_at + toIntervalMonth(6)");
      assert.equal(await ttl("root_cause_rollups"), null, "a removed TTL stays removed");
      assert.equal(await ttl("case_results"), "toDateTime(inserted_at) + toIntervalDay(400)", "the raw rows are not touched");
    } finally {
      await upgraded.close();
    }
  });
});
