/**
 * No drops at a moderate rate into a real collector: an application process's
 * worth of RAG requests (8 spans each, ten 500-character chunks) through
 * `setupRagscope` with default settings into the embedded collector's
 * OTLP/HTTP receiver. Every span is exported and acknowledged: the SDK's
 * counts and the receiver's are equal to the spans emitted, and none was
 * dropped or lost. Counts only, no timing.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { setupRagscope } from "../../../instrumentation/index.js";
import { eightSpanRequest, SPANS_PER_REQUEST } from "../../bench/eight-span-request.js";
import { startCollectorForTests, type CollectorForTests } from "../../support/embedded-collector-for-tests.js";

const REQUESTS = 400;

describe("export into the embedded collector", () => {
  let running: CollectorForTests;
  before(async () => {
    running = await startCollectorForTests();
  });
  after(async () => running.stop());

  test("every span emitted at a moderate rate is exported and acknowledged: nothing dropped, nothing lost", async () => {
    // Counts, not timing: the collector runs in this process on a shared machine, so its answers get all the time they need.
    const handle = setupRagscope({ endpoint: running.collector.receiverUrl, serviceName: "export-test", flushOnExit: false, exportLimits: { exportTimeoutMillis: 120_000, shutdownTimeoutMillis: 300_000 } });
    try {
      for (let index = 0; index < REQUESTS; index += 1) {
        await eightSpanRequest(index);
        // A request's worth of work elsewhere: the exports get their turns, as in a server.
        if (index % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 1));
      }
    } finally {
      await handle.shutdown();
    }
    const emitted = REQUESTS * SPANS_PER_REQUEST;
    const statistics = handle.statistics();
    assert.deepEqual(statistics, { queued: 0, exported: emitted, droppedQueueFull: 0, failed: 0, sampledOut: 0, droppedAfterShutdown: 0 });
    const counters = running.collector.receiverCounters;
    assert.equal(counters.spansAccepted, emitted, "the receiver acknowledged every span");
    assert.equal(counters.spansReceived, emitted, "and received each once");
  });
});
