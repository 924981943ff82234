/**
 * A per-query memory bound on the dashboards' read path (panels of Grafana's
 * boards as the report and the UI run them). The embedded engine runs in the
 * collector's own process: one query whose GROUP BY, JOIN or sort grows with
 * the data (a many-to-many join, a percentile that sorts every value) would
 * otherwise take the whole machine — a run of every panel on a store of
 * 300,000 metric values once grew to 23.7 GB before the kernel stopped it.
 *
 * The bound is ClickHouse's own `max_memory_usage`, written into the
 * statement's SETTINGS clause (the embedded engine would apply a session
 * setting with `SET`, which outlives the query and is shared by every writer
 * of the session). A query that passes it fails alone, with
 * MEMORY_LIMIT_EXCEEDED, which is turned into an error that says which
 * setting to change (`clickhouse.queryMemoryMb`, RAGSCOPE_QUERY_MEMORY_MB).
 */
import { clickHouseErrorCode } from "./clickhouse-error-code.js";

const MEBIBYTE = 1024 * 1024;
/** ClickHouse's MEMORY_LIMIT_EXCEEDED. */
const MEMORY_LIMIT_EXCEEDED = "241";

/** The default bound of one dashboard query, MiB (settings-schema: clickhouse.queryMemoryMb). */
export const DEFAULT_QUERY_MEMORY_MB = 2_048;

/** The setting that bounds one statement's memory; none for 0 bytes. */
export function memoryBoundSettings(bytes: number): Record<string, number> {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new Error(`a query memory bound must be a whole number of bytes, got ${bytes}`);
  return bytes === 0 ? {} : { max_memory_usage: bytes };
}

export function isMemoryLimitError(error: unknown): boolean {
  return clickHouseErrorCode(error) === MEMORY_LIMIT_EXCEEDED || (error instanceof Error && /memory limit exceeded/i.test(error.message));
}

/** What the user reads when a query passed the bound: what happened, and the two ways out. */
export class QueryMemoryLimitError extends Error {
  constructor(
    readonly bytes: number,
    cause: unknown,
  ) {
    super(
      `a dashboard query needed more than its memory bound of ${Math.round(bytes / MEBIBYTE)} MiB and was stopped (the engine's other work is unaffected); ` +
        `narrow the time range or the service/tenant filters, or raise the bound with the setting clickhouse.queryMemoryMb (RAGSCOPE_QUERY_MEMORY_MB; 0 = no bound). ` +
        `Engine: ${cause instanceof Error ? cause.message.split("\n")[0] : String(cause)}`,
      { cause },
    );
    this.name = "QueryMemoryLimitError";
  }
}
