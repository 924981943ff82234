/**
 * Rollup minutes a migration asks to recompute (table `rollup_repairs`,
 * migration 0024): a migration that changes what a rollup counts — 0024: a
 * review decides a verdict only with two agreeing reviewers — cannot run the
 * rollup refresh, which is TypeScript (metric-rollups.ts), and copying the
 * refresh's statements into SQL would leave two definitions to keep equal. So
 * the migration notes the minutes, tenants and services whose rows are wrong,
 * and the first process that opens the store to write (or `ragscope migrate`)
 * recomputes them through the refresh itself, as it recomputes a minute a write
 * touched, and only then deletes the rows it read. A repair that fails leaves
 * them for the next start; two processes repairing at once recompute the same
 * minutes to the same counts.
 */
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";
import type { ClickHouseMetricRollups } from "./metric-rollups.js";
import { failure, success, type Result } from "../../core/result.js";

interface RepairRow {
  minute_ms: string | number;
  tenant_id: string;
  service_name: string;
  noted_ms: string | number;
}

/** What a repair did: how many minute × tenant × service rows it recomputed, and why they were noted. */
export interface RollupRepair {
  recomputed: number;
  reasons: string[];
}

/**
 * Recomputes the rollup rows of the minutes in `rollup_repairs` through `rollups` (its refresh), then deletes the
 * repair rows read. A store without the table (a schema before migration 0024) has nothing to repair. An error says
 * what failed and that the next start tries again; the rows stay.
 */
export async function repairNotedRollups(connection: ClickHouseConnection, rollups: ClickHouseMetricRollups): Promise<Result<RollupRepair, string>> {
  const database = quoteIdentifier(connection.database);
  try {
    const exists = await connection.client.query({
      query: "SELECT count() AS tables FROM system.tables WHERE database = {database:String} AND name = 'rollup_repairs'",
      query_params: { database: connection.database },
      format: "JSONEachRow",
    });
    const [table] = await exists.json<{ tables: string | number }>();
    if (Number(table?.tables ?? 0) === 0) return success({ recomputed: 0, reasons: [] });
    const read = await connection.client.query({
      query: `SELECT toUnixTimestamp(minute) * 1000 AS minute_ms, tenant_id, service_name, toUnixTimestamp64Milli(noted_at) AS noted_ms FROM ${database}.rollup_repairs`,
      format: "JSONEachRow",
    });
    const rows = await read.json<RepairRow>();
    if (rows.length === 0) return success({ recomputed: 0, reasons: [] });
    const reasonsRead = await connection.client.query({ query: `SELECT DISTINCT reason FROM ${database}.rollup_repairs ORDER BY reason`, format: "JSONEachRow" });
    const reasons = (await reasonsRead.json<{ reason: string }>()).map((row) => row.reason);
    const failuresBefore = rollups.counters.failures;
    rollups.note(rows.map((row) => ({ startedAt: new Date(Number(row.minute_ms)).toISOString(), tenantId: row.tenant_id, serviceName: row.service_name })));
    // The refresh never rejects: a failure is counted, and its minutes stay noted for its next run.
    await rollups.refresh();
    if (rollups.counters.failures > failuresBefore) return failure(repairFailed(connection, rollups.counters.lastError));
    // Only the rows read: a migration of another process may have noted more since.
    const newest = Math.max(...rows.map((row) => Number(row.noted_ms)));
    await connection.client.command({ query: `DELETE FROM ${database}.rollup_repairs WHERE noted_at <= fromUnixTimestamp64Milli({newest:Int64}, 'UTC')`, query_params: { newest } });
    // Two migrations may note the same minute: it is recomputed once, and counted once.
    const recomputed = new Set(rows.map((row) => `${row.minute_ms}\u0000${row.tenant_id}\u0000${row.service_name}`)).size;
    return success({ recomputed, reasons });
  } catch (error) {
    return failure(repairFailed(connection, error instanceof Error ? error.message : String(error)));
  }
}

function repairFailed(connection: ClickHouseConnection, cause: string): string {
  return `could not recompute the dashboards' rollups of the minutes an upgrade noted in rollup_repairs (${cause}); the dashboards' counts of those minutes stay as they were until a later start of a writing process or \`ragscope migrate\` against ${connection.describe()} recomputes them`;
}
