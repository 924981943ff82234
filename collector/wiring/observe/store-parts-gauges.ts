/**
 * The store's tables on /metrics (store/clickhouse/store-parts.ts), read in
 * the background every `intervalMs` (a minute by default: parts and sizes
 * change slowly, and the query reads every table's part list):
 *
 * - `ragscope_store_active_parts{table}` and
 *   `ragscope_store_largest_partition_parts{table}`: the engine slows
 *   inserts into a partition past `ragscope_store_parts_to_delay_insert`
 *   active parts and refuses them past `ragscope_store_parts_to_throw_insert`;
 *   a partition climbing toward them means merges fall behind the writes.
 * - `ragscope_store_rows{table}` and `ragscope_store_bytes_on_disk{table}`:
 *   what each table holds, so growth and the retention (TTL) at work show.
 *
 * Before the first reading, or after a failed one, there are no samples
 * (PeriodicReading): no table reads as empty for want of an answer.
 */
import type { StoreParts } from "../../../store/clickhouse/store-parts.js";
import type { MetricsRegistry, Sample } from "./metrics-registry.js";
import { PeriodicReading } from "./periodic-reading.js";

/** The default of RAGSCOPE_STORE_PARTS_INTERVAL_MS (observe.storePartsMs). */
export const STORE_PARTS_INTERVAL_MS = 60_000;

/** start() reads now and then every interval, refresh() once now, stop() before the store closes (PeriodicReading). */
export class StorePartsGauges extends PeriodicReading<StoreParts> {
  constructor(registry: MetricsRegistry, read: () => Promise<StoreParts>, intervalMs: number) {
    super(read, intervalMs);
    const every = `read every ${intervalMs / 1000} s`;
    const perTable = (value: (table: StoreParts["tables"][number]) => number) => (): Sample[] => (this.last?.tables ?? []).map((table) => ({ labels: { table: table.table }, value: value(table) }));
    const limit = (value: (parts: StoreParts) => number | null) => (): Sample[] => {
      const last = this.last;
      const found = last === null ? null : value(last);
      return found === null ? [] : [{ value: found }];
    };
    registry.gauge("ragscope_store_active_parts", `active data parts of each table of the store (${every})`, perTable((table) => table.activeParts));
    registry.gauge(
      "ragscope_store_largest_partition_parts",
      `active parts of each table's partition with the most of them: the engine slows inserts into a partition past ragscope_store_parts_to_delay_insert and refuses them past ragscope_store_parts_to_throw_insert (${every})`,
      perTable((table) => table.largestPartitionParts),
    );
    registry.gauge("ragscope_store_rows", `rows in each table's active parts, duplicates not yet merged away included (${every})`, perTable((table) => table.rows));
    registry.gauge("ragscope_store_bytes_on_disk", `compressed bytes of each table's active parts on disk (${every})`, perTable((table) => table.bytesOnDisk));
    registry.gauge("ragscope_store_parts_to_delay_insert", "the engine's MergeTree setting parts_to_delay_insert: active parts of one partition past which it slows inserts", limit((parts) => parts.partsToDelayInsert));
    registry.gauge("ragscope_store_parts_to_throw_insert", "the engine's MergeTree setting parts_to_throw_insert: active parts of one partition past which it refuses inserts (Too many parts)", limit((parts) => parts.partsToThrowInsert));
  }
}
