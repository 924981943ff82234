/**
 * The memory the embedded engine tracks as in use: what its inserts, merges
 * and queries hold right now (ClickHouse's `MemoryTracking`, the figure its
 * own memory limits are checked against). It is part of the collector's
 * resident set only when the engine runs in-process; a ClickHouse server's
 * memory is its own process's, exported by the server itself, so for a
 * server this reads nothing.
 */
import type { ClickHouseConnection } from "./clickhouse-connection.js";

/** Bytes the embedded engine tracks as in use; null for a ClickHouse server. */
export async function engineTrackedMemory(connection: Pick<ClickHouseConnection, "client" | "embedded">): Promise<number | null> {
  if (!connection.embedded) return null;
  const result = await connection.client.query({ query: "SELECT value FROM system.metrics WHERE metric = 'MemoryTracking'", format: "JSONEachRow" });
  const rows = (await result.json()) as { value: number | string }[];
  const value = Number(rows[0]?.value);
  // The counter can dip below zero briefly (memory freed by a thread other than the one that counted it).
  return Number.isFinite(value) ? Math.max(0, value) : null;
}
