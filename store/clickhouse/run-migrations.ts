/**
 * Applies the versioned schema migrations in deploy/clickhouse/migrations/
 * (`NNNN_name.sql`) in order, recording each in `schema_migrations`. The same
 * files run on chDB and on a ClickHouse server. A migration that was applied
 * and then edited is refused: migrations are append-only.
 *
 * A migration that changes a table's sorting or partition key creates the
 * table anew, copies the rows and renames the old table to
 * `<table>_before_<NNNN>` (0007_time_partitions.sql). Such a table is kept for
 * the operator when it holds rows; an empty one (a new store) is dropped
 * right away, as nothing can be lost with it.
 *
 * On a ClickHouse server the pending migrations are applied under the
 * migration lock (migration-lock.ts), so collectors starting together apply
 * each migration once, one after the other; the embedded engine's folder is
 * held by one process already.
 *
 * A new embedded store (no migration recorded) is created at once from the
 * schema these migrations leave (new-store-schema.ts), when that file was
 * generated from exactly them; each is recorded as applied.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { packageFiles } from "../../collector/wiring/config/package-files.js";
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";
import { planSwap, replacedTableSuffix } from "./interrupted-swap.js";
import { expandRetention } from "./kept-retention.js";
import { createNewStore } from "./new-store-schema.js";
import { findRetentionsPastLimit, RetentionPastLimitError } from "./retention-limit.js";
import { acquireMigrationLock, DEFAULT_STALE_AFTER_MS, type MigrationLockHolder, type MigrationLockOptions } from "./migration-lock.js";
import type { StoreOpeningProgressListener } from "./store-opening-progress.js";

export const migrationsFolder = packageFiles.migrations;

export interface Migration {
  version: number;
  name: string;
  statements: string[];
  checksum: string;
}

export function splitStatements(sql: string): string[] {
  const withoutComments = sql
    .split("\n")
    .filter((line) => !line.trim().startsWith("--"))
    .join("\n");
  return withoutComments
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== "");
}

export async function readMigrations(folder = migrationsFolder): Promise<Migration[]> {
  const files = (await readdir(folder)).filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file)).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const sql = await readFile(path.join(folder, file), "utf8");
    migrations.push({
      version: Number(file.slice(0, 4)),
      name: file.replace(/\.sql$/, ""),
      statements: splitStatements(sql),
      checksum: createHash("sha256").update(sql).digest("hex"),
    });
  }
  return migrations;
}

export interface RunMigrationsOptions {
  /** The migration lock's timing and notices; by default a line on stderr says whom start-up waits for. */
  lock?: MigrationLockOptions;
  /** The time retentions are counted from (retention-limit.ts); default now. */
  now?: () => Date;
  /** False: a new store runs every migration, as a store of the release before did (the schema file's generator and its test). */
  newStoreSchema?: boolean;
  /** Told when the wait for the lock starts and before each migration runs (a process's /readyz says it). */
  onProgress?: StoreOpeningProgressListener;
}

/** The migrations applied (names), and what they left as an operator had it (kept-retention.ts). */
export interface MigrationOutcome {
  applied: string[];
  notes: string[];
  /** True when a new store was created from the schema the migrations leave rather than by running them (new-store-schema.ts). */
  createdFromSchema?: boolean;
}

export async function runMigrations(connection: ClickHouseConnection, folder = migrationsFolder, options: RunMigrationsOptions = {}): Promise<MigrationOutcome> {
  const database = quoteIdentifier(connection.database);
  await connection.client.command({
    query: `CREATE TABLE IF NOT EXISTS ${database}.schema_migrations (version UInt32, name String, checksum String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3)) ENGINE = ReplacingMergeTree ORDER BY version`,
  });
  // Before a migration copies a retention (kept-retention.ts) or anything is stored: a TTL past 2106 wraps
  // around and drops every row at the next merge, so the store is not used until the operator fixes it.
  const pastLimit = await findRetentionsPastLimit(connection, options.now?.() ?? new Date());
  if (pastLimit.length > 0) throw new RetentionPastLimitError(pastLimit, connection.database, connection.describe());
  const migrations = await readMigrations(folder);
  const done = await appliedMigrations(connection);
  const pending = pendingMigrations(migrations, done, connection);
  // A new embedded store: created at once from the schema the migrations leave (new-store-schema.ts).
  if (done.size === 0 && options.newStoreSchema !== false) {
    options.onProgress?.({ kind: "creating-new-store" });
    if (await createNewStore(connection, migrations)) return { applied: migrations.map((migration) => migration.name), notes: [], createdFromSchema: true };
  }
  // Up to date (every start but the first of a release): no lock taken.
  if (pending.length === 0 || connection.embedded) return applyMigrations(connection, pending, options.onProgress);
  const onWait = options.lock?.onWait ?? ((holder: MigrationLockHolder) => noticeWaiting(connection, holder, options.lock?.staleAfterMs ?? DEFAULT_STALE_AFTER_MS));
  const lock = await acquireMigrationLock(connection, {
    ...options.lock,
    onWait: (holder) => {
      options.onProgress?.({ kind: "waiting-for-migration-lock", holder });
      onWait(holder);
    },
  });
  try {
    // What the previous holder applied is done: read the list again under the lock.
    return await applyMigrations(connection, pendingMigrations(migrations, await appliedMigrations(connection), connection), options.onProgress);
  } finally {
    await lock.release();
  }
}

/**
 * Where a store's schema stands against this release's migrations, read without changing it:
 * for the commands that only read (the gate), which leave the schema to the processes that
 * write and must tell "nothing was ever stored here" and "written by an earlier release"
 * apart from "no such run".
 */
export type SchemaState =
  | { kind: "absent" }
  | { kind: "behind"; pending: string[] }
  | { kind: "current" };

export async function readSchemaState(connection: ClickHouseConnection, folder = migrationsFolder): Promise<SchemaState> {
  const exists = await connection.client.query({
    query: "SELECT count() AS tables FROM system.tables WHERE database = {database:String} AND name = 'schema_migrations'",
    query_params: { database: connection.database },
    format: "JSONEachRow",
  });
  const [row] = await exists.json<{ tables: number | string }>();
  if (Number(row?.tables ?? 0) === 0) return { kind: "absent" };
  const done = await appliedMigrations(connection);
  if (done.size === 0) return { kind: "absent" };
  const pending = (await readMigrations(folder)).filter((migration) => !done.has(migration.version)).map((migration) => migration.name);
  return pending.length === 0 ? { kind: "current" } : { kind: "behind", pending };
}

async function appliedMigrations(connection: ClickHouseConnection): Promise<Map<number, { checksum: string }>> {
  const result = await connection.client.query({ query: `SELECT version, name, checksum FROM ${quoteIdentifier(connection.database)}.schema_migrations FINAL`, format: "JSONEachRow" });
  return new Map((await result.json<{ version: number; name: string; checksum: string }>()).map((row) => [Number(row.version), row]));
}

/** The migrations not applied yet, in order; refuses a migration that was applied and then edited. */
function pendingMigrations(migrations: readonly Migration[], done: ReadonlyMap<number, { checksum: string }>, connection: ClickHouseConnection): Migration[] {
  const pending: Migration[] = [];
  for (const migration of migrations) {
    const previous = done.get(migration.version);
    if (previous === undefined) pending.push(migration);
    else if (previous.checksum !== migration.checksum) {
      throw new Error(`migration ${migration.name} was changed after it was applied to ${connection.describe()}; add a new migration instead of editing an applied one`);
    }
  }
  return pending;
}

async function applyMigrations(connection: ClickHouseConnection, pending: readonly Migration[], onProgress?: StoreOpeningProgressListener): Promise<MigrationOutcome> {
  const database = quoteIdentifier(connection.database);
  const client = connection.client;
  const applied: string[] = [];
  const notes: string[] = [];
  for (const [index, migration] of pending.entries()) {
    onProgress?.({ kind: "migrating", applied: index, pending: pending.length, next: migration.name });
    try {
      // A copy-and-swap migration a killed process left half done resumes where it stopped (interrupted-swap.ts).
      const plan = await planSwap(connection, migration.statements, migration.version);
      if (plan.swappedBefore) notes.push(`${migration.name}: its tables had been swapped by a process stopped before it recorded the migration; recorded now`);
      if (plan.droppedStagedCopies.length > 0) notes.push(`${migration.name}: copied again from the start, a copy cut short by a stopped process dropped (${plan.droppedStagedCopies.join(", ")})`);
      for (const statement of plan.statements) {
        const expanded = await expandRetention(connection, statement.replaceAll("{{database}}", database));
        if (!expanded.ok) {
          notes.push(`${migration.name}: ${expanded.note}`);
          continue;
        }
        await client.command({ query: expanded.statement });
      }
    } catch (error) {
      // A collector of a release before the migration lock may still migrate the same server
      // unlocked: when it finished this migration meanwhile, its statements fail here (a table
      // already renamed) and the migration is done. Anything else is a real failure.
      if (await recordedByAnother(connection, migration)) continue;
      throw error;
    }
    await client.insert({
      table: `${database}.schema_migrations`,
      values: [{ version: migration.version, name: migration.name, checksum: migration.checksum }],
      format: "JSONEachRow",
    });
    await dropEmptyReplacedTables(connection, migration.version);
    applied.push(migration.name);
  }
  return { applied, notes };
}

function noticeWaiting(connection: ClickHouseConnection, holder: MigrationLockHolder, staleAfterMs: number): void {
  console.error(
    `ragscope: waiting to migrate ${connection.describe()}: ${holder.owner} holds the migration lock (last heard ${Math.round(holder.silentMs / 1000)} s ago); a holder silent for ${Math.round(staleAfterMs / 1000)} s is taken over`,
  );
}

/** Waits (bounded) for another process to record `migration` as applied; true when it did, with the same checksum. */
async function recordedByAnother(connection: ClickHouseConnection, migration: Migration, waitMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const result = await connection.client.query({
      query: `SELECT checksum FROM ${quoteIdentifier(connection.database)}.schema_migrations FINAL WHERE version = {version:UInt32}`,
      query_params: { version: migration.version },
      format: "JSONEachRow",
    });
    const [row] = await result.json<{ checksum: string }>();
    if (row !== undefined) return row.checksum === migration.checksum;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Drops the tables migration `version` replaced when they hold no row; those with rows stay for the operator. */
async function dropEmptyReplacedTables(connection: ClickHouseConnection, version: number): Promise<void> {
  const suffix = replacedTableSuffix(version);
  const result = await connection.client.query({
    query: "SELECT name, total_rows FROM system.tables WHERE database = {database:String} AND endsWith(name, {suffix:String})",
    query_params: { database: connection.database, suffix },
    format: "JSONEachRow",
  });
  for (const table of await result.json<{ name: string; total_rows: string | number | null }>()) {
    if (Number(table.total_rows ?? 1) !== 0) continue;
    await connection.client.command({ query: `DROP TABLE IF EXISTS ${quoteIdentifier(connection.database)}.${quoteIdentifier(table.name)}` });
  }
}
