import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TraceAssembler } from "../../../collector/05-assemble/trace-assembler.js";
import { spanRecord } from "../../support/span-records.js";

const options = { quietPeriodMs: 100, maxTraceWaitMs: 1_000, maxOpenSpans: 100, recentTraceMemory: 10 };
const root = spanRecord({ spanId: "1000000000000001", name: "rag.request" });
const child = (id: string) => spanRecord({ spanId: id, parentSpanId: "1000000000000001", name: "rag.retrieve" });

describe("trace assembly", () => {
  test("a trace is released once its root arrived and the quiet period passed", () => {
    const assembler = new TraceAssembler(options);
    assembler.add([child("2000000000000002")], 0);
    assembler.add([root], 50);
    assert.deepEqual(assembler.collectReady(149), [], "still inside the quiet period");
    const [trace] = assembler.collectReady(150);
    assert.ok(trace);
    assert.equal(trace.complete, true);
    assert.equal(trace.reason, "complete");
    assert.equal(trace.spans.length, 2);
  });

  test("children arriving after the root (split across requests, out of order) join the same trace", () => {
    const assembler = new TraceAssembler(options);
    assembler.add([root], 0);
    assembler.add([child("2000000000000003")], 60);
    assembler.add([child("2000000000000002")], 120);
    assert.deepEqual(assembler.collectReady(200), [], "each new span restarts the quiet period");
    const [trace] = assembler.collectReady(220);
    assert.deepEqual(trace!.spans.map((span) => span.spanId).sort(), ["1000000000000001", "2000000000000002", "2000000000000003"]);
  });

  test("a trace whose root never ends is released at its deadline, flagged partial", () => {
    const assembler = new TraceAssembler(options);
    assembler.add([child("2000000000000002")], 0);
    assert.deepEqual(assembler.collectReady(999), []);
    const [trace] = assembler.collectReady(1_000);
    assert.equal(trace!.complete, false);
    assert.equal(trace!.reason, "deadline");
    assert.equal(assembler.counters.partialTraces, 1);
  });

  test("the same span twice is kept once", () => {
    const assembler = new TraceAssembler(options);
    assembler.add([root, child("2000000000000002")], 0);
    assembler.add([root, child("2000000000000002")], 10);
    const [trace] = assembler.collectReady(500);
    assert.equal(trace!.spans.length, 2);
    assert.equal(assembler.counters.duplicateSpans, 2);
  });

  test("late spans re-open a released trace with all its spans", () => {
    const assembler = new TraceAssembler(options);
    assembler.add([root], 0);
    assert.equal(assembler.collectReady(200).length, 1);
    assembler.add([child("2000000000000009")], 300);
    const [again] = assembler.collectReady(500);
    assert.equal(again!.reopened, true);
    assert.equal(again!.complete, true);
    assert.equal(again!.spans.length, 2);
  });

  test("memory stays bounded: past maxOpenSpans the oldest traces are released, flagged", () => {
    const assembler = new TraceAssembler({ ...options, maxOpenSpans: 3 });
    for (let index = 0; index < 5; index += 1) {
      assembler.add([spanRecord({ traceId: `${index}`.padStart(32, "a"), spanId: "3000000000000001", parentSpanId: "ffffffffffffffff" })], index);
    }
    const released = assembler.collectReady(10);
    assert.equal(released.length, 2);
    assert.ok(released.every((trace) => trace.reason === "memory_bound" && !trace.complete));
    assert.equal(assembler.openSpans, 3);
  });

  test("sources (bus positions) travel with the trace", () => {
    const assembler = new TraceAssembler<string>(options);
    assembler.add([child("2000000000000002")], 0, "p0@1");
    assembler.add([root], 10, "p0@2");
    const [trace] = assembler.collectReady(200);
    assert.deepEqual(trace!.sources, ["p0@1", "p0@2"]);
  });
});
