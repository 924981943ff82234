/**
 * A trace's quiet period counts from when the collector received its last
 * span, not from when the evaluation loop read it: spans that waited in the
 * in-process queue while the loop was busy (a write in flight) have had their
 * quiet period running meanwhile. The loop releases traces only through the
 * time up to which it has read everything, so a span still queued is never
 * left out of its trace; while reading is paused the clock decides, as
 * releasing traces is what lets reading resume.
 *
 * The parts the embedded collector runs (in-process bus, source driver,
 * evaluation worker, the embedded engine as the sink) on one injected clock,
 * which the test moves by hand.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { InProcessBus } from "../../../collector/02-transport/in-process/in-process-bus.js";
import { SourceDriver } from "../../../collector/03-consume/source-driver.js";
import { estimateSpanBytes } from "../../../collector/05-assemble/estimate-span-bytes.js";
import { EvaluationWorker } from "../../../collector/07-evaluate/evaluation-worker.js";
import { MemoryDeadLetters } from "../../../collector/07-evaluate/memory-dead-letters.js";
import type { SpanRecord } from "../../../collector/00-otlp/span-record.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { spanRecord } from "../../support/span-records.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const QUIET_PERIOD_MS = 2_000;
const START = Date.parse("2026-11-30T10:00:00Z");
const traceId = (n: number) => n.toString(16).padStart(32, "0");

let temporary: TemporaryStore;
before(async () => {
  temporary = await temporaryStore();
});
after(async () => {
  await temporary.cleanup();
});

function pipeline(options: { maxPoll: number; maxBufferedSpans?: number }) {
  let now = START;
  const clock = () => now;
  /** What the worker reports as each durable trace's freshness (ragscope_trace_freshness_seconds in the collector). */
  const freshness: number[] = [];
  const worker = new EvaluationWorker({
    assembler: { quietPeriodMs: QUIET_PERIOD_MS, maxTraceWaitMs: 60_000, maxOpenSpans: 100_000, recentTraceMemory: 100 },
    registry: createDefaultRegistry(),
    cases: temporary.store.cases,
    sink: temporary.store.results,
    deadLetters: new MemoryDeadLetters(),
    sinkRetry: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 1, deadlineMs: 10 },
    maxBatch: 100,
    clock,
    freshness: { observe: (seconds) => freshness.push(seconds) },
  });
  const bus = new InProcessBus({ maxQueuedMessages: 100, progress: worker.progress, clock });
  const driver = new SourceDriver(bus, worker, {
    idleWaitMs: 5,
    maxPoll: options.maxPoll,
    retryDelayMs: 10,
    commitIntervalMs: 60_000,
    limits: { maxBufferedSpans: options.maxBufferedSpans ?? 100_000, maxHeapBytes: Number.MAX_SAFE_INTEGER },
    clock,
  });
  /** Publishes spans as one decoded message, received at the clock's time. */
  const receive = async (spans: SpanRecord[]) => {
    const published = await bus.publishDecoded([{ key: spans[0]!.traceId, spans, bytes: spans.reduce((sum, span) => sum + estimateSpanBytes(span), 0) }]);
    assert.ok(published.ok, "the bus took the message");
  };
  /** Waits (real time, bounded) until `condition` holds, with the injected clock standing still. */
  const until = async (condition: () => boolean, what: string) => {
    for (let waited = 0; !condition(); waited += 5) {
      if (waited > 20_000) assert.fail(`timed out waiting until ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  /** Lets the loop run `rounds` more rounds. */
  const rounds = async (count: number) => {
    const target = driver.counters.rounds + count;
    await until(() => driver.counters.rounds >= target, `${count} more rounds`);
  };
  return {
    worker,
    freshness,
    bus,
    driver,
    receive,
    until,
    rounds,
    setClock: (value: number) => {
      now = value;
    },
  };
}

const root = (n: number) => spanRecord({ traceId: traceId(n), spanId: `00000000000000a${n}`, parentSpanId: "", name: "rag.request" });
const child = (n: number) => spanRecord({ traceId: traceId(n), spanId: `00000000000000b${n}`, parentSpanId: `00000000000000a${n}`, name: "retrieve" });

async function storedSpanCounts(traceIds: string[]): Promise<Map<string, number>> {
  const rows = await queryRows<{ trace_id: string; spans: string }>(
    temporary.connection,
    `SELECT trace_id, span_count AS spans FROM ${temporary.connection.database}.trace_spans FINAL WHERE trace_id IN {ids:Array(String)}`,
    { ids: traceIds },
  );
  return new Map(rows.map((row) => [row.trace_id, Number(row.spans)]));
}

// A loop that cannot release what it read spins without yielding to timers: the time-out makes that a failure, not a hang.
describe("the quiet period counts from when a span was received", { timeout: 60_000 }, () => {
  test("a trace whose last span waited in the queue past its quiet period is released as soon as the loop reads it", async () => {
    const { worker, freshness, driver, receive, until, setClock } = pipeline({ maxPoll: 100 });
    await receive([root(1), child(1)]);
    // The loop was busy (a write in flight) for longer than the quiet period: it reads the message only now.
    setClock(START + QUIET_PERIOD_MS + 100);
    driver.start();
    try {
      // The clock stands still: counted from the read, the quiet period would not end before START + 4,100.
      await until(() => worker.counters.tracesEvaluated === 1, "the trace is evaluated");
      await until(() => worker.progress.committable().get(0) === "1", "its write is durable");
      assert.equal(worker.assembler.counters.partialTraces, 0);
      assert.deepEqual([...(await storedSpanCounts([traceId(1)]))], [[traceId(1), 2]]);
      // Stored at START + 2,100, its last span received at START: the wait in the queue counts.
      assert.deepEqual(freshness, [2.1]);
    } finally {
      await driver.stop();
    }
  });

  test("a trace is not released while a span of it received within its quiet period is still unread", async () => {
    const { worker, freshness, bus, driver, receive, until, rounds, setClock } = pipeline({ maxPoll: 1 });
    await receive([root(2)]);
    setClock(START + 1_500);
    await receive([child(2)]);
    // Both wait in the queue; the loop reads one message a round. Its first round has the root only, and the
    // clock is past the root's quiet period, but the child (received 1,500 ms after it) is still unread.
    setClock(START + QUIET_PERIOD_MS + 100);
    driver.start();
    try {
      await until(() => bus.depth === 0, "both messages are read");
      await rounds(3);
      assert.equal(worker.assembler.counters.tracesReleased, 0, "not released: its quiet period runs from the child, received at START + 1,500");
      setClock(START + 1_500 + QUIET_PERIOD_MS);
      await until(() => worker.counters.tracesEvaluated === 1, "the trace is evaluated");
      await until(() => worker.progress.committable().get(0) === "2", "its write is durable");
      assert.equal(worker.assembler.counters.reopenedTraces, 0, "evaluated once, with both spans");
      assert.deepEqual([...(await storedSpanCounts([traceId(2)]))], [[traceId(2), 2]]);
      // Counted from the child, the last span received.
      assert.deepEqual(freshness, [2]);
    } finally {
      await driver.stop();
    }
  });

  test("while reading is paused, the clock releases traces, so reading resumes", async () => {
    // One open span pauses reading (buffered spans); only releasing the trace lets it resume.
    const { worker, bus, driver, receive, until, setClock } = pipeline({ maxPoll: 1, maxBufferedSpans: 1 });
    await receive([root(3)]);
    setClock(START + 1_000);
    await receive([root(4)]);
    setClock(START + QUIET_PERIOD_MS + 100);
    driver.start();
    try {
      // Trace 3 is read, reading pauses with trace 4 unread (received at START + 1,000). Released by what was read
      // (START + 1,000), trace 3 would wait for a read that waits for it.
      await until(() => worker.counters.tracesEvaluated >= 1, "trace 3 is evaluated");
      await until(() => bus.depth === 0, "reading resumed and took trace 4");
      assert.ok(driver.counters.rounds > 0);
      setClock(START + 1_000 + QUIET_PERIOD_MS);
      await until(() => worker.counters.tracesEvaluated === 2, "trace 4 is evaluated");
      await until(() => worker.progress.committable().get(0) === "2", "both writes are durable");
      assert.deepEqual([...(await storedSpanCounts([traceId(3), traceId(4)]))].sort(), [[traceId(3), 1], [traceId(4), 1]]);
    } finally {
      await driver.stop();
    }
  });
});
