import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SourceDriver } from "../../../collector/03-consume/source-driver.js";
import { InProcessBus } from "../../../collector/02-transport/in-process/in-process-bus.js";
import { estimateSpanBytes } from "../../../collector/05-assemble/estimate-span-bytes.js";
import { ScriptedSink } from "../../support/scripted-sink.js";
import { scriptedWorker } from "../../support/scripted-worker.js";
import { spanRecord } from "../../support/span-records.js";

const traceId = (n: number) => n.toString(16).padStart(32, "0");

/** Waits for `condition` through event-loop turns only (no timers), failing after `turns` of them. */
async function until(condition: () => boolean, what: string, turns = 5_000): Promise<void> {
  for (let turn = 0; turn < turns; turn += 1) {
    if (condition()) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  assert.fail(`${what}: not within ${turns} event-loop turns`);
}

describe("source driver: reading while a write is in flight", () => {
  test("spans arriving during a write are buffered on arrival, and what was evaluated behind the write is written as soon as it resolves", async () => {
    const sink = new ScriptedSink();
    // The clock stands still: no quiet period or poll wait ends by time in this test, only by what the driver is told.
    const now = 1_000_000;
    const bus = new InProcessBus({ maxQueuedMessages: 100 });
    const worker = scriptedWorker({ sink, maxBatch: 10, clock: () => now });
    // A wait for input far longer than the test: a round that waited out its poll would time the test out.
    const driver = new SourceDriver(bus, worker, {
      idleWaitMs: 600_000,
      maxPoll: 10,
      retryDelayMs: 600_000,
      commitIntervalMs: 600_000,
      limits: { maxBufferedSpans: 100_000, maxHeapBytes: Number.MAX_SAFE_INTEGER },
      heapUsedBytes: () => 0,
      clock: () => now,
    });
    const publish = async (n: number, spanId: string, parentSpanId: string) => {
      const span = spanRecord({ traceId: traceId(n), spanId, parentSpanId });
      assert.ok((await bus.publishDecoded([{ key: traceId(n), spans: [span], bytes: estimateSpanBytes(span) }])).ok);
    };
    driver.start();
    try {
      await publish(1, "root1", "");
      await until(() => sink.writes.length === 1, "trace 1's write handed to the sink");

      // While that write is in flight: trace 2 completes, and a child span of trace 3 (its root not seen yet) arrives.
      await publish(2, "root2", "");
      await publish(3, "child3", "root3");
      await until(() => worker.assembler.openSpans === 1 && bus.depth === 0, "the spans read while the write is in flight");
      await until(() => worker.backlog === 2, "trace 2 evaluated behind the write");
      assert.equal(sink.writes.length, 1, "one write at a time");

      sink.succeed(0);
      await until(() => sink.writes.length === 2, "the next write started once the first resolved");
      assert.deepEqual(sink.writes[1]!.traceIds, [traceId(2)]);
      sink.succeed(1);
      await until(() => worker.backlog === 0, "trace 2 durable");
    } finally {
      // Stopping writes what is ready; trace 3 has no root and stays open, so nothing more is written.
      // (After a failed assertion, writes still waiting are let through, so that the stop ends.)
      let stopped = false;
      const stopping = driver.stop().then(() => (stopped = true));
      while (!stopped) {
        sink.succeedAll();
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await stopping;
    }
    assert.equal(sink.writes.length, 2);
    assert.equal(driver.error, null);
  });
});
