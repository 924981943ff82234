/**
 * The engine-memory gauge serves its last reading, and no sample at all where
 * there is nothing true to say: a ClickHouse server (the reader says null),
 * or a reading that failed. It stops reading when told to, before the store
 * closes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { EngineMemoryGauge } from "../../../collector/wiring/observe/engine-memory-gauge.js";
import { MetricsRegistry } from "../../../collector/wiring/observe/metrics-registry.js";

function samples(registry: MetricsRegistry): string[] {
  return registry
    .render()
    .split("\n")
    .filter((line) => line.startsWith("ragscope_engine_memory_bytes"));
}

test("the gauge serves the last reading; a server's null and a failed reading leave no sample", async () => {
  const readings: (number | null | Error)[] = [52_428_800, null, new Error("the engine is closing"), 1_048_576];
  let reads = 0;
  const registry = new MetricsRegistry();
  // An hour between timed readings: this test takes each reading itself.
  const gauge = new EngineMemoryGauge(
    registry,
    async () => {
      const next = readings[reads++];
      if (next instanceof Error) throw next;
      return next ?? null;
    },
    3_600_000,
  );
  assert.deepEqual(samples(registry), [], "nothing read yet: no sample");
  await gauge.start();
  assert.deepEqual(samples(registry), ["ragscope_engine_memory_bytes 52428800"]);
  await gauge.refresh();
  assert.deepEqual(samples(registry), [], "a ClickHouse server: no sample, not 0");
  await gauge.refresh();
  assert.deepEqual(samples(registry), [], "a failed reading: no sample, not the one before");
  await gauge.refresh();
  assert.deepEqual(samples(registry), ["ragscope_engine_memory_bytes 1048576"]);
  await gauge.stop();
  assert.equal(reads, 4);
});

test("readings asked for while one is running share it", async () => {
  let reads = 0;
  let release: (value: number) => void = () => {};
  const registry = new MetricsRegistry();
  const gauge = new EngineMemoryGauge(
    registry,
    () => {
      reads += 1;
      return new Promise<number>((resolve) => (release = resolve));
    },
    3_600_000,
  );
  const started = gauge.start();
  const again = gauge.refresh();
  release(7);
  await Promise.all([started, again]);
  assert.equal(reads, 1, "one query for both");
  assert.deepEqual(samples(registry), ["ragscope_engine_memory_bytes 7"]);
  await gauge.stop();
});

test("after stop() the timer reads no more", async () => {
  let reads = 0;
  const gauge = new EngineMemoryGauge(new MetricsRegistry(), async () => (reads += 1), 1);
  await gauge.start();
  await gauge.stop();
  const readsAtStop = reads;
  // Far past the 1 ms interval: a timer left running would have read again.
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(reads, readsAtStop);
});
