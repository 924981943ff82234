/**
 * Collectors starting together on one ClickHouse server migrate it one at a
 * time (store/clickhouse/migration-lock.ts). The server is the ClickHouse
 * engine behind its HTTP interface (support/clickhouse-http-facade.ts), the
 * migrators are `ragscope migrate` processes as an operator starts them, or
 * runMigrations itself where a test needs to see the lock's notices. Holders
 * that are alive or dead are made by hand, as another process leaves them:
 * the lock table with its holder's comment and heartbeats.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openClickHouse, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { ABANDONED_LOCK_PREFIX, acquireMigrationLock, MIGRATION_LOCK_TABLE, type MigrationLockHolder } from "../../../store/clickhouse/migration-lock.js";
import { readMigrations, runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { startClickHouseHttpFacade, type ClickHouseHttpFacade } from "../../support/clickhouse-http-facade.js";
import { queryRows } from "../../support/temporary-store.js";
import { eventually as waitUntil } from "../../support/eventually.js";

const eventually = (description: string, condition: () => boolean | Promise<boolean>, timeoutMs = 60_000) => waitUntil(description, condition, timeoutMs);

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

interface MigrateProcess {
  /** stderr so far. */
  readonly stderr: () => string;
  readonly done: Promise<{ status: number | null; stdout: string; stderr: string }>;
}

function startMigrate(url: string, database: string): MigrateProcess {
  const child = spawn(process.execPath, [ragscope, "migrate", "--clickhouse-url", url, "--clickhouse-database", database], {
    cwd: projectRoot,
    env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_DATA_DIR: "", RAGSCOPE_CONFIG: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return { stderr: () => stderr, done: new Promise((resolve) => child.once("close", (status) => resolve({ status, stdout, stderr }))) };
}

/** Polls (bounded) until `condition` holds. */
describe("the migration lock on a shared ClickHouse server", () => {
  let folder: string;
  let facade: ClickHouseHttpFacade;
  let names: string[];
  const connections: ClickHouseConnection[] = [];

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-migration-lock-"));
    facade = await startClickHouseHttpFacade({ dataPath: path.join(folder, "server") });
    names = (await readMigrations()).map((migration) => migration.name);
  });
  after(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
    await facade?.close();
    await rm(folder, { recursive: true, force: true });
  });

  async function freshDatabase(): Promise<ClickHouseConnection> {
    const connection = await openClickHouse({ url: facade.url, username: "default", password: "", database: `lock_${randomBytes(5).toString("hex")}`, dataPath: "/unused" });
    connections.push(connection);
    return connection;
  }

  /** Another process's lock as it leaves it: the table with the holder's comment, and its heartbeats. */
  async function holdLockAs(connection: ClickHouseConnection, owner: string, heartbeats: string[]): Promise<void> {
    await connection.client.command({ query: `CREATE TABLE ${connection.database}.${MIGRATION_LOCK_TABLE} (heartbeat DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY tuple() COMMENT '${owner}'` });
    for (const heartbeat of heartbeats) await connection.client.command({ query: `INSERT INTO ${connection.database}.${MIGRATION_LOCK_TABLE} VALUES (${heartbeat})` });
  }

  async function tables(connection: ClickHouseConnection): Promise<{ name: string; comment: string }[]> {
    return queryRows(connection, "SELECT name, comment FROM system.tables WHERE database = {database:String} AND startsWith(name, {prefix:String}) ORDER BY name", { database: connection.database, prefix: MIGRATION_LOCK_TABLE });
  }

  async function recordedMigrations(connection: ClickHouseConnection): Promise<string[]> {
    // Without FINAL: a migration recorded twice (applied twice) shows twice.
    return (await queryRows<{ name: string }>(connection, `SELECT name FROM ${connection.database}.schema_migrations ORDER BY version, applied_at`)).map((row) => row.name);
  }

  test("three `ragscope migrate` started together on a fresh database apply each migration once, one after the other", async () => {
    const connection = await freshDatabase();
    const runs = await Promise.all([0, 1, 2].map(() => startMigrate(facade.url, connection.database).done));
    for (const run of runs) assert.equal(run.status, 0, run.stderr);
    const applied = runs.flatMap((run) => [...run.stdout.matchAll(/: applied (\S+)$/gm)].map((match) => match[1]!));
    assert.deepEqual(applied.sort(), [...names].sort(), "every migration applied by exactly one process");
    assert.deepEqual(await recordedMigrations(connection), names);
    assert.deepEqual(await tables(connection), [], "the lock is released");
    // The processes that found the work done say so.
    assert.ok(runs.some((run) => /the schema is up to date/.test(run.stdout)), runs.map((run) => run.stdout).join("\n"));
  });

  test("start-up waits while a live holder has the lock, says whom it waits for, and migrates once it is released", async () => {
    const connection = await freshDatabase();
    const owner = `build-host pid 41 ${"a".repeat(32)}`;
    await holdLockAs(connection, owner, ["now64(3)"]);
    const migrate = startMigrate(facade.url, connection.database);
    await eventually("the waiting notice", () => migrate.stderr().includes("holds the migration lock"));
    assert.match(migrate.stderr(), new RegExp(`waiting to migrate ClickHouse server .*database ${connection.database}: ${owner} holds the migration lock`));
    assert.deepEqual(await recordedMigrations(connection), [], "nothing is migrated while another process holds the lock");
    await connection.client.command({ query: `DROP TABLE ${connection.database}.${MIGRATION_LOCK_TABLE}` });
    const run = await migrate.done;
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual([...run.stdout.matchAll(/: applied (\S+)$/gm)].map((match) => match[1]), names);
    assert.deepEqual(await tables(connection), []);
  });

  test("a holder that died mid-migration is taken over by exactly one of three waiters; its lock is kept under its id and `ragscope migrate` names it", async () => {
    const connection = await freshDatabase();
    const deadId = "d".repeat(32);
    const deadOwner = `crashed-host pid 7 ${deadId}`;
    await holdLockAs(connection, deadOwner, ["'2026-01-01 00:00:00.000'", "'2026-01-01 00:00:05.000'"]);
    const takeOvers: { holder: MigrationLockHolder; abandoned: string }[] = [];
    const results = await Promise.all(
      [0, 1, 2].map(async () => {
        const waiter = await openClickHouse({ url: facade.url, username: "default", password: "", database: connection.database, dataPath: "/unused" });
        try {
          return await runMigrations(waiter, undefined, { lock: { pollMs: 20, onWait: () => {}, onTakeOver: (holder, abandoned) => takeOvers.push({ holder, abandoned }) } });
        } finally {
          await waiter.close();
        }
      }),
    );
    assert.equal(takeOvers.length, 1, "one take-over of one dead holder");
    assert.equal(takeOvers[0]!.holder.owner, deadOwner);
    assert.ok(takeOvers[0]!.holder.silentMs > 60_000);
    assert.deepEqual(results.flatMap((result) => result.applied).sort(), [...names].sort(), "every migration applied by exactly one waiter");
    assert.deepEqual(await recordedMigrations(connection), names);
    assert.deepEqual(await tables(connection), [{ name: `${ABANDONED_LOCK_PREFIX}${deadId}`, comment: deadOwner }], "the dead holder's lock is kept, named by its id; no lock is held");

    const run = await startMigrate(facade.url, connection.database).done;
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`migration locks taken over from a process that stopped while it migrated .*: ${ABANDONED_LOCK_PREFIX}${deadId}`));
  });

  test("a holder that died before its first heartbeat is taken over once its lock is older than the staleness bound", async () => {
    const connection = await freshDatabase();
    await holdLockAs(connection, `quick-crash pid 8 ${"e".repeat(32)}`, []);
    const waited: MigrationLockHolder[] = [];
    const tookOver: MigrationLockHolder[] = [];
    const { applied } = await runMigrations(connection, undefined, { lock: { staleAfterMs: 1_500, pollMs: 50, onWait: (holder) => waited.push(holder), onTakeOver: (holder) => tookOver.push(holder) } });
    assert.ok(waited.length >= 1, "it waited first: the fresh lock was not stale");
    assert.equal(tookOver.length, 1);
    assert.ok(tookOver[0]!.silentMs > 1_500, `silent ${tookOver[0]!.silentMs} ms`);
    assert.deepEqual(applied, names);
  });

  test("a holder that was taken over neither beats into nor drops its successor's lock", async () => {
    const connection = await freshDatabase();
    const first = await acquireMigrationLock(connection, { heartbeatMs: 20 });
    const table = `${connection.database}.${MIGRATION_LOCK_TABLE}`;
    // What a successor does after judging the first holder dead.
    await connection.client.command({ query: `RENAME TABLE ${table} TO ${connection.database}.${ABANDONED_LOCK_PREFIX}${"f".repeat(32)}` });
    const successor = `successor pid 9 ${"9".repeat(32)}`;
    await holdLockAs(connection, successor, []);
    const heartbeatsOfFirst = async () => (await queryRows<{ beats: number }>(connection, `SELECT count() AS beats FROM ${connection.database}.${ABANDONED_LOCK_PREFIX}${"f".repeat(32)}`))[0]!.beats;
    // The first holder's timer keeps running: let it beat several times into the name that is now the successor's.
    const ownBeats = Number(await heartbeatsOfFirst());
    // The first holder's timer keeps running (every 20 ms): give it a few beats at the name that is now the successor's.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await first.release();
    assert.deepEqual(await tables(connection), [
      { name: MIGRATION_LOCK_TABLE, comment: successor },
      { name: `${ABANDONED_LOCK_PREFIX}${"f".repeat(32)}`, comment: first.owner },
    ]);
    const [successorBeats] = await queryRows<{ beats: number | string }>(connection, `SELECT count() AS beats FROM ${table}`);
    assert.equal(Number(successorBeats!.beats), 0, "no heartbeat of the first holder in the successor's lock");
    assert.ok(ownBeats >= 1, "the first holder had beaten into its own lock");
  });
});
