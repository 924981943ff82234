/**
 * Bodies written by the real OpenTelemetry JS serializers (the ones the OTLP
 * exporters use) from real SDK spans must decode with everything intact.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { context, SpanKind, SpanStatusCode, trace, type HrTime, type Link } from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { countSpans } from "../../../collector/00-otlp/count-spans.js";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import type { SpanRecord } from "../../../collector/00-otlp/span-record.js";
import { toSpanRecords } from "../../../collector/00-otlp/to-span-records.js";
import type { TracesDocument } from "../../../collector/00-otlp/traces-document.js";

async function recordSdkSpans(): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "interop-service", "deployment.environment": "test" }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer("interop-scope", "3.2.1");
  const other = tracer.startSpan("other.trace");
  other.end();
  const link: Link = { context: other.spanContext(), attributes: { "link.kind": "follows" } };

  const root = tracer.startSpan("rag.request", { kind: SpanKind.SERVER, links: [link] });
  const parentContext = trace.setSpan(context.active(), root);
  const retrieve = tracer.startSpan(
    "rag.retrieve",
    {
      kind: SpanKind.CLIENT,
      attributes: {
        "input.value": "what is OTLP?",
        "retrieval.top_k": 5,
        "retrieval.score": 0.75,
        "retrieval.cached": true,
        "retrieval.document_ids": ["doc-1", "doc-2"],
        "retrieval.scores": [0.9, 0.5],
        "retrieval.flags": [true, false],
      },
    },
    parentContext,
  );
  retrieve.addEvent("retrieval.done", { "documents.count": 2, "retrieval.note": "ok" });
  retrieve.setStatus({ code: SpanStatusCode.ERROR, message: "index unavailable" });
  retrieve.end();
  root.setStatus({ code: SpanStatusCode.OK });
  root.end();
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

function decodeOrFail(body: Uint8Array, encoding: "protobuf" | "json"): TracesDocument {
  const result = decodeTraceRequest(body, encoding);
  if (!result.ok) assert.fail(result.error.message);
  return result.value;
}

/** OTLP numbers span kinds from 1 (internal); the API from 0. */
function otlpKind(kind: SpanKind): number {
  return kind + 1;
}

function nanoseconds(time: HrTime): bigint {
  return BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]);
}

function checkAgainstSdk(records: SpanRecord[], spans: ReadableSpan[]): void {
  assert.equal(records.length, spans.length);
  for (const span of spans) {
    const record = records.find((candidate) => candidate.spanId === span.spanContext().spanId);
    assert.ok(record, `span ${span.name} is missing`);
    assert.equal(record.traceId, span.spanContext().traceId);
    assert.equal(record.parentSpanId, span.parentSpanContext?.spanId ?? "");
    assert.equal(record.name, span.name);
    assert.equal(record.kind, otlpKind(span.kind));
    assert.equal(record.startTimeUnixNano, nanoseconds(span.startTime));
    assert.equal(record.endTimeUnixNano, nanoseconds(span.endTime));
    assert.deepEqual(record.attributes, span.attributes);
    assert.deepEqual(record.status, { code: span.status.code, message: span.status.message ?? "" });
    assert.deepEqual(
      record.events.map((event) => ({ name: event.name, attributes: event.attributes, time: event.timeUnixNano })),
      span.events.map((event) => ({
        name: event.name,
        attributes: event.attributes ?? {},
        time: nanoseconds(event.time),
      })),
    );
    assert.deepEqual(record.resource, span.resource.attributes);
    assert.deepEqual(record.scope, { name: "interop-scope", version: "3.2.1" });
  }
}

describe("decoding bodies from the OpenTelemetry JS serializers", async () => {
  const spans = await recordSdkSpans();
  const rootSpan = spans.find((span) => span.name === "rag.request")!;
  const otherSpan = spans.find((span) => span.name === "other.trace")!;

  test("ProtobufTraceSerializer: ids, names, kinds, times, attributes, events, status survive", () => {
    const body = ProtobufTraceSerializer.serializeRequest(spans);
    assert.ok(body);
    const document = decodeOrFail(body, "protobuf");
    assert.equal(countSpans(document), 3);
    checkAgainstSdk(toSpanRecords(document), spans);
  });

  test("JsonTraceSerializer: the same, from OTLP/JSON", () => {
    const body = JsonTraceSerializer.serializeRequest(spans);
    assert.ok(body);
    const document = decodeOrFail(body, "json");
    assert.equal(countSpans(document), 3);
    checkAgainstSdk(toSpanRecords(document), spans);
  });

  test("both serializers decode to the same document, links included", () => {
    const fromProtobuf = decodeOrFail(ProtobufTraceSerializer.serializeRequest(spans)!, "protobuf");
    const fromJson = decodeOrFail(JsonTraceSerializer.serializeRequest(spans)!, "json");
    assert.deepEqual(fromJson, fromProtobuf);
    const root = fromProtobuf.resourceSpans
      .flatMap((resourceSpans) => resourceSpans.scopeSpans)
      .flatMap((scopeSpans) => scopeSpans.spans)
      .find((span) => span.spanId === rootSpan.spanContext().spanId)!;
    assert.equal(root.links.length, 1);
    assert.equal(root.links[0]!.traceId, otherSpan.spanContext().traceId);
    assert.equal(root.links[0]!.spanId, otherSpan.spanContext().spanId);
    assert.deepEqual(root.links[0]!.attributes, [{ key: "link.kind", value: { stringValue: "follows" } }]);
    assert.equal(root.flags & 0xff, rootSpan.spanContext().traceFlags);
  });
});
