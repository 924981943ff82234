/**
 * A retention past 2106 (store/clickhouse/retention-limit.ts): ClickHouse's DateTime ends on 2106-02-07, a
 * TTL past it wraps around to the 1970s and the engine drops every row at the next merge. The engine itself
 * is the reference for where the limit lies (a row kept at the longest retention, dropped one day past it);
 * `ragscope migrate` and `ragscope serve` (bin/ragscope.js as subprocesses) refuse a store whose retention
 * passes it, name the table, the longest retention and the fix, and start once the fix is applied.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { maximumRetentionDays, retentionsPastLimit } from "../../../store/clickhouse/retention-limit.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

function run(args: string[], cwd: string) {
  // serve would run until stopped had it accepted the store: the timeout ends it (status null), which fails the test.
  const child = spawnSync(process.execPath, [ragscope, ...args], { encoding: "utf8", cwd, timeout: 90_000, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_DATA_DIR: "", RAGSCOPE_CONFIG: "" } });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

const embedded = (dataPath: string) => ({ url: null, username: "default", password: "", database: "ragscope", dataPath });

describe("the longest retention, by the engine", () => {
  let store: TemporaryStore;
  before(async () => {
    store = await temporaryStore({ migrate: false });
  });
  after(async () => {
    await store.cleanup();
  });

  test("a row written at T with the longest retention for T is kept by a merge; one day more wraps and drops it", async () => {
    // One fixed write time for the rows and the limit, whole seconds (DateTime), so the day boundary cannot fall between them.
    const written = new Date(Math.floor(Date.now() / 1000) * 1000);
    const longest = maximumRetentionDays(written);
    const writtenText = written.toISOString().slice(0, 19).replace("T", " ");
    const { database } = store.connection;
    const outcomes: Record<string, { kept: boolean; flagged: boolean }> = {};
    for (const [name, interval] of [["at_longest", `INTERVAL ${longest} DAY`], ["one_day_more", `INTERVAL ${longest + 1} DAY`], ["a_century", "INTERVAL 100 YEAR"], ["fifty_years", "INTERVAL 50 YEAR"]] as const) {
      await store.connection.client.command({ query: `CREATE TABLE ${database}.${name} (written_at DateTime('UTC'), id UInt8) ENGINE = MergeTree ORDER BY id TTL written_at + ${interval}` });
      await store.connection.client.command({ query: `INSERT INTO ${database}.${name} VALUES ('${writtenText}', 1)` });
      await store.connection.client.command({ query: `OPTIMIZE TABLE ${database}.${name} FINAL` });
      const [count] = await queryRows<{ rows: string | number }>(store.connection, `SELECT count() AS rows FROM ${database}.${name}`);
      const [engine] = await queryRows<{ engine_full: string }>(store.connection, "SELECT engine_full FROM system.tables WHERE database = {database:String} AND name = {name:String}", { database, name });
      outcomes[name] = { kept: Number(count!.rows) === 1, flagged: retentionsPastLimit(name, engine!.engine_full, written).length > 0 };
    }
    // What the engine does is the reference; the check must flag exactly the tables whose rows it dropped.
    assert.deepEqual(outcomes, {
      at_longest: { kept: true, flagged: false },
      one_day_more: { kept: false, flagged: true },
      a_century: { kept: false, flagged: true },
      fifty_years: { kept: true, flagged: false },
    });
  });
});

describe("ragscope migrate and serve on a store whose retention passes 2106", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-retention-limit-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("refused with exit 2, naming the table, the longest retention and the fix; the fix it names lets them start", async () => {
    const dataDir = path.join(folder, "store");
    const connection = await openClickHouse(embedded(dataDir));
    try {
      await runMigrations(connection);
      // "Keep the session rollups a century", as README "Retention" shows how to change a retention.
      await connection.client.command({ query: "ALTER TABLE ragscope.session_rollups MODIFY TTL written_at + INTERVAL 36500 DAY" });
    } finally {
      await connection.close();
    }

    const migrate = run(["migrate", "--data-dir", dataDir], folder);
    assert.equal(migrate.status, 2, migrate.stdout + migrate.stderr);
    const said = /ragscope migrate: the retention of ragscope\.session_rollups in .* \(TTL written_at \+ toIntervalDay\(36500\): 36500 days\) ends after 2106-02-07, .*every row would expire as soon as it is stored; the longest retention is (\d+) days from today\. Set it with (ALTER TABLE ragscope\.session_rollups MODIFY TTL written_at \+ INTERVAL \d+ DAY) \(or less\), or keep the rows forever with ALTER TABLE ragscope\.session_rollups REMOVE TTL/.exec(migrate.stderr);
    assert.ok(said !== null, migrate.stderr);
    assert.doesNotMatch(migrate.stderr, /unexpected error/);
    assert.doesNotMatch(migrate.stderr, /session_rollups_by_session|metric_rollups/, "only the table past the limit is named");

    const serve = run(["serve", "--data-dir", dataDir, "--port", "0"], folder);
    assert.equal(serve.status, 2, `serve refused the store (null: it ran until the timeout):\n${serve.stdout}${serve.stderr}`);
    assert.match(serve.stderr, /ragscope serve: the retention of ragscope\.session_rollups .*ends after 2106-02-07.*the longest retention is \d+ days from today/);

    // The fix as said, a day shorter (the longest shrinks by one each day at 06:28:15 UTC, which may pass meanwhile).
    const longest = Number(said![1]);
    const fixed = await openClickHouse(embedded(dataDir));
    try {
      await fixed.client.command({ query: said![2]!.replace(/INTERVAL \d+ DAY/, `INTERVAL ${longest - 1} DAY`) });
    } finally {
      await fixed.close();
    }
    const again = run(["migrate", "--data-dir", dataDir], folder);
    assert.equal(again.status, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /the schema is up to date/);
  });
});
