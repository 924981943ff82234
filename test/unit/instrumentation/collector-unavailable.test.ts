/**
 * The SDK never breaks the application: with the collector down (connection
 * refused) or slow (accepts, never answers), an instrumented request returns
 * the same value in about the same time as with a healthy collector, and the
 * spans that cannot be sent are counted, with the queue bounded.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { setupRagscope, type RagscopeHandle } from "../../../instrumentation/index.js";
import { wrappedRequest } from "../../bench/rag-request-fixture.js";
import { closedEndpoint, startTestReceiver, type TestReceiver } from "./otlp-test-receiver.js";

// Short export and OTLP timeouts so the test does not wait for the 10 s defaults.
process.env.OTEL_BSP_SCHEDULE_DELAY = "5";
process.env.OTEL_BSP_EXPORT_TIMEOUT = "1000";
process.env.OTEL_EXPORTER_OTLP_TIMEOUT = "1000";
const MAX_QUEUE_SIZE = 2048; // the default (OTEL_BSP_MAX_QUEUE_SIZE)

const REQUESTS = 300;

/** Median and the values of REQUESTS sequential requests. */
async function timedRequests(): Promise<{ medianMs: number; answers: Set<string> }> {
  const durations: number[] = [];
  const answers = new Set<string>();
  for (let index = 0; index < REQUESTS; index += 1) {
    const start = performance.now();
    answers.add(await wrappedRequest());
    durations.push(performance.now() - start);
  }
  durations.sort((left, right) => left - right);
  return { medianMs: durations[Math.floor(durations.length / 2)]!, answers };
}

async function withRagscope<Value>(endpoint: string, work: (handle: RagscopeHandle) => Promise<Value>): Promise<Value> {
  const handle = setupRagscope({ endpoint, serviceName: "unavailable-test" });
  try {
    return await work(handle);
  } finally {
    await handle.shutdown();
  }
}

describe("collector down or slow", () => {
  let healthy: TestReceiver;
  let slow: TestReceiver;
  before(async () => {
    healthy = await startTestReceiver();
    slow = await startTestReceiver("never-answer");
  });
  after(async () => {
    await healthy.close();
    await slow.close();
  });

  test("same answers, about the same time, losses counted and bounded", async () => {
    const reference = await withRagscope(healthy.endpoint, async (handle) => {
      await timedRequests(); // warm-up: JIT, connections
      const measured = await timedRequests();
      await handle.forceFlush();
      const statistics = handle.statistics();
      assert.equal(statistics.failed, 0, JSON.stringify(statistics));
      // A tight loop can outrun one exporter; what does not fit the queue is counted, never lost silently.
      assert.equal(statistics.exported + statistics.droppedQueueFull, 2 * REQUESTS * 7, JSON.stringify(statistics));
      assert.equal(healthy.spans.length, statistics.exported);
      return measured;
    });

    for (const [label, endpoint] of [["refused", await closedEndpoint()], ["never answers", slow.endpoint]] as const) {
      await withRagscope(endpoint, async (handle) => {
        await timedRequests();
        const measured = await timedRequests();
        assert.deepEqual(measured.answers, reference.answers, `${label}: the application gets the same answers`);
        // Same speed: nothing in the request waits for the exporter. The bound is
        // generous (scheduling noise on a shared machine), the reference is the
        // same SDK with a healthy collector.
        assert.ok(
          measured.medianMs <= reference.medianMs * 1.5 + 0.3,
          `${label}: median ${measured.medianMs.toFixed(3)} ms vs ${reference.medianMs.toFixed(3)} ms with a healthy collector`,
        );
        const statistics = handle.statistics();
        assert.ok(statistics.queued <= MAX_QUEUE_SIZE, `${label}: the queue stays bounded (${statistics.queued})`);
        await assert.rejects(handle.forceFlush(), /could not be exported/);
        const after = handle.statistics();
        assert.equal(after.exported, 0, label);
        assert.ok(after.failed + after.droppedQueueFull > 0, `${label}: lost spans are counted`);
      });
    }
  });
});
