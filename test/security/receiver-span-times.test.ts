/**
 * Spans stamped in the future: a span of year 2262 sat above every real trace
 * in the newest-first list, and the live list (which watches the newest start)
 * stopped seeing traces arrive; one of year 2554 was stored but never listed
 * (past what the store's time type holds). The receiver now rejects a span
 * whose start or end lies more than RAGSCOPE_MAX_FUTURE_SPAN_SECONDS (3,600)
 * after its clock, as OTLP rejects part of a request: 200 with partial_success
 * naming why, counted in /metrics; the request's other spans are kept. Sent
 * over real OTLP/HTTP (JSON and protobuf) to the embedded collector, results
 * read back from its store. Times are the real clock's plus or minus whole
 * hours or centuries, so the outcome never depends on when the test runs.
 *
 * Spans with a zero (unset) start or end time, or one before 2000 (a
 * millisecond clock written where OTLP wants nanoseconds): one put the report's default
 * range at 1970 (a QPS of 0.0000002) and sorted oddly in lists and boards.
 * Refused the same way, counted under reason zero_time, on serve's path (the
 * embedded collector) and on receive's (a bus of bytes, whose splitter reads
 * the times' bytes); a span of days ago, a replay, is kept.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { exportTraceServiceResponseType } from "../../collector/00-otlp/otlp-protobuf-types.js";
import { decodeTraceRequest, encodeTraceRequest } from "../../collector/00-otlp/index.js";
import { toSpanRecords } from "../../collector/00-otlp/to-span-records.js";
import { startReceiver, type RunningReceiver } from "../../collector/01-receive/start-receiver.js";
import { MetricsRegistry, readSample } from "../../collector/wiring/observe/metrics-registry.js";
import type { EmbeddedCollector } from "../../collector/wiring/run/embedded-collector.js";
import { startCollectorForTests, type CollectorForTests } from "../support/embedded-collector-for-tests.js";
import { queryRows } from "../support/temporary-store.js";
import { recordAttack, residentMemoryMb } from "../support/attack-report.js";
import { CollectingPublisher } from "../integration/receive/collecting-publisher.js";

const HOUR_NANOS = 3_600_000_000_000n;
const nowNanos = () => BigInt(Date.now()) * 1_000_000n;
const YEAR_2262 = 9_200_000_000_000_000_000n;
/** Near the end of what an unsigned 64-bit count of nanoseconds holds (2554), past what the store's DateTime64 holds (2299). */
const YEAR_2554 = 18_400_000_000_000_000_000n;

const traceId = (index: number) => (index + 1).toString(16).padStart(32, "c");
const spanId = (index: number) => (index + 1).toString(16).padStart(16, "d");

function span(index: number, start: bigint, end: bigint, query: string) {
  return {
    traceId: traceId(index),
    spanId: spanId(index),
    name: "rag.request",
    kind: 1,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(end),
    attributes: [
      { key: "openinference.span.kind", value: { stringValue: "CHAIN" } },
      { key: "input.value", value: { stringValue: query } },
    ],
  };
}

const request = (spans: readonly object[]) => ({ resourceSpans: [{ resource: { attributes: [{ key: "service.name", value: { stringValue: "span-times" } }] }, scopeSpans: [{ spans }] }] });

/**
 * An embedded collector for the describe block that calls this, started before its tests and stopped after;
 * `registry` receives its metrics. `storedQueries`: the queries of the traces it stored, newest first.
 */
function collectorOfBlock(registry?: MetricsRegistry) {
  let running: CollectorForTests;
  before(async () => {
    running = await startCollectorForTests(registry === undefined ? {} : { registry });
  });
  after(async () => running.stop());
  return {
    get collector(): EmbeddedCollector {
      return running.collector;
    },
    async storedQueries(): Promise<string[]> {
      assert.ok(await running.collector.waitUntilIdle(20_000), "the collector did not become idle");
      const page = await running.collector.store.traces.listTraces({ service: "span-times" }, { after: null, limit: 50 });
      return page.traces.map((trace) => trace.query ?? "");
    },
  };
}

describe("spans stamped in the future", () => {
  const block = collectorOfBlock();
  const { storedQueries } = block;

  test("OTLP/JSON: spans of 2262, of 2554 and two hours ahead are rejected as a partial success saying why; the others are kept", async () => {
    const now = nowNanos();
    const body = request([
      span(1, YEAR_2262, YEAR_2262 + 1_000n, "year 2262"),
      span(2, YEAR_2554, YEAR_2554 + 1_000n, "year 2554"),
      span(3, now, now + 2n * HOUR_NANOS, "ends two hours ahead"),
      span(4, now - HOUR_NANOS, now - HOUR_NANOS + 1_000_000n, "an hour ago"),
      span(5, now + HOUR_NANOS / 2n, now + HOUR_NANOS / 2n + 1_000_000n, "half an hour ahead, within the allowance"),
    ]);
    const response = await fetch(`${block.collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    assert.equal(response.status, 200);
    const answer = (await response.json()) as { partialSuccess?: { rejectedSpans: string; errorMessage: string } };
    assert.equal(answer.partialSuccess?.rejectedSpans, "3");
    assert.match(answer.partialSuccess!.errorMessage, /^3 span\(s\) starting or ending more than 3600 s after the receiver's clock were rejected: check the sending host's clock \(NTP\)/);
    assert.equal(block.collector.receiverCounters.spansRejectedFutureTime, 3);
    assert.deepEqual(await storedQueries(), ["half an hour ahead, within the allowance", "an hour ago"], "newest first: no future-stamped trace above the real ones");
    const stored = await queryRows<{ trace_id: string }>(block.collector.store.connection, "SELECT trace_id FROM {{database}}.case_results WHERE trace_id IN {ids:Array(String)}", { ids: [traceId(1), traceId(2), traceId(3)] });
    assert.deepEqual(stored, [], "nothing of the rejected spans was stored");
    recordAttack({ attack: "spans stamped in 2262 and 2554 (OTLP/JSON)", outcome: "200 partial_success rejected_spans 3 naming the clock; the others stored", peakRssMb: residentMemoryMb() });
  });

  test("protobuf, one future span among a trace's spans: the answer's partial_success counts it; a request with none is a plain success", async () => {
    const now = nowNanos();
    const decoded = decodeTraceRequest(new TextEncoder().encode(JSON.stringify(request([span(6, YEAR_2262, YEAR_2262, "future"), span(7, now, now + 1_000_000n, "now")]))), "json");
    assert.ok(decoded.ok);
    const response = await fetch(`${block.collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: encodeTraceRequest(decoded.value) });
    assert.equal(response.status, 200);
    const answer = exportTraceServiceResponseType.toObject(exportTraceServiceResponseType.decode(new Uint8Array(await response.arrayBuffer())), { longs: Number }) as { partialSuccess?: { rejectedSpans: number; errorMessage: string } };
    assert.equal(answer.partialSuccess?.rejectedSpans, 1);
    assert.match(answer.partialSuccess!.errorMessage, /starting or ending more than 3600 s after the receiver's clock/);
    const queries = await storedQueries();
    assert.ok(queries.includes("now"), "the trace's other span is kept");
    assert.ok(!queries.includes("future"));

    const plain = decodeTraceRequest(new TextEncoder().encode(JSON.stringify(request([span(8, now, now + 1_000_000n, "plain")]))), "json");
    assert.ok(plain.ok);
    const accepted = await fetch(`${block.collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: encodeTraceRequest(plain.value) });
    const acceptedAnswer = exportTraceServiceResponseType.toObject(exportTraceServiceResponseType.decode(new Uint8Array(await accepted.arrayBuffer())), { longs: Number }) as { partialSuccess?: { rejectedSpans: number } };
    assert.equal(acceptedAnswer.partialSuccess?.rejectedSpans ?? 0, 0);
    assert.equal(block.collector.receiverCounters.spansRejectedFutureTime, 4);
  });
});

const DAY_NANOS = 24n * HOUR_NANOS;
const ZERO_TIME_MESSAGE = /span\(s\) with a zero \(unset\) start or end time, or one before 2000, were rejected: OTLP requires both times, in Unix nanoseconds/;
/** A millisecond clock read where OTLP wants Unix nanoseconds: 2026-01-01 in milliseconds is 1970-01-01T00:29:27Z. */
const MILLISECONDS_AS_NANOS = 1_767_225_600_000n;

/** The request's span with its start and end times left out, as a client with no clock sends it (0 once decoded). */
function withoutTimes(index: number, query: string) {
  const { startTimeUnixNano: _start, endTimeUnixNano: _end, ...rest } = span(index, 1n, 1n, query);
  return rest;
}

/** A JSON request as protobuf, the way an SDK's exporter sends it. */
function protobufOf(json: object): Uint8Array {
  const decoded = decodeTraceRequest(new TextEncoder().encode(JSON.stringify(json)), "json");
  assert.ok(decoded.ok);
  return encodeTraceRequest(decoded.value);
}

async function partialSuccessOf(response: Response): Promise<{ rejectedSpans: number; errorMessage: string } | undefined> {
  const answer = exportTraceServiceResponseType.toObject(exportTraceServiceResponseType.decode(new Uint8Array(await response.arrayBuffer())), { longs: Number }) as { partialSuccess?: { rejectedSpans: number; errorMessage: string } };
  return answer.partialSuccess;
}

describe("spans with a zero (unset) start or end time", () => {
  const registry = new MetricsRegistry();
  const block = collectorOfBlock(registry);
  const { storedQueries } = block;

  test("OTLP/JSON: a zero start, a zero end, times left out and times in milliseconds (1970) are rejected as a partial success saying why, beside a future span, counted in /metrics as zero_time; a replay of days ago is kept", async () => {
    const now = nowNanos();
    const body = request([
      span(11, 0n, now, "zero start"),
      span(12, now, 0n, "zero end"),
      withoutTimes(13, "times left out"),
      span(19, MILLISECONDS_AS_NANOS, MILLISECONDS_AS_NANOS + 250n, "milliseconds where nanoseconds belong"),
      span(14, YEAR_2262, YEAR_2262 + 1_000n, "year 2262"),
      span(15, now - 3n * DAY_NANOS, now - 3n * DAY_NANOS + 1_000_000n, "a replay of three days ago"),
      span(16, now, now + 1_000_000n, "now"),
    ]);
    const response = await fetch(`${block.collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    assert.equal(response.status, 200);
    const answer = (await response.json()) as { partialSuccess?: { rejectedSpans: string; errorMessage: string } };
    assert.equal(answer.partialSuccess?.rejectedSpans, "5");
    assert.match(answer.partialSuccess!.errorMessage, /^1 span\(s\) starting or ending more than 3600 s after the receiver's clock were rejected: .*; 4 span\(s\) with a zero \(unset\) start or end time, or one before 2000, were rejected: OTLP requires both times, in Unix nanoseconds/);
    assert.equal(block.collector.receiverCounters.spansRejectedZeroTime, 4);
    assert.equal(block.collector.receiverCounters.spansRejectedFutureTime, 1);
    const metrics = registry.render();
    assert.equal(readSample(metrics, "ragscope_receiver_spans_rejected_total", { reason: "zero_time" }), 4);
    assert.equal(readSample(metrics, "ragscope_receiver_spans_rejected_total", { reason: "future_time" }), 1);
    assert.match(metrics, /^# HELP ragscope_receiver_spans_rejected_total .*a zero \(unset\) or pre-2000 start or end time/m);
    assert.deepEqual(await storedQueries(), ["now", "a replay of three days ago"], "no span of 1970 among them; the replay kept");
    const stored = await queryRows<{ trace_id: string }>(block.collector.store.connection, "SELECT trace_id FROM {{database}}.case_results WHERE trace_id IN {ids:Array(String)}", { ids: [traceId(11), traceId(12), traceId(13), traceId(14), traceId(19)] });
    assert.deepEqual(stored, [], "nothing of the rejected spans was stored");
  });

  test("protobuf, a span without an end among its trace's spans: the answer's partial_success counts it, the trace's other span is kept", async () => {
    const now = nowNanos();
    const zeroEnd = span(17, now, 0n, "no end");
    const response = await fetch(`${block.collector.receiverUrl}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/x-protobuf" },
      body: protobufOf(request([zeroEnd, { ...span(18, now, now + 1_000_000n, "same trace, timed"), traceId: zeroEnd.traceId }])),
    });
    assert.equal(response.status, 200);
    const partialSuccess = await partialSuccessOf(response);
    assert.equal(partialSuccess?.rejectedSpans, 1);
    assert.match(partialSuccess!.errorMessage, ZERO_TIME_MESSAGE);
    const queries = await storedQueries();
    assert.ok(queries.includes("same trace, timed"), "the trace's other span is kept");
    assert.ok(!queries.includes("no end"));
    assert.equal(block.collector.receiverCounters.spansRejectedZeroTime, 5);
    assert.equal(readSample(registry.render(), "ragscope_receiver_spans_rejected_total", { reason: "zero_time" }), 5);
  });
});

describe("spans with a zero time, on receive's path (a bus of bytes: the request cut by copying its bytes)", () => {
  const publisher = new CollectingPublisher();
  let receiver: RunningReceiver;
  before(async () => {
    receiver = await startReceiver({ host: "127.0.0.1", port: 0, publisher });
  });
  after(async () => receiver.close());

  test("protobuf: spans with a zero start, a zero end or no times are rejected as a partial success and never published; the others are", async () => {
    const now = nowNanos();
    const body = protobufOf(
      request([
        span(21, 0n, now, "zero start"),
        { ...span(22, now, 0n, "zero end"), traceId: traceId(21) },
        withoutTimes(23, "times left out"),
        { ...span(24, now, now + 1_000_000n, "timed, beside the zero start"), traceId: traceId(21) },
        span(25, now - 3n * DAY_NANOS, now - 3n * DAY_NANOS + 1_000_000n, "a replay of three days ago"),
      ]),
    );
    const response = await fetch(`${receiver.url}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body });
    assert.equal(response.status, 200);
    const partialSuccess = await partialSuccessOf(response);
    assert.equal(partialSuccess?.rejectedSpans, 3);
    assert.match(partialSuccess!.errorMessage, new RegExp(`^3 ${ZERO_TIME_MESSAGE.source}`));
    const published = publisher.messages.flatMap((message) => {
      const decoded = decodeTraceRequest(message.value, "protobuf");
      assert.ok(decoded.ok);
      return toSpanRecords(decoded.value).map((record) => record.spanId);
    });
    assert.deepEqual(published.sort(), [spanId(24), spanId(25)].sort());
    assert.equal(receiver.counters.spansRejectedZeroTime, 3);
    assert.equal(receiver.counters.spansAccepted, 2);
  });
});
