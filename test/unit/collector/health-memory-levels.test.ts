/**
 * The health snapshots carry the process's memory levels, as /metrics shows
 * them, and leave out what the process does not report: with a ClickHouse
 * server there is no engine memory, which is written as no row, not as 0.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { registerProcessMetrics } from "../../../collector/wiring/observe/collector-metrics.js";
import { EngineMemoryGauge } from "../../../collector/wiring/observe/engine-memory-gauge.js";
import { receiverHealthReading } from "../../../collector/wiring/observe/health-readings.js";
import { MetricsRegistry } from "../../../collector/wiring/observe/metrics-registry.js";

function receiverRegistry(): MetricsRegistry {
  const registry = new MetricsRegistry();
  registerProcessMetrics(registry, { maxHeapBytes: 1 << 30 });
  // What registerReceiverMetrics registers and the receiver's reading sums.
  registry.counter("ragscope_spans_received_total", "spans", () => [{ labels: { role: "receiver" }, value: 10 }]);
  registry.counter("ragscope_spans_dropped_total", "dropped", () => [{ labels: { role: "receiver" }, value: 0 }]);
  return registry;
}

test("the memory levels are in the snapshot; the engine's only where the engine runs in-process", async () => {
  const withServer = receiverRegistry();
  const serverGauge = new EngineMemoryGauge(withServer, async () => null, 3_600_000);
  await serverGauge.start();
  const serverLevels = receiverHealthReading(withServer)().gauges;
  assert.deepEqual(Object.keys(serverLevels).sort(), ["heap_used_bytes", "resident_memory_bytes"]);
  assert.ok(serverLevels.resident_memory_bytes! > serverLevels.heap_used_bytes! && serverLevels.heap_used_bytes! > 0);
  await serverGauge.stop();

  const embedded = receiverRegistry();
  const embeddedGauge = new EngineMemoryGauge(embedded, async () => 48 * 1024 * 1024, 3_600_000);
  await embeddedGauge.start();
  assert.equal(receiverHealthReading(embedded)().gauges.engine_memory_bytes, 48 * 1024 * 1024);
  await embeddedGauge.stop();
});

test("a process without the memory metrics (a collector embedded in a test or a tool) writes no memory levels", () => {
  const registry = new MetricsRegistry();
  registry.counter("ragscope_spans_received_total", "spans", () => [{ labels: { role: "receiver" }, value: 1 }]);
  registry.counter("ragscope_spans_dropped_total", "dropped", () => [{ labels: { role: "receiver" }, value: 0 }]);
  assert.deepEqual(receiverHealthReading(registry)().gauges, {});
});
