/**
 * The SDK's protobuf encoder writes the same bytes as OpenTelemetry's own
 * serializer (@opentelemetry/otlp-transformer's ProtobufTraceSerializer, the
 * independent reference here) for the spans a RAG request records, and for
 * every kind of value a span can carry: strings (ASCII, Chinese, emoji,
 * empty, long), booleans, integers (negative, past 2^31, past 2^53), doubles,
 * arrays (mixed, with nulls), bytes, events, links with trace state, remote
 * parents, status messages, several resources and scopes. The same spans
 * after crossing to the export worker (export/span-transfer.ts, copied by the
 * structured clone as postMessage copies them) encode to the same bytes, and
 * to the same OTLP/JSON.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { context, trace, SpanKind, SpanStatusCode, TraceFlags, type Attributes } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { TraceState } from "@opentelemetry/core";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { encodeTraceRequest } from "../../../instrumentation/export/otlp-protobuf-encoder.js";
import { toPlainBatch, toReadableSpans } from "../../../instrumentation/export/span-transfer.js";
import { eightSpanRequest } from "../../bench/eight-span-request.js";

function collector(): SpanProcessor & { spans: ReadableSpan[] } {
  const spans: ReadableSpan[] = [];
  return { spans, onStart() {}, onEnd: (span: ReadableSpan) => void spans.push(span), forceFlush: async () => {}, shutdown: async () => {} };
}

function assertSameBytes(spans: ReadableSpan[]): void {
  const reference = ProtobufTraceSerializer.serializeRequest(spans);
  assert.ok(reference !== undefined);
  const ours = encodeTraceRequest(spans);
  assert.equal(ours.byteLength, reference.byteLength, "same length");
  assert.ok(Buffer.from(ours).equals(Buffer.from(reference)), "same bytes");
  // Through the export worker: the batch as plain data, copied as postMessage copies it, read back on the worker's side.
  const transferred = toReadableSpans(structuredClone(toPlainBatch(spans)));
  assert.ok(Buffer.from(encodeTraceRequest(transferred)).equals(Buffer.from(reference)), "same bytes after crossing to the export worker");
  const json = JsonTraceSerializer.serializeRequest(spans);
  assert.ok(json !== undefined);
  assert.equal(Buffer.from(JsonTraceSerializer.serializeRequest(transferred) ?? []).toString(), Buffer.from(json).toString(), "same OTLP/JSON after crossing to the export worker");
}

describe("OTLP protobuf encoder", () => {
  test("the spans of RAG requests (8 spans, ten 500-character chunks, Chinese text) encode to OTel's bytes", async () => {
    const processor = collector();
    const provider = new BasicTracerProvider({ spanProcessors: [processor], spanLimits: { attributeCountLimit: 4096 }, resource: resourceFromAttributes({ "service.name": "encoder-test" }) });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
    try {
      for (let index = 0; index < 5; index += 1) await eightSpanRequest(index);
    } finally {
      trace.disable();
      context.disable();
    }
    assert.equal(processor.spans.length, 40);
    assertSameBytes(processor.spans);
    assertSameBytes(processor.spans.slice(0, 1));
  });

  test("every kind of value, events, links, remote parents, status, several resources and scopes", () => {
    const processor = collector();
    const providers = [
      new BasicTracerProvider({ spanProcessors: [processor], resource: resourceFromAttributes({ "service.name": "one", "deployment.environment": "测试" }) }),
      new BasicTracerProvider({ spanProcessors: [processor], resource: resourceFromAttributes({ "service.name": "two", count: 3 }) }),
    ];
    const attributes: Attributes = {
      ascii: "plain text",
      empty: "",
      chinese: "未使用的年假可以结转到下一年吗？",
      emoji: "ok 👍🏽 done",
      long: "年假 policy ".repeat(400),
      longAscii: "x".repeat(70_000),
      yes: true,
      no: false,
      zero: 0,
      small: 42,
      negative: -7,
      large: 3_000_000_000,
      huge: 2 ** 60,
      hugeNegative: -(2 ** 60),
      double: 0.1,
      negativeDouble: -1.5e-300,
      strings: ["a", "年", "", "b".repeat(200)],
      numbers: [1, -2, 3.5],
      booleans: [true, false],
      withNulls: ["a", null, "b"] as unknown as string[],
    };
    for (const [index, provider] of providers.entries()) {
      for (const scope of ["scope-a", "scope-b"]) {
        const tracer = provider.getTracer(scope, index === 0 ? "1.2.3" : undefined);
        const remoteParent = trace.setSpanContext(context.active(), { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: TraceFlags.SAMPLED, isRemote: true, traceState: new TraceState("vendor=value,other=1") });
        const span = tracer.startSpan(
          `span ${scope} 名`,
          {
            kind: SpanKind.CLIENT,
            attributes,
            links: [{ context: { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: TraceFlags.NONE, traceState: new TraceState("k=v") }, attributes: { reason: "follows", weight: 2 } }],
          },
          remoteParent,
        );
        span.setAttribute("bytes", new Uint8Array([0, 1, 255]) as unknown as string);
        span.addEvent("exception", { "exception.message": "出错了", "exception.type": "Error", attempt: 2 });
        span.addEvent("no attributes");
        span.setStatus({ code: SpanStatusCode.ERROR, message: "failed: 超时" });
        span.end();
        tracer.startSpan("root, internal, unset status").end();
      }
    }
    assert.equal(processor.spans.length, 8);
    assertSameBytes(processor.spans);
  });

  test("long string values at every varint size boundary, ASCII and three-byte text", () => {
    // Values are written in one pass when their UTF-8 length (between their
    // length and three times it) cannot change the size of the lengths around
    // them; these lengths straddle and sit on each boundary of 1, 2 and 3 bytes.
    const processor = collector();
    const provider = new BasicTracerProvider({ spanProcessors: [processor], spanLimits: { attributeCountLimit: 4096 } });
    const tracer = provider.getTracer("boundaries");
    const lengths = [47, 48, 60, 110, 120, 124, 125, 126, 127, 128, 129, 200, 5_000, 5_455, 5_456, 5_461, 5_462, 16_370, 16_380, 16_383, 16_384, 20_000, 700_000];
    for (const length of lengths) {
      const attributes: Attributes = {};
      attributes[`ascii.${length}`] = "a".repeat(length);
      attributes[`han.${length}`] = "年".repeat(length);
      attributes[`mixed.${length}`] = `${"年".repeat(Math.floor(length / 2))}${"b".repeat(length - Math.floor(length / 2))}`;
      attributes[`k${"e".repeat(length % 130)}`] = "z".repeat(length);
      tracer.startSpan(`span ${length}`, { attributes }).end();
    }
    assertSameBytes(processor.spans);
  });

  test("timestamps at the bounds of the encoder's 32-bit halves, and span lengths of one to three bytes", () => {
    const processor = collector();
    const provider = new BasicTracerProvider({ spanProcessors: [processor], spanLimits: { attributeCountLimit: 4096 } });
    const tracer = provider.getTracer("times");
    const times: [number, number][] = [[0, 0], [0, 999_999_999], [65_535, 999_999_999], [65_536, 0], [1_764_000_000, 123_456_789], [4_294_967_295, 999_999_999], [4_294_967_296, 1]];
    for (const [index, time] of times.entries()) {
      // Span lengths below 128 bytes, up to 16 KiB and past it (the encoder reserves two bytes for a span's length).
      const attributes: Attributes = index % 3 === 0 ? {} : { text: "x".repeat(index % 3 === 1 ? 2_000 : 20_000) };
      tracer.startSpan(`t${index}`, { startTime: time, attributes }).end([time[0] + 1, time[1]]);
    }
    assertSameBytes(processor.spans);
  });

  test("attribute keys encoded from memory and afresh: non-ASCII, at the length bounds, more keys than are remembered", () => {
    // Keys are remembered encoded (up to 4,096 keys of up to 256 characters);
    // each batch is encoded twice, so the second time every remembered key comes from memory.
    const processor = collector();
    const provider = new BasicTracerProvider({ spanProcessors: [processor], spanLimits: { attributeCountLimit: 8192 } });
    const tracer = provider.getTracer("keys");
    const odd: Attributes = {};
    for (const length of [1, 47, 48, 127, 128, 255, 256, 257, 300]) {
      odd[`k${"e".repeat(length - 1)}`] = `value ${length}`;
      odd[`年${"键".repeat(length - 1)}`] = length;
    }
    odd["emoji 🔑 key"] = ["a", "b"];
    odd["ragscope.documents.0.document_id"] = "doc-1";
    tracer.startSpan("odd keys", { attributes: odd }).end();
    for (let span = 0; span < 5; span += 1) {
      const many: Attributes = {};
      for (let index = 0; index < 1_000; index += 1) many[`many.${span}.${index}`] = index % 2 === 0 ? `value ${index}` : index;
      tracer.startSpan(`many keys ${span}`, { attributes: many }).end();
    }
    assertSameBytes(processor.spans);
    assertSameBytes(processor.spans);
  });
});
