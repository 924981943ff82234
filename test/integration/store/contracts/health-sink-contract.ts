/** The HealthSink contract. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { HealthRow } from "../../../../store/ports/health-sink.js";
import type { StoreFactory, StoreUnderTest } from "./store-under-test.js";

export function healthSinkContract(name: string, factory: StoreFactory): void {
  describe(`HealthSink: ${name}`, () => {
    let subject: StoreUnderTest;
    before(async () => {
      subject = await factory({ now: () => Date.now() });
    });
    after(() => subject.cleanup());

    test("rows are kept as written; the same snapshot written twice is kept once", async () => {
      // Recent: the ClickHouse table keeps 30 days.
      const ts = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000).toISOString();
      const rows: HealthRow[] = [
        { ts, instance: "host:1", role: "evaluator", metric: "spans_received", kind: "delta", value: 30 },
        { ts, instance: "host:1", role: "evaluator", metric: "open_traces", kind: "gauge", value: 7 },
      ];
      assert.deepEqual(await subject.store.health.write(rows), { ok: true, value: undefined });
      assert.deepEqual(await subject.store.health.write(rows), { ok: true, value: undefined });
      const key = (row: HealthRow) => row.metric;
      assert.deepEqual((await subject.healthRows()).sort((first, second) => (key(first) < key(second) ? -1 : 1)), [...rows].sort((first, second) => (key(first) < key(second) ? -1 : 1)));
    });
  });
}
