import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { EvaluationWorker } from "../../../collector/07-evaluate/evaluation-worker.js";
import { MemoryDeadLetters } from "../../../collector/07-evaluate/memory-dead-letters.js";
import type { ResultSink, SinkFailure } from "../../../store/ports/result-sink.js";
import { failure, success, type Result } from "../../../core/result.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import type { CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { estimateSpanBytes } from "../../../collector/05-assemble/estimate-span-bytes.js";
import { spanRecord } from "../../support/span-records.js";

/** A sink whose writes resolve when the test says so; it records what it was given and how many writes overlapped. */
class ScriptedSink implements ResultSink {
  readonly writes: { traceIds: string[]; evaluations: readonly CaseEvaluation[]; settle: (result: Result<void, SinkFailure>) => void }[] = [];
  private active = 0;
  maxActive = 0;

  write(batch: readonly CaseEvaluation[]): Promise<Result<void, SinkFailure>> {
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    return new Promise((resolve) => {
      this.writes.push({
        traceIds: batch.map((evaluation) => evaluation.caseResult.trace_id),
        evaluations: batch,
        settle: (result) => {
          this.active -= 1;
          resolve(result);
        },
      });
    });
  }

  succeed(index: number): void {
    this.writes[index]!.settle(success(undefined));
  }

  fail(index: number): void {
    this.writes[index]!.settle(failure({ retriable: true, message: "the engine is down" }));
  }

  async close(): Promise<void> {}
}

const traceId = (n: number) => n.toString(16).padStart(32, "0");

/** A span of a RAG request: the root is the SDK's request span, a child its retrieval. */
const requestSpan = (fields: { traceId: string; spanId: string; parentSpanId: string }) =>
  spanRecord({ ...fields, attributes: { "ragscope.stage": fields.parentSpanId === "" ? "request" : "retrieve" } });

/** A sink with a bug: every write throws. */
class ThrowingSink extends ScriptedSink {
  override write(): Promise<Result<void, SinkFailure>> {
    return Promise.reject(new Error("a bug in the sink"));
  }
}

function setup(options: { maxBatch: number; maxBatchBytes?: number; sink?: ScriptedSink }) {
  const sink = options.sink ?? new ScriptedSink();
  let now = 1_000_000;
  const worker = new EvaluationWorker({
    assembler: { quietPeriodMs: 0, maxTraceWaitMs: 60_000, maxOpenSpans: 100_000, recentTraceMemory: 100 },
    registry: createDefaultRegistry(),
    cases: { get: async () => null, put: async () => ({ stored: new Set() }), listSplit: async () => [] },
    sink,
    deadLetters: new MemoryDeadLetters(),
    // One attempt: a failure is final for this round, so the test decides what happens next.
    sinkRetry: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 1, deadlineMs: 10 },
    maxBatch: options.maxBatch,
    ...(options.maxBatchBytes === undefined ? {} : { maxBatchBytes: options.maxBatchBytes }),
    clock: () => now,
  });
  /** One message at `offset` of partition 0 with the root span of trace `n` (or a child of it); each a request's (rag-request-evidence.ts). */
  const receive = (n: number, offset: number, spanId = `root${n}`, parentSpanId = "") =>
    worker.accept([requestSpan({ traceId: traceId(n), spanId, parentSpanId })], [traceId(n)], { partition: 0, offset: String(offset) }, now);
  const committable = () => worker.progress.committable().get(0);
  /** Lets pending promise callbacks and I/O turns run. */
  const turns = async (count = 5) => {
    for (let turn = 0; turn < count; turn += 1) await new Promise<void>((resolve) => setImmediate(resolve));
  };
  return {
    sink,
    worker,
    receive,
    committable,
    turns,
    setClock: (value: number) => {
      now = value;
    },
  };
}

describe("evaluation worker: pipelined writes", () => {
  test("a write holds at most maxBatchBytes of traces (estimated), and at least one trace, so large traces never make one insert body too long", async () => {
    // A bound a little above one span's estimate: each write takes one trace, though the count would allow ten.
    const oneSpan = estimateSpanBytes(requestSpan({ traceId: traceId(1), spanId: "root1", parentSpanId: "" }));
    const { sink, worker, receive, committable, turns } = setup({ maxBatch: 10, maxBatchBytes: Math.ceil(oneSpan * 1.5) });
    for (let n = 1; n <= 3; n += 1) receive(n, n - 1);
    const round = worker.processReady(true);
    for (let index = 0; index < 3; index += 1) {
      for (let turn = 0; turn < 100 && sink.writes.length <= index; turn += 1) await turns(1);
      assert.equal(sink.writes.length, index + 1, `write ${index + 1} handed over`);
      assert.deepEqual(sink.writes[index]!.traceIds, [traceId(index + 1)], "one trace a write");
      sink.succeed(index);
    }
    assert.equal(await round, true);
    assert.equal(committable(), "3");
    assert.equal(worker.counters.tracesEvaluated, 3);
  });

  test("under the byte bound, the count bounds a write as before", async () => {
    const { sink, worker, receive, turns } = setup({ maxBatch: 2, maxBatchBytes: 64 * 1024 * 1024 });
    for (let n = 1; n <= 3; n += 1) receive(n, n - 1);
    const round = worker.processReady(true);
    for (let turn = 0; turn < 100 && sink.writes.length < 1; turn += 1) await turns(1);
    assert.deepEqual(sink.writes[0]!.traceIds, [traceId(1), traceId(2)]);
    sink.succeed(0);
    for (let turn = 0; turn < 100 && sink.writes.length < 2; turn += 1) await turns(1);
    assert.deepEqual(sink.writes[1]!.traceIds, [traceId(3)]);
    sink.succeed(1);
    assert.equal(await round, true);
  });

  test("the next batch is evaluated while a write is in flight, and nothing is durable before its write resolved", async () => {
    const { sink, worker, receive, committable, turns, setClock } = setup({ maxBatch: 2 });
    receive(1, 0);
    receive(2, 1);
    assert.equal(await worker.processReady(), true);
    assert.equal(sink.writes.length, 1, "the write was handed over");
    assert.deepEqual(sink.writes[0]!.traceIds, [traceId(1), traceId(2)]);
    assert.equal(committable(), "0", "in flight is not durable");
    assert.equal(worker.backlog, 2);

    receive(3, 2);
    setClock(2_000_000);
    const round = worker.processReady();
    await turns();
    assert.equal(sink.writes.length, 1, "no second write while the first is in flight");
    assert.equal(worker.backlog, 3);
    assert.equal(worker.overflow, 0, "one batch in flight and one evaluated is the pipeline working: reading goes on");
    setClock(3_000_000);
    sink.succeed(0);
    assert.equal(await round, true);
    assert.equal(committable(), "2", "traces 1 and 2 durable; trace 3 not yet");
    assert.equal(sink.writes.length, 2);
    assert.equal(sink.writes[1]!.evaluations[0]!.evaluationResults[0]!.evaluated_at, new Date(2_000_000).toISOString(), "trace 3 was evaluated before the first write resolved");

    sink.succeed(1);
    assert.equal(await worker.settle(), true);
    assert.equal(committable(), "3");
    assert.equal(worker.backlog, 0);
    assert.equal(sink.maxActive, 1);
    assert.equal(worker.counters.tracesEvaluated, 3);
  });

  test("a failed write with the next batch evaluated behind it loses nothing, keeps the order, and pauses reading", async () => {
    const { sink, worker, receive, committable, turns } = setup({ maxBatch: 2 });
    receive(1, 0);
    receive(2, 1);
    await worker.processReady();
    receive(3, 2);
    receive(4, 3);
    const round = worker.processReady();
    await turns();
    sink.fail(0);
    assert.equal(await round, false);
    assert.equal(sink.writes.length, 1, "the later batch was not written past the failed one");
    assert.equal(committable(), "0");
    assert.equal(worker.backlog, 4, "all four results kept");
    assert.equal(worker.overflow, 4, "while the sink is down everything counts against reading");

    const retry = worker.processReady();
    await turns();
    assert.deepEqual(sink.writes[1]!.traceIds, [traceId(1), traceId(2)], "the failed batch goes first again");
    assert.equal(sink.writes.length, 2);
    sink.succeed(1);
    assert.equal(await retry, true);
    assert.equal(committable(), "2");
    assert.equal(worker.overflow, 0, "writes succeed again");
    assert.deepEqual(sink.writes[2]!.traceIds, [traceId(3), traceId(4)]);
    sink.succeed(2);
    assert.equal(await worker.settle(), true);
    assert.equal(committable(), "4");
    assert.equal(sink.maxActive, 1);
    assert.equal(worker.counters.tracesEvaluated, 4);
    assert.equal(worker.counters.sinkFailures, 1);
  });

  test("spans that re-open a trace while its result is being written keep their message uncommitted until the re-opened trace is written", async () => {
    const { sink, worker, receive, committable, setClock } = setup({ maxBatch: 10 });
    receive(1, 0);
    await worker.processReady();
    assert.equal(sink.writes.length, 1);
    receive(1, 1, "late-child", "root1");
    sink.succeed(0);
    assert.equal(await worker.settle(), true);
    assert.equal(committable(), "0", "message 1 feeds the re-opened trace, which is not written yet");

    setClock(2_000_000);
    await worker.processReady();
    assert.equal(sink.writes.length, 2);
    assert.equal(sink.writes[1]!.evaluations[0]!.caseResult.rag_observation.span_count, 2, "the re-opened trace carries both spans");
    sink.succeed(1);
    assert.equal(await worker.settle(), true);
    assert.equal(committable(), "2");
  });

  test("flushAll writes every batch in order and returns once everything is durable", async () => {
    const { sink, worker, receive, committable, turns } = setup({ maxBatch: 2 });
    for (let n = 1; n <= 5; n += 1) receive(n, n - 1);
    let flushed = false;
    const flush = worker.processReady(true).then((healthy) => {
      flushed = true;
      return healthy;
    });
    for (let index = 0; index < 3; index += 1) {
      await turns();
      assert.equal(flushed, false);
      assert.equal(sink.writes.length, index + 1);
      sink.succeed(index);
    }
    assert.equal(await flush, true);
    assert.deepEqual(
      sink.writes.map((write) => write.traceIds.length),
      [2, 2, 1],
    );
    assert.equal(committable(), "5");
    assert.equal(worker.backlog, 0);
  });

  test("an exception from the sink is rethrown to the caller, not left as an unhandled rejection", async () => {
    const { worker, receive, turns } = setup({ maxBatch: 2, sink: new ThrowingSink() });
    receive(1, 0);
    assert.equal(await worker.processReady(), true, "handed over");
    await turns();
    await assert.rejects(worker.settle(), /a bug in the sink/);
    assert.equal(worker.backlog, 1, "the result is kept");
  });
});
