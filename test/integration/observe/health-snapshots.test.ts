import assert from "node:assert/strict";
import { ClickHouseHealthSink } from "../../../store/clickhouse/clickhouse-health-sink.js";
import { after, before, describe, test } from "node:test";
import { HealthSnapshots } from "../../../collector/wiring/observe/health-snapshots.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

describe("collector health snapshots", () => {
  let store: TemporaryStore;
  before(async () => {
    store = await temporaryStore();
  });
  after(async () => {
    await store.cleanup();
  });

  test("counters are written as increases since the previous snapshot, gauges as levels; a failed insert carries the increase over", async () => {
    let spans = 100;
    // Recent times: the table keeps 30 days (TTL), older rows are dropped.
    let clock = Date.now() - 60_000;
    const snapshots = new HealthSnapshots({
      sink: store.store.health,
      instance: "test-instance",
      role: "evaluator",
      intervalMs: 0,
      now: () => clock,
      read: () => ({ counters: { spans_received: spans }, gauges: { open_traces: 7 } }),
    });
    assert.equal(await snapshots.snapshot(), true);
    spans = 130;
    clock += 15_000;
    assert.equal(await snapshots.snapshot(), true);

    const broken = new HealthSnapshots({ sink: new ClickHouseHealthSink({ ...store.connection, database: "missing_database" }), instance: "x", role: "evaluator", intervalMs: 0, read: () => ({ counters: { spans_received: 1 }, gauges: {} }) });
    assert.equal(await broken.snapshot(), false);
    assert.equal(broken.counters.failures, 1);

    const rows = await queryRows<{ metric: string; kind: string; value: number }>(store.connection, "SELECT metric, kind, value FROM {{database}}.collector_health FINAL WHERE instance = 'test-instance' ORDER BY ts, metric");
    assert.deepEqual(rows, [
      { metric: "open_traces", kind: "gauge", value: 7 },
      { metric: "spans_received", kind: "delta", value: 100 },
      { metric: "open_traces", kind: "gauge", value: 7 },
      { metric: "spans_received", kind: "delta", value: 30 },
    ]);
  });
});
