/**
 * Events that came as OTLP log records, held with their trace and joined to their spans at release
 * (trace-assembler.ts): before or after the spans, sent twice, for a span the trace lacks, for a trace whose spans
 * never come, and after the trace was released (re-opened).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { LogEventRecord } from "../../../collector/00-otlp/log-event-record.js";
import { TraceAssembler } from "../../../collector/05-assemble/trace-assembler.js";
import { spanRecord } from "../../support/span-records.js";

const options = { quietPeriodMs: 100, maxTraceWaitMs: 1_000, maxOpenSpans: 100, recentTraceMemory: 10 };
const root = spanRecord({ spanId: "1000000000000001", name: "invoke_workflow rag" });
const chat = spanRecord({ spanId: "2000000000000002", parentSpanId: "1000000000000001", name: "chat gpt-4o" });

function choiceEvent(overrides: Partial<LogEventRecord> = {}): LogEventRecord {
  return {
    traceId: root.traceId,
    spanId: chat.spanId,
    name: "gen_ai.choice",
    timeUnixNano: 1_783_503_000_005_000_000n,
    attributes: { "gen_ai.system": "openai" },
    body: { index: 0, finish_reason: "stop", message: { role: "assistant", content: "Up to five days." } },
    tenant: null,
    ...overrides,
  };
}

const eventsOf = (spans: readonly { spanId: string; events: readonly { name: string; body?: unknown }[] }[], spanId: string) => spans.find((span) => span.spanId === spanId)?.events;

describe("log events in trace assembly", () => {
  test("an event that arrives before its spans opens the trace, keeps it open, and is joined to its span with its body", () => {
    const assembler = new TraceAssembler(options);
    assembler.add([], 0, undefined, [choiceEvent()]);
    assert.deepEqual(assembler.collectReady(500), [], "no root yet: the trace waits for its spans");
    assembler.add([root, chat], 500);
    const [trace] = assembler.collectReady(600);
    assert.equal(trace?.complete, true);
    assert.deepEqual(eventsOf(trace!.spans, chat.spanId), [{ name: "gen_ai.choice", timeUnixNano: 1_783_503_000_005_000_000n, attributes: { "gen_ai.system": "openai" }, body: choiceEvent().body }]);
    assert.deepEqual(eventsOf(trace!.spans, root.spanId), [], "only the span its id names");
    assert.equal(assembler.counters.logEventsAccepted, 1);
  });

  test("an event restarts the quiet period as a span does, and joins after the span's own events, in time order", () => {
    const assembler = new TraceAssembler(options);
    const withOwnEvent = { ...chat, events: [{ name: "own", timeUnixNano: 1n, attributes: {} }] };
    assembler.add([root, withOwnEvent], 0);
    assembler.add([], 80, undefined, [choiceEvent({ timeUnixNano: 9n, name: "second" }), choiceEvent({ timeUnixNano: 3n, name: "first" })]);
    assert.deepEqual(assembler.collectReady(150), [], "the events came 80 ms after the spans: still quiet");
    const [trace] = assembler.collectReady(180);
    assert.deepEqual(eventsOf(trace!.spans, chat.spanId)?.map((event) => event.name), ["own", "first", "second"]);
  });

  test("a record sent twice is one event", () => {
    const assembler = new TraceAssembler(options);
    assembler.add([root, chat], 0, undefined, [choiceEvent()]);
    assembler.add([], 10, undefined, [choiceEvent()]);
    const [trace] = assembler.collectReady(200);
    assert.equal(eventsOf(trace!.spans, chat.spanId)?.length, 1);
    assert.deepEqual([assembler.counters.logEventsAccepted, assembler.counters.duplicateLogEvents], [1, 1]);
  });

  test("an event of a span the trace does not have is counted, and joins that span when it comes late", () => {
    const assembler = new TraceAssembler(options);
    assembler.add([root], 0, undefined, [choiceEvent()]);
    const [first] = assembler.collectReady(100);
    assert.equal(first?.spans.length, 1);
    assert.equal(assembler.counters.logEventsWithoutSpan, 1);
    assembler.add([chat], 150);
    const [again] = assembler.collectReady(250);
    assert.equal(again?.reopened, true);
    assert.equal(eventsOf(again!.spans, chat.spanId)?.length, 1, "remembered with the trace, joined once the span came");
  });

  test("an event that arrives after its trace was released re-opens it, joined once; the remembered spans stay as received", () => {
    const assembler = new TraceAssembler(options);
    assembler.add([root, chat], 0);
    const [first] = assembler.collectReady(100);
    assert.deepEqual(eventsOf(first!.spans, chat.spanId), []);
    assembler.add([], 150, undefined, [choiceEvent()]);
    const [again] = assembler.collectReady(250);
    assert.equal(again?.reopened, true);
    assert.equal(eventsOf(again!.spans, chat.spanId)?.length, 1);
    assert.deepEqual(chat.events, [], "the span record itself is not changed");
  });

  test("a trace of events alone (its spans never came) is released as nothing to evaluate, its events counted", () => {
    const assembler = new TraceAssembler(options);
    assembler.add([], 0, undefined, [choiceEvent(), choiceEvent({ name: "gen_ai.user.message", body: { content: "q" } })]);
    assert.deepEqual(assembler.collectReady(1_000), []);
    assert.equal(assembler.openTraces, 0);
    assert.equal(assembler.counters.logEventsWithoutTrace, 2);
    assert.equal(assembler.counters.tracesReleased, 0);
    // Its spans after all, later than the deadline: the events join them, and the trace is no re-opened one (never evaluated).
    assembler.add([root, chat], 1_100);
    const [late] = assembler.collectReady(1_300);
    assert.equal(late?.reopened, false);
    assert.equal(assembler.counters.reopenedTraces, 0);
    assert.equal(eventsOf(late!.spans, chat.spanId)?.length, 2, "both records join the chat span");
  });

  test("events are grouped by tenant as spans are: another tenant's event with the same ids joins nothing of this trace", () => {
    const assembler = new TraceAssembler(options);
    assembler.add([root, chat], 0, undefined, [choiceEvent({ tenant: "other" })]);
    const ready = assembler.collectReady(1_000);
    assert.equal(ready.length, 1);
    assert.deepEqual(eventsOf(ready[0]!.spans, chat.spanId), []);
    assert.equal(assembler.counters.logEventsWithoutTrace, 1);
  });

  test("the events' bytes count in the open bytes and are given back at release", () => {
    const assembler = new TraceAssembler(options);
    assembler.add([root, chat], 0);
    const spansOnly = assembler.openBytes;
    assembler.add([], 10, undefined, [choiceEvent()]);
    assert.ok(assembler.openBytes > spansOnly);
    assembler.collectReady(200);
    assert.equal(assembler.openBytes, 0);
  });

  test("over the memory bound, events whose spans have not come are released before a trace of spans, and still join their spans later", () => {
    const otherTrace = (index: number) => `${String(index).padStart(4, "0")}0000000000000000000000000000`;
    const measure = new TraceAssembler(options);
    measure.add([chat], 0);
    const traceBytes = measure.openBytes;
    measure.add([], 0, undefined, [choiceEvent({ traceId: otherTrace(1) })]);
    const eventBytes = measure.openBytes - traceBytes;
    // Room for the trace of spans and two events.
    const assembler = new TraceAssembler({ ...options, maxOpenBytes: traceBytes + 2 * eventBytes });
    assembler.add([chat], 0);
    assembler.add([], 10, undefined, [1, 2, 3, 4].map((index) => choiceEvent({ traceId: otherTrace(index) })));
    assert.deepEqual(assembler.collectReady(20), [], "nothing evaluated: only events were released");
    assert.equal(assembler.counters.partialTraces, 0, "the trace of spans, the oldest, was not cut short");
    assert.deepEqual([assembler.openTraces, assembler.counters.logEventsWithoutTrace], [3, 2]);
    // The spans of a released event's trace come: the event, remembered, joins them.
    assembler.add([{ ...root, traceId: otherTrace(1) }, { ...chat, traceId: otherTrace(1) }], 30);
    const released = assembler.collectReady(200);
    const joined = released.find((trace) => trace.traceId === otherTrace(1));
    assert.deepEqual(eventsOf(joined!.spans, chat.spanId)?.map((event) => event.name), ["gen_ai.choice"]);
  });
});
