/**
 * `ragscope migrate` (bin/ragscope.js as a subprocess) on a store whose copy-and-swap migration 0035 a killed process
 * left half done. Its statements are not idempotent: stopped after its RENAME and before it was recorded, every later
 * start failed with "Table ragscope.trace_spans_before_0035 already exists" (exit 2, the store never opened again);
 * stopped mid-copy, the copy ran again over the rows already copied, and every one of them was stored twice. The
 * store is made by this release's migrations up to 0034 with raw spans of three requests in it, and the
 * interruption by running part of 0035's own statements on it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openClickHouse, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { migrationsFolder, runMigrations, splitStatements } from "../../../store/clickhouse/run-migrations.js";
import { queryRows } from "../../support/temporary-store.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const embedded = (dataPath: string) => ({ url: null, username: "default", password: "", database: "ragscope", dataPath });

function migrate(dataDir: string, cwd: string) {
  const child = spawnSync(process.execPath, [ragscope, "migrate", "--data-dir", dataDir], { encoding: "utf8", cwd, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_DATA_DIR: "", RAGSCOPE_CONFIG: "" } });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

const REQUESTS = ["a", "b", "c"].map((name, index) => ({
  case_result_id: `cr_${name}`,
  trace_id: `${index}`.repeat(32),
  tenant_id: "acme",
  service_name: "svc",
  started_at: `2026-11-0${index + 1} 10:00:00.000`,
  span_count: 3,
  stored_span_count: 3,
  truncated_values: 0,
  spans: `[{"name":"rag.request ${name}"}]`,
  version: 1,
}));

/** A store of migrations 0001–0034 holding three requests' raw spans, and 0035's statements. */
async function storeBefore0035(folder: string, name: string): Promise<{ dataDir: string; statements: string[] }> {
  const previous = path.join(folder, `migrations-${name}`);
  await cp(migrationsFolder, previous, { recursive: true, filter: (source) => !/\/\d{4}_/.test(source) || Number(path.basename(source).slice(0, 4)) <= 34 });
  const dataDir = path.join(folder, name);
  const connection = await openClickHouse(embedded(dataDir));
  try {
    await runMigrations(connection, previous, { newStoreSchema: false });
    await connection.client.insert({ table: "ragscope.trace_spans", values: REQUESTS, format: "JSONEachRow" });
  } finally {
    await connection.close();
  }
  const sql = await readFile(path.join(migrationsFolder, "0035_raw_spans_per_request.sql"), "utf8");
  return { dataDir, statements: splitStatements(sql).map((statement) => statement.replaceAll("{{database}}", "`ragscope`").replaceAll("{{retention_of:trace_spans}}", "INTERVAL 400 DAY")) };
}

async function withStore<T>(dataDir: string, use: (connection: ClickHouseConnection) => Promise<T>): Promise<T> {
  const connection = await openClickHouse(embedded(dataDir));
  try {
    return await use(connection);
  } finally {
    await connection.close();
  }
}

/** Every stored row of trace_spans (no FINAL: a row copied twice shows), by request. */
const storedRows = (connection: ClickHouseConnection) => queryRows<{ case_result_id: string }>(connection, "SELECT case_result_id FROM ragscope.trace_spans ORDER BY case_result_id");

describe("ragscope migrate after a copy-and-swap migration was cut off", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-migrate-swap-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("stopped after the swap, before 0035 was recorded: the next migrate records it and the store opens, its rows as they were", async () => {
    const { dataDir, statements } = await storeBefore0035(folder, "swapped");
    await withStore(dataDir, async (connection) => {
      for (const statement of statements) await connection.client.command({ query: statement });
    });
    const result = migrate(dataDir, folder);
    assert.equal(result.status, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /applied 0035_raw_spans_per_request/);
    assert.match(result.stdout, /0035_raw_spans_per_request: its tables had been swapped by a process stopped before it recorded the migration; recorded now/);
    await withStore(dataDir, async (connection) => {
      assert.deepEqual((await storedRows(connection)).map((row) => row.case_result_id), ["cr_a", "cr_b", "cr_c"]);
      const key = await queryRows<{ sorting_key: string }>(connection, "SELECT sorting_key FROM system.tables WHERE database = 'ragscope' AND name = 'trace_spans'");
      assert.match(key[0]!.sorting_key, /^tenant_id, service_name/);
    });
    assert.match(migrate(dataDir, folder).stdout, /the schema is up to date, no migration applied/);
  });

  test("stopped mid-copy: the copy starts again, and each request's spans are stored once", async () => {
    const { dataDir, statements } = await storeBefore0035(folder, "mid-copy");
    await withStore(dataDir, async (connection) => {
      // The staged table, and the first request copied into it before the process was killed.
      await connection.client.command({ query: statements[0]! });
      await connection.client.insert({ table: "ragscope.trace_spans_0035", values: [REQUESTS[0]!], format: "JSONEachRow" });
    });
    const result = migrate(dataDir, folder);
    assert.equal(result.status, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /0035_raw_spans_per_request: copied again from the start, a copy cut short by a stopped process dropped \(trace_spans_0035\)/);
    await withStore(dataDir, async (connection) => {
      assert.deepEqual((await storedRows(connection)).map((row) => row.case_result_id), ["cr_a", "cr_b", "cr_c"]);
    });
  });
});
