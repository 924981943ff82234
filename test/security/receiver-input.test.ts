/**
 * Requests the receiver used to accept in ways that hurt: all-zero ids merged
 * unrelated traces; more traces than the in-process queue holds got 503
 * forever (clients retried the same batch until they gave up); a span that
 * ends before it starts gave a negative latency. Sent over real OTLP/HTTP to
 * the embedded collector, results read back from the store.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import { decodeTraceRequest } from "../../collector/00-otlp/index.js";
import { exportTraceServiceResponseType } from "../../collector/00-otlp/otlp-protobuf-types.js";
import { encodeTraceRequest } from "../../collector/00-otlp/index.js";
import type { EmbeddedCollector } from "../../collector/wiring/run/embedded-collector.js";
import { startCollectorForTests, type CollectorForTests } from "../support/embedded-collector-for-tests.js";
import { queryRows } from "../support/temporary-store.js";
import { recordAttack, residentMemoryMb } from "../support/attack-report.js";

const QUEUE = 5;

function span(traceId: string, spanId: string, options: { start?: string; end?: string; query?: string } = {}) {
  return {
    traceId,
    spanId,
    name: "rag.request",
    kind: 1,
    startTimeUnixNano: options.start ?? "1700000000000000000",
    endTimeUnixNano: options.end ?? "1700000000100000000",
    attributes: [
      { key: "openinference.span.kind", value: { stringValue: "CHAIN" } },
      { key: "input.value", value: { stringValue: options.query ?? "q" } },
    ],
  };
}

function request(spans: ReturnType<typeof span>[]) {
  return { resourceSpans: [{ resource: { attributes: [{ key: "service.name", value: { stringValue: "receiver-input" } }] }, scopeSpans: [{ spans }] }] };
}

const traceId = (index: number) => (index + 1).toString(16).padStart(32, "a");
const spanId = (index: number) => (index + 1).toString(16).padStart(16, "b");

describe("receiver input that used to hurt", () => {
  let running: CollectorForTests;
  let collector: EmbeddedCollector;
  before(async () => {
    running = await startCollectorForTests({ fixed: { "queue.maxQueuedMessages": QUEUE } });
    collector = running.collector;
  });
  after(async () => running.stop());

  async function stored(id: string) {
    assert.ok(await collector.waitUntilIdle(20_000), "the collector did not become idle");
    const rows = await queryRows<{ payload: string }>(collector.store.connection, "SELECT payload FROM {{database}}.case_results FINAL WHERE trace_id = {id:String}", { id });
    return rows.map((row) => caseResultSchema.parse(JSON.parse(row.payload)));
  }

  test("spans with an all-zero trace or span id are rejected as a partial success (JSON); the valid span is stored", async () => {
    const body = request([span("0".repeat(32), spanId(1)), span(traceId(2), "0".repeat(16)), span(traceId(3), spanId(3), { query: "kept" })]);
    const response = await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    assert.equal(response.status, 200);
    const answer = (await response.json()) as { partialSuccess?: { rejectedSpans: string; errorMessage: string } };
    assert.equal(answer.partialSuccess?.rejectedSpans, "2");
    assert.match(answer.partialSuccess!.errorMessage, /all-zero trace id or span id/);
    assert.equal(collector.receiverCounters.spansRejectedInvalidId, 2);
    assert.equal((await stored(traceId(3)))[0]?.rag_observation.query, "kept");
    assert.deepEqual(await stored("0".repeat(32)), [], "nothing stored under the invalid trace id");
    recordAttack({ attack: "all-zero trace id and span id (OTLP/JSON)", outcome: "200 partial_success rejected_spans 2, valid span stored", peakRssMb: residentMemoryMb() });
  });

  test("the same over protobuf: partial_success in the protobuf answer", async () => {
    const decoded = decodeTraceRequest(new TextEncoder().encode(JSON.stringify(request([span("0".repeat(32), spanId(4)), span(traceId(5), spanId(5))]))), "json");
    assert.ok(decoded.ok);
    const response = await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: encodeTraceRequest(decoded.value) });
    assert.equal(response.status, 200);
    const answer = exportTraceServiceResponseType.toObject(exportTraceServiceResponseType.decode(new Uint8Array(await response.arrayBuffer())), { longs: Number }) as { partialSuccess?: { rejectedSpans: number } };
    assert.equal(answer.partialSuccess?.rejectedSpans, 1);
  });

  test("a request with more traces than the queue holds gets 413 naming the limit, not 503 forever; one that fits is accepted", async () => {
    const tooMany = request(Array.from({ length: QUEUE + 1 }, (_, index) => span(traceId(100 + index), spanId(100 + index))));
    const refused = await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(tooMany) });
    assert.equal(refused.status, 413);
    assert.equal(refused.headers.get("retry-after"), null, "no retry invited");
    assert.match(((await refused.json()) as { message: string }).message, new RegExp(`holds ${QUEUE + 1} traces, more than the in-process queue holds \\(${QUEUE}, RAGSCOPE_MAX_QUEUED_MESSAGES\\)`));
    const fits = request(Array.from({ length: QUEUE }, (_, index) => span(traceId(200 + index), spanId(200 + index))));
    assert.equal((await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(fits) })).status, 200);
    recordAttack({ attack: "more traces in one request than the queue holds", outcome: "413 naming the limit (was 503 forever)", peakRssMb: residentMemoryMb() });
  });

  test("a span that ends before it starts: stored with latency null and a note, never a negative duration", async () => {
    const body = request([span(traceId(300), spanId(300), { start: "1700000000100000000", end: "1700000000000000000" })]);
    assert.equal((await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).status, 200);
    const [result] = await stored(traceId(300));
    assert.ok(result);
    assert.equal(result.rag_observation.latency_ms, null);
    assert.ok(result.rag_observation.stage_timings.every((timing) => timing.duration_ms >= 0));
    assert.deepEqual(result.rag_observation.malformed_attributes.map((note) => note.attribute), ["end_time_unix_nano"]);
    const latency = await queryRows<{ latency: number | null }>(collector.store.connection, "SELECT latency_ms AS latency FROM {{database}}.case_results FINAL WHERE trace_id = {id:String}", { id: traceId(300) });
    assert.deepEqual(latency, [{ latency: null }], "the dashboards' column holds no negative latency");
    recordAttack({ attack: "span that ends before it starts", outcome: "stored, latency null, noted", peakRssMb: residentMemoryMb() });
  });
});
