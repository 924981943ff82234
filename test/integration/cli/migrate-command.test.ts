/**
 * `ragscope migrate` as an operator runs it (bin/ragscope.js as a subprocess)
 * on an embedded store made by the previous release (migrations 0001–0006)
 * with a Case Result in it: the new migrations are applied and listed, the
 * result is still there with the same values, the replaced tables are kept
 * and named, and a second run applies nothing. A new store is created at once
 * from the schema the migrations leave, and the command says so in one line.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { caseResultIdFor } from "../../../contracts/ids.js";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { migrationsFolder, runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { queryRows } from "../../support/temporary-store.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

function run(args: string[], cwd: string) {
  const child = spawnSync(process.execPath, [ragscope, ...args], { encoding: "utf8", cwd, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_DATA_DIR: "", RAGSCOPE_CONFIG: "" } });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

const embedded = (dataPath: string) => ({ url: null, username: "default", password: "", database: "ragscope", dataPath });

describe("ragscope migrate", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-migrate-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("upgrades a store of the previous release in place and keeps its data", async () => {
    const previous = path.join(folder, "previous-migrations");
    const dataDir = path.join(folder, "store");
    await cp(migrationsFolder, previous, { recursive: true, filter: (source) => !/\/\d{4}_/.test(source) || Number(path.basename(source).slice(0, 4)) <= 6 });
    const caseResultId = caseResultIdFor({ traceId: "0".repeat(31) + "1", runId: "run-1", caseId: "case-1", caseVersion: "v1" });
    const connection = await openClickHouse(embedded(dataDir));
    try {
      assert.deepEqual((await runMigrations(connection, previous)).applied.map((name) => name.slice(0, 4)), ["0001", "0002", "0003", "0004", "0005", "0006"]);
      await connection.client.insert({
        table: "ragscope.metric_values",
        values: [{ metric: "recall_at_5", case_result_id: caseResultId, evaluator_id: "retrieval.ranking", evaluator_version: "1", evaluation_result_id: "e1", value: 0.75, outcome: "passed", run_id: "run-1", case_id: "case-1", case_version: "v1", dataset_id: "d", trace_id: "t", service_name: "svc", tenant_id: "acme", route: "/", ts: "2026-11-30 10:00:00.000", evaluated_at: "2026-11-30 10:00:01.000", version: 7 }],
        format: "JSONEachRow",
      });
    } finally {
      await connection.close();
    }

    const first = run(["migrate", "--data-dir", dataDir], folder);
    assert.equal(first.status, 0, first.stderr);
    const newMigrations = (await readdir(migrationsFolder)).filter((file) => /^\d{4}_/.test(file) && Number(file.slice(0, 4)) > 6).map((file) => file.replace(/\.sql$/, ""));
    assert.ok(newMigrations.length > 0);
    for (const name of newMigrations) assert.match(first.stdout, new RegExp(`applied ${name}`));
    assert.match(first.stdout, /tables kept from before an upgrade .*metric_values_before_0007/);

    const again = run(["migrate", "--data-dir", dataDir], folder);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /the schema is up to date, no migration applied/);

    const reopened = await openClickHouse(embedded(dataDir));
    try {
      const rows = await queryRows<{ value: number; version: number; partition: string }>(reopened, "SELECT value, version, _partition_id AS partition FROM ragscope.metric_values FINAL");
      assert.deepEqual(rows, [{ value: 0.75, version: 7, partition: "202611" }]);
    } finally {
      await reopened.close();
    }
  });

  test("a new embedded store: created at once with the migrations' schema, said in one line, and a second run applies nothing", async () => {
    const dataDir = path.join(folder, "new");
    const migrations = (await readdir(migrationsFolder)).filter((file) => /^\d{4}_/.test(file)).sort().map((file) => file.replace(/\.sql$/, ""));
    const first = run(["migrate", "--data-dir", dataDir], folder);
    assert.equal(first.status, 0, first.stderr);
    assert.equal(
      first.stdout.trim(),
      `embedded ClickHouse engine (chDB) in ${dataDir}, database ragscope: created a new store with the schema of the ${migrations.length} migrations ${migrations[0]} to ${migrations.at(-1)}, each recorded as applied`,
    );
    const again = run(["migrate", "--data-dir", dataDir], folder);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /the schema is up to date, no migration applied/);
  });

  test("a store it cannot open is an error with exit 2, not a crash", () => {
    const result = run(["migrate", "--clickhouse-url", "http://127.0.0.1:9"], folder);
    assert.equal(result.status, 2, result.stdout + result.stderr);
    assert.match(result.stderr, /migrate/);
  });
});
