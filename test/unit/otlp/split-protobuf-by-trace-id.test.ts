/**
 * The receiver's byte-level split (split-protobuf-by-trace-id.ts) against its
 * decoding path (prepare-trace-messages.ts prepareByDecoding): on recorded SDK
 * requests, the codec tests' sample with every part of the format, and thousands of
 * mutated bodies, whatever the split takes, the decoding path takes too, with
 * the same spans under the same resources and scopes, trace by trace; where
 * the decoding path refuses a request or changes its spans, the split
 * declines.
 */
import { EARLIEST_SPAN_TIME_NANOS } from "../../../collector/00-otlp/reject-zero-time-spans.js";
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import { encodeTraceRequest } from "../../../collector/00-otlp/encode-protobuf.js";
import type { RequestLimits } from "../../../collector/00-otlp/enforce-request-limits.js";
import { splitProtobufByTraceId, type WireSplit } from "../../../collector/00-otlp/split-protobuf-by-trace-id.js";
import type { AnyValue, KeyValue, SpanDocument } from "../../../collector/00-otlp/traces-document.js";
import { prepareByDecoding, prepareTraceMessages, SPANS_PER_MESSAGE } from "../../../collector/01-receive/prepare-trace-messages.js";
import { limits, mutatedBodies, recordedRequests, span, spanId, text, trace } from "./request-fixtures.js";
import { sampleTracesDocument, traceA, traceB, traceC } from "./sample-traces-document.js";

const maxMessageBytes = 1_000_000;

/** Each message's spans with the resource and scope they came under, per trace, in message order. */
function spansByTrace(messages: readonly { key: string; value: Uint8Array }[]): Map<string, unknown[]> {
  const byTrace = new Map<string, unknown[]>();
  for (const message of messages) {
    const decoded = decodeTraceRequest(message.value, "protobuf");
    assert.ok(decoded.ok, "every message decodes");
    const list = byTrace.get(message.key) ?? [];
    for (const resourceSpans of decoded.value.resourceSpans) {
      for (const scopeSpans of resourceSpans.scopeSpans) {
        for (const item of scopeSpans.spans) {
          assert.equal(item.traceId, message.key, "a message holds its key's trace only");
          list.push({ resource: resourceSpans.resource, resourceSchemaUrl: resourceSpans.schemaUrl, scope: scopeSpans.scope, scopeSchemaUrl: scopeSpans.schemaUrl, span: item });
        }
      }
    }
    byTrace.set(message.key, list);
  }
  return byTrace;
}

/** The split's messages against the decoding path's for the same body; returns the split. */
function assertSameAsDecoding(body: Uint8Array, options = { limits, maxMessageBytes }): WireSplit | null {
  const split = splitProtobufByTraceId(body, { ...options, maxSpansPerMessage: SPANS_PER_MESSAGE });
  if (split === null) return null;
  const decoded = prepareByDecoding({ body, encoding: "protobuf", limits: options.limits, tenant: null, maxMessageBytes: options.maxMessageBytes });
  assert.equal(decoded.kind, "prepared", `the decoding path ${decoded.kind === "malformed" || decoded.kind === "tooLarge" ? `refused it: ${decoded.message}` : "did not prepare it"}, the split took it`);
  if (decoded.kind !== "prepared") return split;
  assert.equal(split.spanCount, decoded.spanCount);
  assert.equal(decoded.rejectedSpans, 0);
  assert.deepEqual(decoded.limited, { truncatedValues: 0, droppedEvents: 0, droppedLinks: 0, droppedAttributes: 0, truncatedNames: 0 });
  assert.deepEqual([...new Set(split.messages.map((message) => message.key))], [...new Set(decoded.messages.map((message) => message.key))], "the same traces in the same order");
  assert.deepEqual(spansByTrace(split.messages), spansByTrace(decoded.messages));
  for (const message of split.messages) assert.equal(message.value.byteLength, message.value.buffer.byteLength, "a message owns its buffer (transferable)");
  return split;
}

describe("cutting a protobuf request by trace id without decoding it", () => {
  test("recorded SDK requests and a request with every part of the format: the decoding path's spans, trace by trace", async () => {
    for (const body of await recordedRequests()) {
      const split = assertSameAsDecoding(body);
      assert.ok(split !== null, "an SDK request is split, not declined");
      assert.equal(split.messages.length, 6, "one message per trace");
    }
    const split = assertSameAsDecoding(encodeTraceRequest(sampleTracesDocument()));
    assert.ok(split !== null, "every field and kind of value is split, not declined");
    assert.deepEqual(split.messages.map((message) => message.key), [traceA, traceB, traceC]);
    assert.deepEqual(splitProtobufByTraceId(new Uint8Array(0), { limits, maxMessageBytes, maxSpansPerMessage: SPANS_PER_MESSAGE }), { messages: [], spanCount: 0 });
  });

  test("a large trace is cut into messages within the span and byte bounds, every span kept", () => {
    const spans = Array.from({ length: 700 }, (_, index) => span(trace(7), spanId(index + 1), { attributes: [text("retrieval.documents.0.document.content", `${index} `.padEnd(3_000, "x"))] }));
    const body = encodeTraceRequest({ resourceSpans: [{ resource: { attributes: [text("service.name", "big")], droppedAttributesCount: 0 }, scopeSpans: [{ scope: { name: "s", version: "", attributes: [], droppedAttributesCount: 0 }, spans, schemaUrl: "" }], schemaUrl: "" }] });
    const split = assertSameAsDecoding(body, { limits, maxMessageBytes: 200_000 });
    assert.ok(split !== null);
    assert.ok(split.messages.length >= 11, `${split.messages.length} messages`);
    for (const message of split.messages) {
      assert.ok(message.value.byteLength <= 200_000, `a message of ${message.value.byteLength} bytes`);
      const decoded = decodeTraceRequest(message.value, "protobuf");
      assert.ok(decoded.ok && decoded.value.resourceSpans.every((resource) => resource.scopeSpans.every((scope) => scope.spans.length <= SPANS_PER_MESSAGE)));
    }
    // Spans cap a message too: 700 small spans go out as 256 + 256 + 188.
    const small = encodeTraceRequest({ resourceSpans: [{ resource: { attributes: [], droppedAttributesCount: 0 }, scopeSpans: [{ scope: { name: "s", version: "", attributes: [], droppedAttributesCount: 0 }, spans: spans.map((item) => ({ ...item, attributes: [] })), schemaUrl: "" }], schemaUrl: "" }] });
    assert.equal(assertSameAsDecoding(small)?.messages.length, 3);
    // One span larger than the bound goes alone, for the bus to refuse.
    const huge = encodeTraceRequest({ resourceSpans: [{ resource: { attributes: [], droppedAttributesCount: 0 }, scopeSpans: [{ scope: { name: "s", version: "", attributes: [], droppedAttributesCount: 0 }, spans: [span(trace(8), spanId(1), { attributes: [text("a", "y".repeat(5_000))] }), span(trace(8), spanId(2))], schemaUrl: "" }], schemaUrl: "" }] });
    assert.deepEqual(assertSameAsDecoding(huge, { limits, maxMessageBytes: 1_000 })?.messages.map((message) => message.value.byteLength > 1_000), [true, false]);
  });

  test("declines where the decoding path refuses the request or changes its spans", () => {
    const options = { limits, maxMessageBytes, maxSpansPerMessage: SPANS_PER_MESSAGE };
    const one = (overrides: Partial<SpanDocument>, resource: KeyValue[] = []) =>
      encodeTraceRequest({ resourceSpans: [{ resource: { attributes: resource, droppedAttributesCount: 0 }, scopeSpans: [{ scope: { name: "s", version: "", attributes: [], droppedAttributesCount: 0 }, spans: [span(trace(1), spanId(1), overrides)], schemaUrl: "" }], schemaUrl: "" }] });
    const declined = (body: Uint8Array, why: string, tighter: Partial<RequestLimits> = {}) => assert.equal(splitProtobufByTraceId(body, { ...options, limits: { ...limits, ...tighter } }), null, why);
    assert.ok(splitProtobufByTraceId(one({}), options) !== null, "the plain span is split");
    declined(one({}, [text("ragscope.tenant.authenticated", "forged")]), "a client's claim of an authenticated tenant (removed by decoding)");
    declined(one({ traceId: "0".repeat(32) }), "an all-zero trace id (taken out by decoding)");
    declined(one({ spanId: "0".repeat(16) }), "an all-zero span id");
    declined(one({ attributes: [text("long", "z".repeat(100))] }), "a value that may need truncating", { maxAttributeValueBytes: 64 });
    declined(one({ events: [{ timeUnixNano: 1n, name: "e", attributes: [text("long", "z".repeat(100))], droppedAttributesCount: 0 }] }), "an event value that may need truncating", { maxAttributeValueBytes: 64 });
    declined(one({}, [text("long", "z".repeat(100))]), "a resource value that may need truncating", { maxAttributeValueBytes: 64 });
    declined(one({ attributes: [text("a", "1"), text("b", "2"), text("c", "3")] }), "more attributes than allowed", { maxAttributesPerSpan: 2 });
    declined(one({}), "more spans than a request may hold", { maxSpansPerRequest: 0 });
    declined(one({}), "more spans of a trace than allowed", { maxSpansPerTrace: 0 });
    const link = (attributes: KeyValue[] = []) => ({ traceId: trace(9), spanId: spanId(9), traceState: "", attributes, droppedAttributesCount: 0, flags: 0 });
    const event = (attributes: KeyValue[] = []) => ({ timeUnixNano: 1n, name: "e", attributes, droppedAttributesCount: 0 });
    declined(one({ links: [link([text("a", "1"), text("b", "2"), text("c", "3")])] }), "a link with more attributes than allowed", { maxAttributesPerSpan: 2 });
    declined(one({ events: [event(), event(), event()] }), "more events than a span keeps (dropped by decoding)", { maxEventsPerSpan: 2 });
    declined(one({ links: [link(), link(), link()] }), "more links than a span keeps (dropped by decoding)", { maxLinksPerSpan: 2 });
    const longKey = "k".repeat(200);
    declined(one({ attributes: [text(longKey, "v")] }), "a key over the key limit (dropped by decoding)", { maxAttributeKeyBytes: 128 });
    declined(one({ events: [event([text(longKey, "v")])] }), "an event key over the key limit", { maxAttributeKeyBytes: 128 });
    declined(one({ links: [link([text(longKey, "v")])] }), "a link key over the key limit", { maxAttributeKeyBytes: 128 });
    declined(one({}, [text(longKey, "v")]), "a resource key over the key limit", { maxAttributeKeyBytes: 128 });
    declined(one({ name: "n".repeat(65) }), "a span name over the name limit (truncated by decoding)", { maxNameBytes: 64 });
    declined(one({ events: [{ ...event(), name: "é".repeat(33) }] }), "an event name over the name limit", { maxNameBytes: 64 });
    assert.ok(splitProtobufByTraceId(one({ name: "n".repeat(64), events: [{ ...event(), name: "é".repeat(32) }] }), { ...options, limits: { ...limits, maxNameBytes: 64 } }) !== null, "names at the name limit: split");
    assert.ok(splitProtobufByTraceId(one({ attributes: [{ key: "map", value: { kvlistValue: { values: [text(longKey, "v")] } } }] }), { ...options, limits: { ...limits, maxAttributeKeyBytes: 128 } }) !== null, "a long key inside a value is the value's: split");
    assert.ok(splitProtobufByTraceId(one({ events: [event(), event()], links: [link(), link()], attributes: [text("k".repeat(128), "v")] }), { ...options, limits: { ...limits, maxEventsPerSpan: 2, maxLinksPerSpan: 2, maxAttributeKeyBytes: 128 } }) !== null, "at the bounds: split");
    // A span of 2026-01-01; the earliest time a span is taken with is 2000-01-01 (reject-zero-time-spans.ts).
    const T = 1_767_225_600_000_000_000n;
    // A start or end past the receiver's latest span time (taken out by decoding, reject-future-spans.ts); at it: split.
    const timed = one({ startTimeUnixNano: T + 5_000n, endTimeUnixNano: T + 6_000n });
    assert.equal(splitProtobufByTraceId(timed, { ...options, latestSpanTimeNanos: T + 5_999n }), null, "an end past the latest span time");
    assert.equal(splitProtobufByTraceId(timed, { ...options, latestSpanTimeNanos: T + 4_999n }), null, "a start past the latest span time");
    assert.ok(splitProtobufByTraceId(timed, { ...options, latestSpanTimeNanos: T + 6_000n }) !== null, "times at the latest span time: split");
    // A zero (unset) or pre-2000 start or end, given as 0, left out or in the wrong unit (taken out and counted by decoding, reject-zero-time-spans.ts):
    // receive's whole path, prepareTraceMessages, publishes none of it.
    for (const [zeroed, why] of [[one({ startTimeUnixNano: 0n, endTimeUnixNano: T + 6_000n }), "a zero start time"], [one({ startTimeUnixNano: T + 5_000n, endTimeUnixNano: 0n }), "a zero end time"], [one({ startTimeUnixNano: 1_767_225_600_000n, endTimeUnixNano: 1_767_225_600_250n }), "times in milliseconds where nanoseconds belong (1970-01-01, 29 minutes past midnight)"], [one({ startTimeUnixNano: EARLIEST_SPAN_TIME_NANOS - 1n, endTimeUnixNano: T }), "a start just before 2000"]] as const) {
      assert.equal(splitProtobufByTraceId(zeroed, { ...options, latestSpanTimeNanos: T + 6_000n }), null, why);
      const prepared = prepareTraceMessages({ body: zeroed, encoding: "protobuf", limits, tenant: null, maxMessageBytes, latestSpanTimeNanos: T + 6_000n });
      assert.ok(prepared.kind === "prepared" && prepared.zeroTimeSpans === 1 && prepared.futureSpans === 0 && prepared.messages.length === 0, `${why}: taken out and counted by decoding`);
    }
    declined(one({ kind: 7 as SpanDocument["kind"] }), "a span kind out of range");
    declined(one({ status: { message: "", code: 5 as SpanDocument["status"]["code"] } }), "a status code out of range");
    declined(one({ parentSpanId: "ab" }), "a parent span id of the wrong length");
    declined(one({ links: [{ traceId: "ab", spanId: spanId(1), traceState: "", attributes: [], droppedAttributesCount: 0, flags: 0 }] }), "a link trace id of the wrong length");
    let deep: AnyValue = { stringValue: "bottom" };
    for (let level = 0; level < 25; level += 1) deep = { arrayValue: { values: [deep] } };
    declined(one({ attributes: [{ key: "deep", value: deep }] }), "values nested deeper than the split checks");

    // Raw edits the encoder would never write.
    const plain = one({ name: "ASCII-NAME" });
    const at = Buffer.from(plain).indexOf("ASCII-NAME");
    const invalidUtf8 = Uint8Array.from(plain);
    invalidUtf8[at] = 0xff;
    declined(invalidUtf8, "a string that is not UTF-8");
    assert.equal(decodeTraceRequest(invalidUtf8, "protobuf").ok, false, "the decoding path refuses it too");
    // Short texts are checked for ASCII in place first, longer ones by isUtf8: a bad byte in a key, in a
    // multi-byte character of a short value, and in a long value.
    const edited = (body: Uint8Array, marker: string, offset: number, byte: number) => {
      const copy = Uint8Array.from(body);
      copy[Buffer.from(body).indexOf(marker) + offset] = byte;
      return copy;
    };
    for (const [body, why] of [
      [edited(one({ attributes: [text("KEY-A", "v")] }), "KEY-A", 2, 0xc3), "a key with a lead byte and no continuation"],
      [edited(one({ attributes: [text("k", "年假")] }), "年假", 1, 0x41), "a short value with a broken three-byte character"],
      [edited(one({ attributes: [text("k", `${"a".repeat(80)}年`)] }), "年", 2, 0x41), "a long value with a broken three-byte character"],
    ] as const) {
      declined(body, why);
      assert.equal(decodeTraceRequest(body, "protobuf").ok, false, `the decoding path refuses it too: ${why}`);
    }
    // Only the authenticated tenant's own key is the claim the decoding path removes.
    for (const key of ["ragscope.tenant.authenticate", "ragscope.tenant.authenticateX", "ragscope.tenant.authenticated.x"]) {
      assert.ok(assertSameAsDecoding(one({}, [text(key, "t")])) !== null, key);
    }
    assert.ok(assertSameAsDecoding(one({ attributes: [text("ragscope.tenant.authenticated", "on a span")] })) !== null, "the key on a span, not the resource");
    declined(plain.subarray(0, plain.byteLength - 3), "a truncated body");
    declined(Uint8Array.from([...plain, 0x0b, 0x0c]), "a group (wire type 3)");
    declined(Uint8Array.from([0x12, 0x00]), "a non-empty body without resourceSpans");
    // The body's ResourceSpans again under a tag of 33 bits: an unknown field by its number, refused by protobufjs.
    assert.equal(plain[0], 0x0a);
    const longTag = Uint8Array.from([...plain, 0x8a, 0x80, 0x80, 0x80, 0x10, ...plain.subarray(1)]);
    assert.equal(prepareByDecoding({ body: longTag, encoding: "protobuf", limits, tenant: null }).kind, "malformed");
    declined(longTag, "a tag longer than 32 bits");
    // Field 1 with a tag of six bytes (non-canonical, value 10), and a length of six bytes: protobufjs refuses both.
    const paddedTag = Uint8Array.from([0x8a, 0x80, 0x80, 0x80, 0x80, 0x00, ...plain.subarray(1)]);
    assert.equal(prepareByDecoding({ body: paddedTag, encoding: "protobuf", limits, tenant: null }).kind, "malformed");
    declined(paddedTag, "a tag of more than five bytes");
    assert.ok(plain[1]! < 0x80, "a one-byte length");
    const paddedLength = Uint8Array.from([0x0a, plain[1]! | 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, ...plain.subarray(2)]);
    assert.equal(prepareByDecoding({ body: paddedLength, encoding: "protobuf", limits, tenant: null }).kind, "malformed");
    declined(paddedLength, "a length of more than five bytes");
  });

  test("thousands of mutated requests: whatever the split takes, the decoding path takes the same", async () => {
    const bases = [...(await recordedRequests()).slice(0, 1), encodeTraceRequest(sampleTracesDocument())];
    let taken = 0;
    let declined = 0;
    for (const { body } of mutatedBodies(bases, 0x2545f491, 3_000)) {
      if (assertSameAsDecoding(body) === null) declined += 1;
      else taken += 1;
    }
    // Both sides are exercised: many mutations still parse (a changed byte in a text or a number), many do not.
    assert.ok(taken > 300, `${taken} taken`);
    assert.ok(declined > 300, `${declined} declined`);
  });
});
