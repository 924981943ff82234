/**
 * The real OpenTelemetry JS OTLP exporters, pointed at the receiver, deliver
 * their spans: protobuf (exporter-trace-otlp-proto) and JSON
 * (exporter-trace-otlp-http), through the SDK's span processors.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { context, SpanKind, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter as OtlpHttpJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { CompressionAlgorithm } from "@opentelemetry/otlp-exporter-base";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import type { SpanRecord } from "../../../collector/00-otlp/span-record.js";
import { toSpanRecords } from "../../../collector/00-otlp/to-span-records.js";
import { startReceiver, type RunningReceiver } from "../../../collector/01-receive/start-receiver.js";
import { CollectingPublisher } from "./collecting-publisher.js";

const token = "exporter-test-token";

/** Two traces: a request with a retrieval child, and a lone background span. */
function emitSpans(tracer: Tracer, label: string): { requestTraceId: string; backgroundTraceId: string } {
  const root = tracer.startSpan(`${label}.request`, { kind: SpanKind.SERVER, attributes: { "rag.label": label } });
  const child = tracer.startSpan(
    `${label}.retrieve`,
    { attributes: { "retrieval.top_k": 4, "retrieval.ids": ["a", "b"], "retrieval.score": 0.5 } },
    trace.setSpan(context.active(), root),
  );
  child.addEvent("retrieved", { count: 2 });
  child.setStatus({ code: SpanStatusCode.ERROR, message: "slow index" });
  child.end();
  root.end();
  const background = tracer.startSpan(`${label}.background`);
  background.end();
  return { requestTraceId: root.spanContext().traceId, backgroundTraceId: background.spanContext().traceId };
}

function publishedRecords(publisher: CollectingPublisher): SpanRecord[] {
  return publisher.messages.flatMap((message) => {
    const decoded = decodeTraceRequest(message.value, "protobuf");
    if (!decoded.ok) assert.fail(decoded.error.message);
    for (const record of toSpanRecords(decoded.value)) assert.equal(record.traceId, message.key);
    return toSpanRecords(decoded.value);
  });
}

async function exportThrough(processorFor: (exporter: SpanExporter) => SpanProcessor, exporter: SpanExporter, label: string) {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": `exporter-${label}` }),
    spanProcessors: [processorFor(exporter)],
  });
  const ids = emitSpans(provider.getTracer(`scope-${label}`, "1.0.0"), label);
  await provider.forceFlush();
  await provider.shutdown();
  return ids;
}

function checkDelivered(records: SpanRecord[], label: string, ids: { requestTraceId: string; backgroundTraceId: string }): void {
  const mine = records.filter((record) => record.name.startsWith(`${label}.`));
  assert.deepEqual(mine.map((record) => record.name).sort(), [`${label}.background`, `${label}.request`, `${label}.retrieve`]);
  const byName = new Map(mine.map((record) => [record.name, record]));
  const request = byName.get(`${label}.request`)!;
  const retrieve = byName.get(`${label}.retrieve`)!;
  assert.equal(request.traceId, ids.requestTraceId);
  assert.equal(request.kind, 2);
  assert.equal(retrieve.traceId, ids.requestTraceId);
  assert.equal(retrieve.parentSpanId, request.spanId);
  assert.deepEqual(retrieve.attributes, { "retrieval.top_k": 4, "retrieval.ids": ["a", "b"], "retrieval.score": 0.5 });
  assert.deepEqual(retrieve.status, { code: 2, message: "slow index" });
  assert.deepEqual(
    retrieve.events.map((event) => [event.name, event.attributes]),
    [["retrieved", { count: 2 }]],
  );
  assert.equal(byName.get(`${label}.background`)!.traceId, ids.backgroundTraceId);
  assert.deepEqual(request.resource["service.name"], `exporter-${label}`);
  assert.deepEqual(request.scope, { name: `scope-${label}`, version: "1.0.0" });
}

describe("real OTLP exporters → receiver", () => {
  const publisher = new CollectingPublisher();
  let receiver: RunningReceiver;
  let tracesUrl: string;

  before(async () => {
    receiver = await startReceiver({ host: "127.0.0.1", port: 0, authTokens: [token], publisher });
    tracesUrl = `${receiver.url}/v1/traces`;
  });
  after(async () => {
    await receiver.close();
  });

  test("exporter-trace-otlp-proto with a BatchSpanProcessor, gzip and a bearer token", async () => {
    const exporter = new OtlpProtoExporter({
      url: tracesUrl,
      headers: { authorization: `Bearer ${token}` },
      compression: CompressionAlgorithm.GZIP,
    });
    const ids = await exportThrough((target) => new BatchSpanProcessor(target), exporter, "proto");
    checkDelivered(publishedRecords(publisher), "proto", ids);
    assert.ok(publisher.messages.some((message) => message.key === ids.backgroundTraceId));
  });

  test("exporter-trace-otlp-http (JSON) with a SimpleSpanProcessor", async () => {
    const exporter = new OtlpHttpJsonExporter({ url: tracesUrl, headers: { authorization: `Bearer ${token}` } });
    const ids = await exportThrough((target) => new SimpleSpanProcessor(target), exporter, "json");
    checkDelivered(publishedRecords(publisher), "json", ids);
  });

  test("the exporter reads our answers: success, 401 as a failure, 503 retried until it succeeds", async () => {
    const recorder = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(recorder)] });
    emitSpans(provider.getTracer("answers"), "answers");
    const spans = recorder.getFinishedSpans();
    const exportOnce = (exporter: SpanExporter) =>
      new Promise<ExportResult>((resolve) => exporter.export(spans, resolve));

    const authorized = new OtlpProtoExporter({ url: tracesUrl, headers: { authorization: `Bearer ${token}` } });
    assert.equal((await exportOnce(authorized)).code, ExportResultCode.SUCCESS);

    const unauthorized = new OtlpProtoExporter({ url: tracesUrl, headers: { authorization: "Bearer wrong" } });
    const refused = await exportOnce(unauthorized);
    assert.equal(refused.code, ExportResultCode.FAILED);

    const before = publisher.messages.length;
    publisher.queuedFailures.push({ retriable: true, message: "broker restarting", retryAfterMs: 200 });
    const retried = await exportOnce(authorized);
    assert.equal(retried.code, ExportResultCode.SUCCESS);
    assert.equal(publisher.messages.length, before + 2, "two traces, published once, by the retry");
    assert.equal(receiver.counters.rejected.publishUnavailable, 1);

    await Promise.all([authorized.shutdown(), unauthorized.shutdown(), provider.shutdown()]);
  });
});
