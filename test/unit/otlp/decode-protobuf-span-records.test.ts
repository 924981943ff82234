/**
 * The receiver's direct reading of a protobuf request into span records
 * (decode-protobuf-span-records.ts), as serve's decode threads use it
 * (prepare-trace-messages.ts, `output: "decoded"`), against the decoding path
 * (prepareByDecoding: protobufjs, the TracesDocument, the limits, the tenant
 * stamp, the split by trace, toSpanRecords): on recorded SDK requests, the
 * codec tests' sample with every part of the format, and thousands of mutated
 * bodies, whatever the reader takes the decoding path takes too, with equal
 * records, equal stored texts (which also hold the attributes' order) and
 * equal parts, trace by trace; where the decoding path refuses a request or
 * changes its spans, the reader declines.
 */
import { EARLIEST_SPAN_TIME_NANOS } from "../../../collector/00-otlp/reject-zero-time-spans.js";
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { decodeProtobufSpanRecords, NO_LIMITS, type DecodedSpanRecords } from "../../../collector/00-otlp/decode-protobuf-span-records.js";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import { encodeTraceRequest } from "../../../collector/00-otlp/encode-protobuf.js";
import type { RequestLimits } from "../../../collector/00-otlp/enforce-request-limits.js";
import { splitByTraceId } from "../../../collector/00-otlp/split-by-trace-id.js";
import { toSpanRecords } from "../../../collector/00-otlp/to-span-records.js";
import type { AnyValue, KeyValue, SpanDocument } from "../../../collector/00-otlp/traces-document.js";
import { prepareByDecoding, prepareTraceMessages, SPANS_PER_MESSAGE, type PreparedMessages } from "../../../collector/01-receive/prepare-trace-messages.js";
import { limits, mutatedBodies, recordedRequests, span, spanId, text, trace } from "./request-fixtures.js";
import { sampleTracesDocument, traceA, traceB, traceC } from "./sample-traces-document.js";
import { field } from "../../support/protobuf-wire.js";

interface Options {
  limits: RequestLimits;
  tenant: string | null;
}

/** What a decode thread answers for the body, through the reader when it takes the body, and the decoding path's answer. */
function bothPaths(body: Uint8Array, options: Options): { direct: DecodedSpanRecords | null; prepared: PreparedMessages; decoding: PreparedMessages } {
  const request = { body, encoding: "protobuf" as const, limits: options.limits, tenant: options.tenant, output: "decoded" as const };
  return { direct: decodeProtobufSpanRecords(body, { limits: options.limits, stamp: { tenant: options.tenant } }), prepared: prepareTraceMessages(request), decoding: prepareByDecoding(request) };
}

/** The reader against the decoding path for the same body; returns what the reader gave (null: declined). */
function assertSameAsDecoding(body: Uint8Array, options: Options = { limits, tenant: null }): DecodedSpanRecords | null {
  const { direct, prepared, decoding } = bothPaths(body, options);
  if (direct === null) {
    assert.deepEqual(prepared, decoding, "declined: the decoding path answers");
    return null;
  }
  assert.equal(decoding.kind, "decoded", `the decoding path ${decoding.kind === "malformed" || decoding.kind === "tooLarge" ? `refused it: ${decoding.message}` : "did not decode it"}, the reader took it`);
  assert.equal(prepared.kind, "decoded");
  if (decoding.kind !== "decoded" || prepared.kind !== "decoded") return direct;
  assert.equal(direct.spanCount, decoding.spanCount);
  assert.equal(prepared.spanCount, decoding.spanCount);
  assert.equal(decoding.rejectedSpans, 0);
  assert.deepEqual(decoding.limited, { truncatedValues: 0, droppedEvents: 0, droppedLinks: 0, droppedAttributes: 0, truncatedNames: 0 });
  assert.deepEqual(prepared.traces.map((part) => part.key), decoding.traces.map((part) => part.key), "the same parts of the same traces in the same order");
  assert.deepEqual(prepared.traces, decoding.traces, "equal records, stored texts and byte estimates");
  // deepEqual does not see the order of keys; the stored JSON does (attributes, the resource's stamp last).
  const stored = (result: PreparedMessages) => (result.kind === "decoded" ? result.traces.flatMap((part) => part.spans.map((item) => Buffer.from(item.stored!.utf8).toString("utf8"))) : []);
  assert.deepEqual(stored(prepared), stored(decoding));
  assert.deepEqual(
    prepared.traces.flatMap((part) => part.spans.map((item) => Object.keys(item.resource))),
    decoding.traces.flatMap((part) => part.spans.map((item) => Object.keys(item.resource))),
  );
  return direct;
}

/** One span with one attribute `k`, written field by field, with what an encoder would never write added. */
function handWritten(edits: { value?: Buffer; keyValueTail?: Buffer; spanTail?: Buffer; resourceTwice?: boolean; scopeTwice?: boolean }): Uint8Array {
  const keyValue = Buffer.concat([field(1, Buffer.from("k")), field(2, edits.value ?? field(1, Buffer.from("v"))), edits.keyValueTail ?? Buffer.alloc(0)]);
  const spanBytes = Buffer.concat([field(1, Buffer.from(trace(1), "hex")), field(2, Buffer.from(spanId(1), "hex")), field(5, Buffer.from("name")), field(9, keyValue), edits.spanTail ?? Buffer.alloc(0)]);
  const scope = field(1, field(1, Buffer.from("scope")));
  const scopeSpans = Buffer.concat([scope, edits.scopeTwice === true ? scope : Buffer.alloc(0), field(2, spanBytes)]);
  const resource = field(1, field(1, Buffer.concat([field(1, Buffer.from("service.name")), field(2, field(1, Buffer.from("svc")))])));
  return field(1, Buffer.concat([resource, edits.resourceTwice === true ? resource : Buffer.alloc(0), field(2, scopeSpans)]));
}

/** A bus's message read as it is (no limits, no stamp) against decodeTraceRequest and toSpanRecords, trace by trace. */
function assertSameAsBusDecoding(body: Uint8Array): DecodedSpanRecords | null {
  const direct = decodeProtobufSpanRecords(body, { limits: NO_LIMITS });
  const decoded = decodeTraceRequest(body, "protobuf");
  if (direct === null) return null;
  assert.ok(decoded.ok, "the decoder refused what the reader took");
  if (!decoded.ok) return direct;
  const expected = [...splitByTraceId(decoded.value)].map(([traceId, document]) => ({ traceId, spans: toSpanRecords(document) }));
  assert.deepEqual(direct.traces, expected);
  assert.equal(direct.spanCount, expected.reduce((sum, item) => sum + item.spans.length, 0));
  const keys = (traces: readonly { spans: readonly { attributes: object; resource: object }[] }[]) => traces.flatMap((item) => item.spans.map((record) => [Object.keys(record.attributes), Object.keys(record.resource)]));
  assert.deepEqual(keys(direct.traces), keys(expected), "attributes in the same order");
  return direct;
}

const oneSpan = (overrides: Partial<SpanDocument>, resource: KeyValue[] = []) =>
  encodeTraceRequest({ resourceSpans: [{ resource: { attributes: resource, droppedAttributesCount: 0 }, scopeSpans: [{ scope: { name: "s", version: "1", attributes: [], droppedAttributesCount: 0 }, spans: [span(trace(1), spanId(1), overrides)], schemaUrl: "" }], schemaUrl: "" }] });

describe("reading a protobuf request straight into span records", () => {
  test("recorded SDK requests and a request with every part of the format: the decoding path's records, trace by trace", async () => {
    for (const body of await recordedRequests()) {
      for (const tenant of [null, "acme"]) {
        const direct = assertSameAsDecoding(body, { limits, tenant });
        assert.ok(direct !== null, "an SDK request is read, not declined");
        assert.equal(direct.traces.length, 6, "six traces");
        assert.ok(direct.traces.every((item) => item.spans.length === 8));
      }
    }
    const direct = assertSameAsDecoding(encodeTraceRequest(sampleTracesDocument()), { limits, tenant: "acme" });
    assert.ok(direct !== null, "every field and kind of value is read, not declined");
    assert.deepEqual(direct.traces.map((item) => item.traceId), [traceA, traceB, traceC]);
  });

  test("the tenant is stamped last on every resource, and no two records share a resource object", () => {
    const nested: KeyValue = { key: "deployment", value: { kvlistValue: { values: [text("region", "eu")] } } };
    for (const resource of [[text("service.name", "svc")], [text("service.name", "svc"), nested], []]) {
      const body = encodeTraceRequest({ resourceSpans: [{ resource: { attributes: resource, droppedAttributesCount: 0 }, scopeSpans: [{ scope: { name: "s", version: "", attributes: [], droppedAttributesCount: 0 }, spans: [span(trace(1), spanId(1)), span(trace(1), spanId(2))], schemaUrl: "" }], schemaUrl: "" }] });
      const direct = assertSameAsDecoding(body, { limits, tenant: "acme" });
      assert.ok(direct !== null);
      const [first, second] = direct.traces[0]!.spans;
      assert.equal(Object.keys(first!.resource).at(-1), "ragscope.tenant.authenticated");
      assert.equal(first!.resource["ragscope.tenant.authenticated"], "acme");
      assert.notEqual(first!.resource, second!.resource);
      if (resource.length === 2) assert.notEqual(first!.resource.deployment, second!.resource.deployment, "nested values are not shared either");
    }
    // A `__proto__` attribute stays an attribute, on the span and on the resource.
    const proto = oneSpan({ attributes: [text("__proto__", "x")] }, [text("__proto__", "y")]);
    const direct = assertSameAsDecoding(proto);
    assert.ok(direct !== null);
    const record = direct.traces[0]!.spans[0]!;
    assert.deepEqual(Object.getOwnPropertyDescriptor(record.attributes, "__proto__")?.value, "x");
    assert.deepEqual(Object.getOwnPropertyDescriptor(record.resource, "__proto__")?.value, "y");
    assert.equal(Object.getPrototypeOf(record.resource), Object.prototype);
  });

  test("a large trace is cut into parts of at most SPANS_PER_MESSAGE spans, as the decoding path cuts it", () => {
    const spans = Array.from({ length: 600 }, (_, index) => span(index % 3 === 0 ? trace(2) : trace(7), spanId(index + 1), { attributes: [text("n", String(index))] }));
    const body = encodeTraceRequest({
      resourceSpans: [
        { resource: { attributes: [text("service.name", "big")], droppedAttributesCount: 0 }, scopeSpans: [{ scope: { name: "a", version: "", attributes: [], droppedAttributesCount: 0 }, spans: spans.slice(0, 350), schemaUrl: "" }, { scope: { name: "b", version: "", attributes: [], droppedAttributesCount: 0 }, spans: spans.slice(350), schemaUrl: "" }], schemaUrl: "" },
      ],
    });
    assert.ok(assertSameAsDecoding(body) !== null);
    const prepared = prepareTraceMessages({ body, encoding: "protobuf", limits, tenant: null, output: "decoded" });
    assert.equal(prepared.kind, "decoded");
    if (prepared.kind === "decoded") assert.deepEqual(prepared.traces.map((part) => [part.key, part.spans.length]), [[trace(2), 200], [trace(7), SPANS_PER_MESSAGE], [trace(7), 400 - SPANS_PER_MESSAGE]]);
  });

  test("declines where the decoding path refuses the request or changes its spans", () => {
    const declined = (body: Uint8Array, why: string, tighter: Partial<RequestLimits> = {}, tenant: string | null = null) => {
      const stricter = { limits: { ...limits, ...tighter }, tenant };
      assert.equal(decodeProtobufSpanRecords(body, { limits: stricter.limits, stamp: { tenant } }), null, why);
      // And the decode thread's answer is the decoding path's.
      assertSameAsDecoding(body, stricter);
    };
    assert.ok(decodeProtobufSpanRecords(oneSpan({}), { limits, stamp: { tenant: null } }) !== null, "the plain span is read");
    declined(oneSpan({}, [text("ragscope.tenant.authenticated", "forged")]), "a client's claim of an authenticated tenant (removed by decoding)");
    declined(oneSpan({}, [text("ragscope.tenant.authenticated", "forged")]), "the claim, with a tenant to stamp", {}, "acme");
    declined(oneSpan({ traceId: "0".repeat(32) }), "an all-zero trace id (taken out by decoding)");
    declined(oneSpan({ spanId: "0".repeat(16) }), "an all-zero span id");
    // A span of 2026-01-01; the earliest time a span is taken with is 2000-01-01 (reject-zero-time-spans.ts).
    const T = 1_767_225_600_000_000_000n;
    // A start or end past the receiver's latest span time: the decoding path takes the span out and counts it.
    const timed = oneSpan({ startTimeUnixNano: T + 5_000n, endTimeUnixNano: T + 6_000n });
    for (const [latest, why] of [[T + 5_999n, "an end past the latest span time"], [T + 4_999n, "a start past the latest span time"]] as const) {
      assert.equal(decodeProtobufSpanRecords(timed, { limits, stamp: { tenant: null }, latestSpanTimeNanos: latest }), null, why);
      const decoding = prepareByDecoding({ body: timed, encoding: "protobuf", limits, tenant: null, output: "decoded", latestSpanTimeNanos: latest });
      assert.ok(decoding.kind === "decoded" && decoding.futureSpans === 1 && decoding.spanCount === 0, `${why}: taken out and counted by decoding`);
    }
    assert.ok(decodeProtobufSpanRecords(timed, { limits, stamp: { tenant: null }, latestSpanTimeNanos: T + 6_000n }) !== null, "times at the latest span time: read");
    // A zero (unset) or pre-2000 start or end, given as 0, left out or in the wrong unit: the decoding path takes the span out and counts it
    // (reject-zero-time-spans.ts). Through prepareTraceMessages, the decode thread's whole path.
    for (const [zeroed, why] of [[oneSpan({ startTimeUnixNano: 0n, endTimeUnixNano: T + 6_000n }), "a zero start time"], [oneSpan({ startTimeUnixNano: T + 5_000n, endTimeUnixNano: 0n }), "a zero end time"], [oneSpan({ startTimeUnixNano: 1_767_225_600_000n, endTimeUnixNano: 1_767_225_600_250n }), "times in milliseconds where nanoseconds belong (1970-01-01, 29 minutes past midnight)"], [oneSpan({ startTimeUnixNano: EARLIEST_SPAN_TIME_NANOS - 1n, endTimeUnixNano: T }), "a start just before 2000"]] as const) {
      assert.equal(decodeProtobufSpanRecords(zeroed, { limits, stamp: { tenant: null }, latestSpanTimeNanos: T + 6_000n }), null, why);
      const prepared = prepareTraceMessages({ body: zeroed, encoding: "protobuf", limits, tenant: null, output: "decoded", latestSpanTimeNanos: T + 6_000n });
      assert.ok(prepared.kind === "decoded" && prepared.zeroTimeSpans === 1 && prepared.futureSpans === 0 && prepared.spanCount === 0, `${why}: taken out and counted by decoding`);
    }
    declined(oneSpan({ attributes: [text("long", "z".repeat(100))] }), "a value to truncate", { maxAttributeValueBytes: 64 });
    declined(oneSpan({ attributes: [{ key: "list", value: { arrayValue: { values: [{ stringValue: "z".repeat(100) }] } } }] }), "a value in a list to truncate", { maxAttributeValueBytes: 64 });
    declined(oneSpan({ attributes: [{ key: "raw", value: { bytesValue: new Uint8Array(100) } }] }), "bytes to truncate", { maxAttributeValueBytes: 64 });
    declined(oneSpan({ events: [{ timeUnixNano: 1n, name: "e", attributes: [text("long", "z".repeat(100))], droppedAttributesCount: 0 }] }), "an event value to truncate", { maxAttributeValueBytes: 64 });
    declined(oneSpan({}, [text("long", "z".repeat(100))]), "a resource value to truncate", { maxAttributeValueBytes: 64 });
    declined(oneSpan({ attributes: [text("a", "1"), text("b", "2"), text("c", "3")] }), "more attributes than allowed", { maxAttributesPerSpan: 2 });
    declined(oneSpan({ attributes: [text("a", "1"), text("a", "2"), text("a", "3")] }), "more attributes than allowed, counted with repeats", { maxAttributesPerSpan: 2 });
    declined(oneSpan({ events: [{ timeUnixNano: 1n, name: "e", attributes: [text("a", "1"), text("b", "2"), text("c", "3")], droppedAttributesCount: 0 }] }), "an event with more attributes than allowed", { maxAttributesPerSpan: 2 });
    declined(oneSpan({}), "more spans than a request may hold", { maxSpansPerRequest: 0 });
    declined(oneSpan({}), "more spans of a trace than allowed", { maxSpansPerTrace: 0 });
    const link = (attributes: KeyValue[] = []) => ({ traceId: trace(9), spanId: spanId(9), traceState: "", attributes, droppedAttributesCount: 0, flags: 0 });
    const event = (attributes: KeyValue[] = []) => ({ timeUnixNano: 1n, name: "e", attributes, droppedAttributesCount: 0 });
    declined(oneSpan({ links: [link([text("a", "1"), text("b", "2"), text("c", "3")])] }), "a link with more attributes than allowed", { maxAttributesPerSpan: 2 });
    declined(oneSpan({ events: [event(), event(), event()] }), "more events than a span keeps (dropped by decoding)", { maxEventsPerSpan: 2 });
    declined(oneSpan({ links: [link(), link(), link()] }), "more links than a span keeps (dropped by decoding)", { maxLinksPerSpan: 2 });
    const longKey = "k".repeat(200);
    declined(oneSpan({ attributes: [text(longKey, "v")] }), "a key over the key limit (dropped by decoding)", { maxAttributeKeyBytes: 128 });
    declined(oneSpan({ events: [event([text(longKey, "v")])] }), "an event key over the key limit", { maxAttributeKeyBytes: 128 });
    declined(oneSpan({ links: [link([text(longKey, "v")])] }), "a link key over the key limit", { maxAttributeKeyBytes: 128 });
    declined(oneSpan({}, [text(longKey, "v")]), "a resource key over the key limit", { maxAttributeKeyBytes: 128 });
    declined(oneSpan({ name: "n".repeat(65) }), "a span name over the name limit (truncated by decoding)", { maxNameBytes: 64 });
    declined(oneSpan({ events: [{ ...event(), name: "é".repeat(33) }] }), "an event name over the name limit", { maxNameBytes: 64 });
    assert.ok(decodeProtobufSpanRecords(oneSpan({ name: "n".repeat(64), events: [{ ...event(), name: "é".repeat(32) }] }), { limits: { ...limits, maxNameBytes: 64 }, stamp: { tenant: null } }) !== null, "names at the name limit: read");
    assert.ok(decodeProtobufSpanRecords(oneSpan({ attributes: [{ key: "map", value: { kvlistValue: { values: [text(longKey, "v")] } } }] }), { limits: { ...limits, maxAttributeKeyBytes: 128 }, stamp: { tenant: null } }) !== null, "a long key inside a value is the value's: read");
    assert.ok(decodeProtobufSpanRecords(oneSpan({ events: [event(), event()], links: [link(), link()], attributes: [text("k".repeat(128), "v")] }), { limits: { ...limits, maxEventsPerSpan: 2, maxLinksPerSpan: 2, maxAttributeKeyBytes: 128 }, stamp: { tenant: null } }) !== null, "at the bounds: read");
    declined(oneSpan({ kind: 6 as SpanDocument["kind"] }), "a span kind out of range");
    declined(oneSpan({ status: { message: "", code: 5 as SpanDocument["status"]["code"] } }), "a status code out of range");
    declined(oneSpan({ parentSpanId: "ab" }), "a parent span id of the wrong length");
    declined(oneSpan({ links: [{ traceId: "ab", spanId: spanId(1), traceState: "", attributes: [], droppedAttributesCount: 0, flags: 0 }] }), "a link trace id of the wrong length");
    let deep: AnyValue = { stringValue: "bottom" };
    for (let level = 0; level < 25; level += 1) deep = { arrayValue: { values: [deep] } };
    declined(oneSpan({ attributes: [{ key: "deep", value: deep }] }), "values nested deeper than the reader reads");
    declined(new Uint8Array(0), "an empty body (nothing to read)");
    declined(Uint8Array.from([0x12, 0x00]), "a non-empty body without resourceSpans");

    // Raw edits the encoder would never write.
    const plain = oneSpan({ name: "ASCII-NAME", attributes: [text("k", "v")] });
    const edited = (body: Uint8Array, marker: string, offset: number, byte: number) => {
      const copy = Uint8Array.from(body);
      copy[Buffer.from(body).indexOf(marker) + offset] = byte;
      return copy;
    };
    for (const [body, why] of [
      [edited(plain, "ASCII-NAME", 0, 0xff), "a name that is not UTF-8"],
      [edited(oneSpan({ attributes: [text("KEY-A", "v")] }), "KEY-A", 2, 0xc3), "a key with a lead byte and no continuation"],
      [edited(oneSpan({ attributes: [text("k", "年假")] }), "年假", 1, 0x41), "a short value with a broken three-byte character"],
      [edited(oneSpan({ attributes: [text("k", `${"a".repeat(80)}年`)] }), "年", 2, 0x41), "a long value with a broken three-byte character"],
    ] as const) {
      declined(body, why);
      assert.equal(decodeTraceRequest(body, "protobuf").ok, false, `the decoding path refuses it too: ${why}`);
    }
    declined(plain.subarray(0, plain.byteLength - 3), "a truncated body");
    declined(Uint8Array.from([...plain, 0x0b, 0x0c]), "a group (wire type 3)");
    // A bool of 2: protobufjs reads it as true; left to it.
    const boolTwo = edited(oneSpan({ attributes: [{ key: "flag", value: { boolValue: true } }] }), "flag", 7, 0x02);
    declined(boolTwo, "a bool of 2");

    // Fields given twice, written by hand: protobufjs merges a message given twice (two lists become one).
    const kinds = { stringOf: (value: string) => field(1, Buffer.from(value)), list: (...items: Buffer[]) => field(5, Buffer.concat(items.map((item) => field(1, item)))) };
    declined(handWritten({ value: Buffer.concat([kinds.list(kinds.stringOf("a")), kinds.list(kinds.stringOf("b"))]) }), "a list value given twice");
    declined(handWritten({ keyValueTail: field(2, kinds.stringOf("again")) }), "a key-value's value given twice");
    declined(handWritten({ spanTail: Buffer.concat([field(15, Buffer.from([0x18, 0x02])), field(15, Buffer.from([0x12, 0x01, 0x6d]))]) }), "a status given twice");
    declined(handWritten({ resourceTwice: true }), "a resource given twice");
    declined(handWritten({ scopeTwice: true }), "a scope given twice");
    // One of the oneof's members after another: the last one given is the value, on both paths or neither.
    assertSameAsDecoding(handWritten({ value: Buffer.concat([kinds.stringOf("a"), Buffer.from([0x18, 0x07])]) }));
    assert.ok(assertSameAsDecoding(handWritten({})) !== null, "the hand-written request itself is read");
  });

  test("thousands of mutated requests: whatever the reader takes, the decoding path takes the same", async () => {
    const bases = [...(await recordedRequests()).slice(0, 1), encodeTraceRequest(sampleTracesDocument())];
    let taken = 0;
    let declined = 0;
    for (const { round, body } of mutatedBodies(bases, 0x5eed1234, 3_000)) {
      if (assertSameAsDecoding(body, { limits, tenant: round % 4 === 0 ? "acme" : null }) === null) declined += 1;
      else taken += 1;
    }
    // Both sides are exercised: many mutations still parse (a changed byte in a text or a number), many do not.
    assert.ok(taken > 300, `${taken} taken`);
    assert.ok(declined > 300, `${declined} declined`);
  });

  test("a bus's message is read as it is: no limits, a tenant stamped at receipt kept, the decoder's records", async () => {
    const stamped = oneSpan({ attributes: [text("long", "z".repeat(5_000))] }, [text("service.name", "svc"), text("ragscope.tenant.authenticated", "acme")]);
    const direct = assertSameAsBusDecoding(stamped);
    assert.ok(direct !== null, "a stamped message with a long value is read");
    assert.equal(direct.traces[0]!.spans[0]!.resource["ragscope.tenant.authenticated"], "acme");
    assert.equal((direct.traces[0]!.spans[0]!.attributes.long as string).length, 5_000);
    const bases = [...(await recordedRequests()).slice(0, 2), encodeTraceRequest(sampleTracesDocument())];
    for (const body of bases) assert.ok(assertSameAsBusDecoding(body) !== null);
    // Asked for one trace only (the routing's use), a message of several is declined, and one of one is read.
    assert.equal(decodeProtobufSpanRecords(bases[0]!, { limits: NO_LIMITS, oneTrace: true }), null, "six traces: declined at the second");
    assert.deepEqual(decodeProtobufSpanRecords(stamped, { limits: NO_LIMITS, oneTrace: true }), direct);
    let taken = 0;
    for (const { body } of mutatedBodies(bases, 0x0b05, 1_500)) if (assertSameAsBusDecoding(body) !== null) taken += 1;
    assert.ok(taken > 150 && taken < 1_350, `${taken} of 1,500 taken`);
  });
});
