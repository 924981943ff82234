/**
 * The SDK never breaks the application: with the collector down (connection
 * refused) or slow (accepts, never answers), an instrumented request returns
 * the same value and waits for the collector no more than with a healthy one,
 * and the spans that cannot be sent are counted, with the queue bounded.
 *
 * "Waits no more" is measured without a clock, so a busy machine cannot change
 * it: the number of event-loop turns each request spans. Waiting for an
 * export (an answer, a refused connection, a timeout) takes at least one turn;
 * a request that only queues its spans takes none.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_EXPORT_LIMITS, setupRagscope, type RagscopeHandle } from "../../../instrumentation/index.js";
import { wrappedRequest } from "../../bench/rag-request-fixture.js";
import { closedEndpoint, startTestReceiver, type TestReceiver } from "./otlp-test-receiver.js";

// Short export and OTLP timeouts so the test does not wait for the 10 s defaults.
process.env.OTEL_BSP_SCHEDULE_DELAY = "5";
process.env.OTEL_BSP_EXPORT_TIMEOUT = "1000";
process.env.OTEL_EXPORTER_OTLP_TIMEOUT = "1000";
const MAX_QUEUE_SIZE = DEFAULT_EXPORT_LIMITS.maxQueueSize; // the default (OTEL_BSP_MAX_QUEUE_SIZE)

const REQUESTS = 300;

/** Event-loop turns (check phases) that pass while `work` runs. */
async function turnsDuring<Value>(work: () => Promise<Value>): Promise<{ value: Value; turns: number }> {
  let turns = 0;
  let done = false;
  const count = () => {
    if (done) return;
    turns += 1;
    setImmediate(count);
  };
  setImmediate(count);
  try {
    return { value: await work(), turns };
  } finally {
    done = true;
  }
}

/** The most event-loop turns one of REQUESTS sequential requests spanned, and their answers. */
async function measuredRequests(): Promise<{ maxTurns: number; answers: Set<string> }> {
  let maxTurns = 0;
  const answers = new Set<string>();
  for (let index = 0; index < REQUESTS; index += 1) {
    const { value, turns } = await turnsDuring(wrappedRequest);
    answers.add(value);
    maxTurns = Math.max(maxTurns, turns);
  }
  return { maxTurns, answers };
}

async function withRagscope<Value>(endpoint: string, work: (handle: RagscopeHandle) => Promise<Value>, exportTimeoutMillis?: number): Promise<Value> {
  const handle = setupRagscope({ endpoint, serviceName: "unavailable-test", exportLimits: { exportTimeoutMillis } });
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

  test("same answers, no waiting for the collector, losses counted and bounded", async () => {
    const reference = await withRagscope(healthy.endpoint, async (handle) => {
      await measuredRequests(); // exports are under way while the measured requests run
      const measured = await measuredRequests();
      await handle.forceFlush();
      const statistics = handle.statistics();
      assert.equal(statistics.failed, 0, JSON.stringify(statistics));
      // A tight loop can outrun one exporter; what does not fit the queue is counted, never lost silently.
      assert.equal(statistics.exported + statistics.droppedQueueFull, 2 * REQUESTS * 7, JSON.stringify(statistics));
      assert.equal(healthy.spans.length, statistics.exported);
      assert.equal(measured.maxTurns, 0, "a request only queues its spans: it never yields to the event loop");
      return measured;
      // The healthy collector decodes in this process, which the test's tight loops hold: its answers get the default time.
    }, 10_000);

    for (const [label, endpoint] of [["refused", await closedEndpoint()], ["never answers", slow.endpoint]] as const) {
      await withRagscope(endpoint, async (handle) => {
        await measuredRequests();
        const measured = await measuredRequests();
        assert.deepEqual(measured.answers, reference.answers, `${label}: the application gets the same answers`);
        // Nothing in the request waits for the exporter: no request spans more
        // event-loop turns than with a healthy collector (the same SDK).
        assert.ok(measured.maxTurns <= reference.maxTurns, `${label}: a request spanned ${measured.maxTurns} event-loop turns, ${reference.maxTurns} with a healthy collector`);
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
