/**
 * One migrator at a time on a shared ClickHouse server. Collectors that start
 * together (two evaluators of one consumer group, a receiver and `ragscope
 * migrate`) all apply the pending migrations on start; run side by side, a
 * copy migration (0007) renames a table under the other's INSERT … SELECT,
 * backfills run twice, and two processes that each failed half-way wait for
 * the other to record the migration and give up together.
 *
 * ClickHouse has no advisory locks, but creating a table is atomic: of the
 * processes that run the same `CREATE TABLE` (without IF NOT EXISTS) exactly
 * one succeeds, the others get TABLE_ALREADY_EXISTS. So the lock is the table
 * `schema_migrations_lock`, created by its holder with the holder's name as
 * the table's comment, and dropped when the holder is done. While it holds the
 * lock, the holder inserts a heartbeat row every few seconds (times on the
 * server's clock, so clocks of the hosts do not matter).
 *
 * A holder that died (SIGKILL, lost host) leaves the table behind. Once its
 * last heartbeat (or, before the first one, the table's creation) is older
 * than `staleAfterMs`, a waiter takes the lock over by renaming the table to
 * `schema_migrations_lock_abandoned_<holder id>`. The rename is the take-over's
 * token: two waiters that judged the same holder dead race to one new name,
 * and the loser's rename fails, also when the winner meanwhile created a fresh
 * lock under the old name. That is why the abandoned table is kept (it is
 * tiny, names the holder that died mid-migration, and `ragscope migrate` lists
 * it for the operator to check the schema and drop it).
 */
import { createHash, randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";
import { clickHouseErrorCode } from "./clickhouse-error-code.js";

export const MIGRATION_LOCK_TABLE = "schema_migrations_lock";
export const ABANDONED_LOCK_PREFIX = `${MIGRATION_LOCK_TABLE}_abandoned_`;

/** The holder as a waiter sees it. */
export interface MigrationLockHolder {
  /** `<host> pid <pid> <id>`, the table's comment. */
  readonly owner: string;
  /** Since the last heartbeat (or the lock's creation, before the first), on the server's clock. */
  readonly silentMs: number;
}

export interface MigrationLockOptions {
  /** How often the holder writes its heartbeat, ms. Default 5,000. */
  heartbeatMs?: number;
  /** A lock silent for longer is a dead holder's and is taken over, ms. Default 60,000: well above a heartbeat delayed by a busy server. */
  staleAfterMs?: number;
  /** How often a waiter looks at the lock again, ms. Default 250. */
  pollMs?: number;
  /** Called when a waiter starts waiting for a holder, when the holder changes, and at most every 30 s while it waits: say why start-up is paused. */
  onWait?: (holder: MigrationLockHolder) => void;
  /** Called after a waiter took a dead holder's lock over. */
  onTakeOver?: (holder: MigrationLockHolder, abandonedTable: string) => void;
}

export interface MigrationLock {
  readonly owner: string;
  /** Stops the heartbeat and drops the lock, unless another process took it over meanwhile (then it is left to that process). */
  release(): Promise<void>;
}

const WAIT_NOTICE_EVERY_MS = 30_000;
export const DEFAULT_STALE_AFTER_MS = 60_000;

/** Waits until this process holds the migration lock of the connection's database. */
export async function acquireMigrationLock(connection: ClickHouseConnection, options: MigrationLockOptions = {}): Promise<MigrationLock> {
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  const pollMs = options.pollMs ?? 250;
  const database = quoteIdentifier(connection.database);
  const table = `${database}.${MIGRATION_LOCK_TABLE}`;
  const id = randomBytes(16).toString("hex");
  // Only characters that need no quoting: the owner goes into the DDL's COMMENT literal.
  const owner = `${hostname().replace(/[^A-Za-z0-9.-]/g, "_") || "host"} pid ${process.pid} ${id}`;
  let lastNotice: { owner: string; at: number } | null = null;
  for (;;) {
    const holder = await readHolder(connection);
    if (holder === null) {
      if (await tryCreate(connection, table, owner)) break;
      continue;
    }
    if (holder.silentMs > staleAfterMs) {
      const abandoned = `${ABANDONED_LOCK_PREFIX}${holderId(holder.owner)}`;
      if (await tryRename(connection, table, `${database}.${abandoned}`)) options.onTakeOver?.(holder, abandoned);
      continue;
    }
    const now = Date.now();
    if (lastNotice === null || lastNotice.owner !== holder.owner || now - lastNotice.at >= WAIT_NOTICE_EVERY_MS) {
      lastNotice = { owner: holder.owner, at: now };
      options.onWait?.(holder);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  // Beats only into a lock that is still this process's: after a take-over the name holds the successor's lock.
  const beat = () =>
    connection.client
      .command({
        query: `INSERT INTO ${table} (heartbeat) SELECT now64(3) FROM system.tables WHERE database = {database:String} AND name = {table:String} AND comment = {owner:String}`,
        query_params: { database: connection.database, table: MIGRATION_LOCK_TABLE, owner },
      })
      .catch(() => {
        // Taken over and gone meanwhile: release() finds out and leaves the lock alone.
      });
  await beat();
  const heartbeat = setInterval(() => void beat(), heartbeatMs);
  heartbeat.unref();
  return {
    owner,
    async release() {
      clearInterval(heartbeat);
      const holder = await readHolder(connection);
      if (holder?.owner !== owner) return;
      await connection.client.command({ query: `DROP TABLE IF EXISTS ${table}` });
    },
  };
}

/** The lock's holder, or null when nobody holds it. */
async function readHolder(connection: ClickHouseConnection): Promise<MigrationLockHolder | null> {
  const result = await connection.client.query({
    query: `SELECT comment, dateDiff('millisecond', toDateTime64(metadata_modification_time, 3), now64(3)) AS created_ms_ago
            FROM system.tables WHERE database = {database:String} AND name = {table:String}`,
    query_params: { database: connection.database, table: MIGRATION_LOCK_TABLE },
    format: "JSONEachRow",
  });
  const [row] = await result.json<{ comment: string; created_ms_ago: number | string }>();
  if (row === undefined) return null;
  try {
    const beats = await connection.client.query({
      query: `SELECT count() AS beats, dateDiff('millisecond', max(heartbeat), now64(3)) AS silent_ms FROM ${quoteIdentifier(connection.database)}.${MIGRATION_LOCK_TABLE}`,
      format: "JSONEachRow",
    });
    const [heartbeats] = await beats.json<{ beats: number | string; silent_ms: number | string }>();
    const silentMs = Number(heartbeats?.beats ?? 0) > 0 ? Number(heartbeats!.silent_ms) : Number(row.created_ms_ago);
    return { owner: row.comment, silentMs };
  } catch (error) {
    // Released or taken over between the two reads: look again.
    if (clickHouseErrorCode(error) === "60") return null;
    throw error;
  }
}

async function tryCreate(connection: ClickHouseConnection, table: string, owner: string): Promise<boolean> {
  try {
    await connection.client.command({
      query: `CREATE TABLE ${table} (heartbeat DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY tuple() COMMENT '${owner}'`,
    });
    return true;
  } catch (error) {
    if (clickHouseErrorCode(error) === "57") return false;
    throw error;
  }
}

async function tryRename(connection: ClickHouseConnection, from: string, to: string): Promise<boolean> {
  try {
    await connection.client.command({ query: `RENAME TABLE ${from} TO ${to}` });
    return true;
  } catch (error) {
    // Another waiter took the same dead holder's lock over first (57), or the holder released it (60).
    if (clickHouseErrorCode(error) === "57" || clickHouseErrorCode(error) === "60") return false;
    throw error;
  }
}

/** The holder's id as a table-name suffix: the owner's last word when it is one of ours, else a digest of the whole comment. */
function holderId(owner: string): string {
  const last = owner.split(" ").at(-1) ?? "";
  if (/^[0-9a-f]{32}$/.test(last)) return last;
  return createHash("sha256").update(owner).digest("hex").slice(0, 32);
}
