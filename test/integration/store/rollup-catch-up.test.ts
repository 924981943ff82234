/**
 * The rollups' catch-up on a store several processes write (a ClickHouse
 * server, or here one engine): a process that died between its write and its
 * refresh leaves Case Results newer than their minute's rollup, and a process
 * still writing refreshes them within CATCH_UP_INTERVAL_MS of its clock
 * (store/clickhouse/metric-rollups.ts). The dead process is a sink writing
 * with no rollups to tell; the live one has its clock injected, so "an hour
 * later" is a value, not a wait. What a killed process leaves at the next open
 * is tested with a real SIGKILL in rollup-catch-up-after-kill.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { CATCH_UP_INTERVAL_MS, ClickHouseMetricRollups } from "../../../store/clickhouse/metric-rollups.js";
import { seedEvaluation } from "../../support/case-results.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

let store: TemporaryStore;

before(async () => {
  store = await temporaryStore();
});

after(async () => {
  await store.cleanup();
});

/** Requests in one minute: as request_rollups FINAL counts them, and as case_results FINAL holds them. */
async function requestsIn(minute: string): Promise<{ rolledUp: number; raw: number }> {
  const [rolledUp] = await queryRows<{ requests: string }>(store.connection, "SELECT toString(sum(all_requests)) AS requests FROM {{database}}.request_rollups FINAL WHERE minute = toDateTime({minute:String}, 'UTC')", { minute });
  const [raw] = await queryRows<{ requests: string }>(store.connection, "SELECT toString(count()) AS requests FROM {{database}}.case_results FINAL WHERE toStartOfMinute(started_at) = toDateTime({minute:String}, 'UTC')", { minute });
  return { rolledUp: Number(rolledUp?.requests ?? 0), raw: Number(raw?.requests ?? 0) };
}

test("a writing process refreshes, an hour of its clock later, the minute another process wrote and never refreshed", async () => {
  let offsetMs = 0;
  const live = new ClickHouseMetricRollups(store.connection, { now: () => Date.now() + offsetMs });
  const liveSink = new ClickHouseSink(store.connection, { rollups: live });
  // A process that wrote and died before its refresh: its writes tell no rollups.
  const deadSink = new ClickHouseSink(store.connection);

  // As openClickHouseStore does when the live process opens the store: nothing to catch up yet.
  assert.equal(await live.catchUp(), 0);
  assert.ok((await liveSink.write([seedEvaluation("cr_live_1", "2026-07-08T09:40:05.000Z")])).ok);
  await live.refresh();
  assert.deepEqual(await requestsIn("2026-07-08 09:40:00"), { rolledUp: 1, raw: 1 });

  // The dead process's two requests in the same minute, inserted after the live process refreshed it.
  assert.ok((await deadSink.write([seedEvaluation("cr_orphan_1", "2026-07-08T09:40:20.000Z"), seedEvaluation("cr_orphan_2", "2026-07-08T09:40:40.000Z")])).ok);

  // Within the hour the live process refreshes only the minutes it wrote: 09:40 still counts 1 of its 3.
  offsetMs = CATCH_UP_INTERVAL_MS - 60_000;
  assert.ok((await liveSink.write([seedEvaluation("cr_live_2", "2026-07-08T09:50:05.000Z")])).ok);
  await live.refresh();
  assert.deepEqual(await requestsIn("2026-07-08 09:40:00"), { rolledUp: 1, raw: 3 });

  // An hour after its last catch-up, its next write catches up; closing waits for it and refreshes what is pending.
  offsetMs = CATCH_UP_INTERVAL_MS;
  assert.ok((await liveSink.write([seedEvaluation("cr_live_3", "2026-07-08T09:55:05.000Z")])).ok);
  await live.close();
  assert.deepEqual(await requestsIn("2026-07-08 09:40:00"), { rolledUp: 3, raw: 3 });
  assert.deepEqual(await requestsIn("2026-07-08 09:55:00"), { rolledUp: 1, raw: 1 });
});
