/**
 * The store gauges serve the last reading of the store's parts, one series
 * per table, and nothing where there is nothing true to say: before the
 * first reading, after a failed one (a server that refuses system tables to
 * the collector's user, the engine closing), or for a limit the engine did
 * not give.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MetricsRegistry } from "../../../collector/wiring/observe/metrics-registry.js";
import { StorePartsGauges } from "../../../collector/wiring/observe/store-parts-gauges.js";
import type { StoreParts } from "../../../store/clickhouse/store-parts.js";

function storeLines(registry: MetricsRegistry): string[] {
  return registry
    .render()
    .split("\n")
    .filter((line) => line.startsWith("ragscope_store_"));
}

const READING: StoreParts = {
  tables: [
    { table: "case_results", activeParts: 12, largestPartitionParts: 9, rows: 3_000, bytesOnDisk: 1_048_576 },
    { table: "human_labels", activeParts: 0, largestPartitionParts: 0, rows: 0, bytesOnDisk: 0 },
  ],
  partsToDelayInsert: 1_000,
  partsToThrowInsert: null,
};

test("one series per table and gauge from the last reading; none before it, after a failed one, or for a limit not given", async () => {
  const readings: (StoreParts | Error)[] = [READING, new Error("Not enough privileges to read system.parts")];
  let reads = 0;
  const registry = new MetricsRegistry();
  // An hour between timed readings: this test takes each reading itself.
  const gauges = new StorePartsGauges(
    registry,
    async () => {
      const next = readings[reads++]!;
      if (next instanceof Error) throw next;
      return next;
    },
    3_600_000,
  );
  assert.deepEqual(storeLines(registry), [], "nothing read yet: no series, not an empty store");
  await gauges.start();
  assert.deepEqual(storeLines(registry), [
    'ragscope_store_active_parts{table="case_results"} 12',
    'ragscope_store_active_parts{table="human_labels"} 0',
    'ragscope_store_largest_partition_parts{table="case_results"} 9',
    'ragscope_store_largest_partition_parts{table="human_labels"} 0',
    'ragscope_store_rows{table="case_results"} 3000',
    'ragscope_store_rows{table="human_labels"} 0',
    'ragscope_store_bytes_on_disk{table="case_results"} 1048576',
    'ragscope_store_bytes_on_disk{table="human_labels"} 0',
    "ragscope_store_parts_to_delay_insert 1000",
  ]);
  await gauges.refresh();
  assert.deepEqual(storeLines(registry), [], "a failed reading: no series, not the reading before");
  await gauges.stop();
  assert.equal(reads, 2);
});
