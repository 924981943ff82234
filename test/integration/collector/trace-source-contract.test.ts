/**
 * The TraceSource contract (test/support/trace-source-contract.ts) against
 * the in-process bus, the embedded transport, written both ways it is
 * written: encoded messages, and the decoded span records the receiver
 * publishes to it. Not durable: the suite checks that it says so and
 * behaves so.
 *
 * And what the receiver hands this bus: decoded span records (not bytes to
 * decode again), equal to decoding each trace's message.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeTraceRequest, toSpanRecords } from "../../../collector/00-otlp/index.js";
import type { SpanRecord } from "../../../collector/00-otlp/span-record.js";
import { storedSpanText } from "../../../collector/00-otlp/stored-span-text.js";
import { startReceiver } from "../../../collector/01-receive/start-receiver.js";
import { InProcessBus } from "../../../collector/02-transport/in-process/in-process-bus.js";
import type { ProgressTracker } from "../../../collector/03-consume/progress-tracker.js";
import { traceSourceContract, type TransportUnderTest } from "../../support/trace-source-contract.js";
import { otlpBody, recordTraces } from "../kafka/support/synthetic-traces.js";
import { waitUntil } from "../../support/kafka-helpers.js";

for (const publishes of ["encoded", "decoded"] as const) {
  traceSourceContract(`in-process bus (${publishes})`, async () => {
    const maxQueuedMessages = 100;
    let progress: ProgressTracker | undefined;
    // The process: a crash ends it, and the restarted one has a new, empty bus.
    let bus = new InProcessBus({ maxQueuedMessages, progress: { committable: () => progress?.committable() ?? new Map() } });
    let opened = false;
    const transport: TransportUnderTest = {
      capabilities: bus.capabilities,
      publishes,
      get publisher() {
        return bus;
      },
      async openSource(tracker) {
        if (opened) bus = new InProcessBus({ maxQueuedMessages, progress: { committable: () => progress?.committable() ?? new Map() } });
        opened = true;
        progress = tracker;
        const source = bus;
        return { source, crash: async () => {}, close: async () => {} };
      },
      async fullPublisher() {
        const full = new InProcessBus({ maxQueuedMessages: 2 });
        const filled = await full.publish([
          { key: null, value: new Uint8Array([1]) },
          { key: null, value: new Uint8Array([2]) },
        ]);
        if (!filled.ok) throw new Error(filled.error.message);
        return full;
      },
      async close() {},
    };
    return transport;
  });
}

test("the receiver hands the in-process bus each trace's decoded span records, with their stored text, equal to decoding the trace's own message", async () => {
  const traces = await recordTraces(3);
  const bus = new InProcessBus({ maxQueuedMessages: 100 });
  const receiver = await startReceiver({ host: "127.0.0.1", port: 0, publisher: bus });
  try {
    // One request holding the three traces, as an SDK's batch does.
    const response = await fetch(`${receiver.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/x-protobuf" },
      body: otlpBody(traces.flatMap((trace) => trace.spans), "protobuf"),
    });
    assert.equal(response.status, 200);
    const records = bus.takeAll();
    assert.deepEqual(
      records.map((record) => record.kind),
      ["decoded", "decoded", "decoded"],
      "records, not bytes",
    );
    for (const [index, trace] of traces.entries()) {
      const record = records.find((candidate) => candidate.kind === "decoded" && candidate.traceIds[0] === trace.traceId);
      assert.ok(record !== undefined && record.kind === "decoded", `trace ${index} handed over`);
      const alone = decodeTraceRequest(otlpBody(trace.spans, "protobuf"), "protobuf");
      assert.ok(alone.ok);
      // With each span's stored text (trace_spans) made in the decode thread too: UTF-8, views of one buffer a trace
      // that the thread transferred (compared as text: a view and a Buffer of the same bytes differ in prototype).
      const withText = (spans: readonly SpanRecord[]) => spans.map((span) => ({ ...span, stored: span.stored === undefined ? undefined : { text: Buffer.from(span.stored.utf8).toString("utf8"), truncated: span.stored.truncated } }));
      assert.deepEqual(
        withText(record.spans),
        withText(toSpanRecords(alone.value).map((span) => ({ ...span, stored: storedSpanText(span) }))),
      );
      assert.equal(new Set(record.spans.map((span) => span.stored!.utf8.buffer)).size, 1, "one buffer for the trace's texts");
    }
  } finally {
    await receiver.close();
  }
});

test("the in-process queue is bounded in bytes: with no wait for room the receiver answers 503 with Retry-After past the bound, an empty queue always takes a request, and reading frees the bytes", async () => {
  const traces = await recordTraces(3);
  const bus = new InProcessBus({ maxQueuedMessages: 100, maxQueuedBytes: 1024, maxPublishWaitMs: 0 });
  const receiver = await startReceiver({ host: "127.0.0.1", port: 0, publisher: bus });
  const send = (index: number) =>
    fetch(`${receiver.url}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: otlpBody(traces[index]!.spans, "protobuf") });
  try {
    // One trace's records are estimated far above 1 KiB: taken all the same, because the queue is empty.
    assert.equal((await send(0)).status, 200);
    assert.ok(bus.bytes > 1024, `the queue counts the trace's estimated bytes (${bus.bytes})`);
    const refused = await send(1);
    assert.equal(refused.status, 503);
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    assert.equal(bus.depth, 1, "the refused request left nothing in the queue");
    assert.equal(bus.takeAll().length, 1);
    assert.equal(bus.bytes, 0);
    assert.equal((await send(1)).status, 200, "taken once the queue was read");
  } finally {
    await receiver.close();
  }
});

test("a request admitted while the queue had room that no longer fits once decoded waits for the reader and is answered 200, not refused after its decoding", async () => {
  const traces = await recordTraces(1);
  const bound = 64 * 1024 * 1024;
  const bus = new InProcessBus({ maxQueuedMessages: 100, maxQueuedBytes: bound, maxPublishWaitMs: 60_000 });
  const receiver = await startReceiver({ host: "127.0.0.1", port: 0, publisher: bus });
  try {
    // Another request's traces leave 100 bytes of room: enough to be admitted, far too little for a decoded trace.
    assert.equal((await bus.publishDecoded([{ key: "0".repeat(32), spans: [], bytes: bound - 100 }])).ok, true);
    const waiting = fetch(`${receiver.url}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: otlpBody(traces[0]!.spans, "protobuf") });
    await waitUntil(() => bus.waitingPublishes === 1 || undefined, { description: "the request to wait for room", timeoutMs: 30_000, intervalMs: 5 });
    assert.equal(receiver.counters.rejected.publishUnavailable, 0);
    assert.equal(bus.takeAll().length, 1);
    assert.equal((await waiting).status, 200, "taken once the reader made room");
    assert.equal(bus.depth, 1);
    assert.equal(bus.counters.waitedForRoom, 1);
    assert.equal(receiver.counters.rejected.publishUnavailable, 0);
  } finally {
    await receiver.close();
  }
});

test("while the in-process queue is full a request is refused before its body is read: 503 with Retry-After, nothing decoded", async () => {
  const traces = await recordTraces(2);
  const bus = new InProcessBus({ maxQueuedMessages: 1, maxQueuedBytes: 64 * 1024 * 1024 });
  const receiver = await startReceiver({ host: "127.0.0.1", port: 0, publisher: bus });
  const post = (body: Uint8Array) => fetch(`${receiver.url}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body });
  // Not OTLP: read and decoded, it is a 400.
  const garbage = new Uint8Array(512).fill(0xff);
  try {
    assert.equal((await post(otlpBody(traces[0]!.spans, "protobuf"))).status, 200);
    const received = receiver.counters.spansReceived;
    const refused = await post(garbage);
    assert.equal(refused.status, 503, "refused for the full queue, not judged on its body");
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    assert.match(await refused.text(), /in-process queue is full/);
    assert.equal(receiver.counters.spansReceived, received, "nothing of the refused request was decoded");
    assert.equal(receiver.counters.rejected.publishUnavailable, 1);
    assert.equal(bus.takeAll().length, 1);
    assert.equal((await post(garbage)).status, 400, "with room, the same body is read and found malformed");
    assert.equal((await post(otlpBody(traces[1]!.spans, "protobuf"))).status, 200);
  } finally {
    await receiver.close();
  }
});

test("while reading is paused for the heap, the in-process queue takes no more (503 before the body is read); paused for another reason it takes what fits", async () => {
  const traces = await recordTraces(3);
  const bus = new InProcessBus({ maxQueuedMessages: 100, maxQueuedBytes: 64 * 1024 * 1024 });
  const receiver = await startReceiver({ host: "127.0.0.1", port: 0, publisher: bus });
  const send = (index: number) =>
    fetch(`${receiver.url}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: otlpBody(traces[index]!.spans, "protobuf") });
  try {
    assert.equal((await send(0)).status, 200);
    bus.pause("heap");
    const refused = await send(1);
    assert.equal(refused.status, 503);
    assert.match(await refused.text(), /heap is near its bound/);
    assert.equal(bus.depth, 1);
    bus.resume();
    bus.pause("sink_backlog");
    assert.equal((await send(1)).status, 200, "a backlog in the sink leaves the queue to its own bounds");
    bus.resume();
    assert.equal(bus.takeAll().length, 2);
    bus.pause("heap");
    assert.equal((await send(2)).status, 200, "an empty queue takes a request even then, so none is refused forever");
  } finally {
    await receiver.close();
  }
});
