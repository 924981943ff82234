/**
 * The request's items counted on its bytes (count-request-items.ts) against the decoded request: on the codec
 * tests' sample, recorded SDK requests, values nested in arrays and key-value lists, resources copied onto their
 * spans, events and links past the per-span bounds, raw edits an encoder never writes and a thousand mutated
 * bodies, the count on the wire passes the bound exactly where the decoded document's count does (never later), and
 * every path of the receiver refuses such a request (413) naming RAGSCOPE_MAX_ITEMS_PER_REQUEST and where it was
 * passed — before anything is decoded. OTLP/JSON bodies are held to their objects and arrays before JSON.parse.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { countDocumentItems, countJsonContainers, countProtobufItems, JSON_CONTAINERS_PER_ITEM, type ItemBounds } from "../../../collector/00-otlp/count-request-items.js";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import { encodeTraceRequestJson } from "../../../collector/00-otlp/encode-json.js";
import { encodeTraceRequest } from "../../../collector/00-otlp/encode-protobuf.js";
import { keepFirstEventsAndLinks } from "../../../collector/00-otlp/per-span-bounds.js";
import type { AnyValue, KeyValue, SpanDocument, TracesDocument } from "../../../collector/00-otlp/traces-document.js";
import { prepareTraceMessages, type PrepareRequest } from "../../../collector/01-receive/prepare-trace-messages.js";
import { limits, mutatedBodies, recordedRequests, span, spanId, text, trace } from "./request-fixtures.js";
import { sampleTracesDocument } from "./sample-traces-document.js";
import { field } from "../../support/protobuf-wire.js";

const emptyEvent = (index: number) => ({ timeUnixNano: BigInt(index), name: "", attributes: [] as KeyValue[], droppedAttributesCount: 0 });
const link = (index: number, attributes: KeyValue[] = []) => ({ traceId: trace(500 + index), spanId: spanId(500 + index), traceState: "", attributes, droppedAttributesCount: 0, flags: 0 });
const array = (values: Array<AnyValue | null>): AnyValue => ({ arrayValue: { values } });

function request(spans: SpanDocument[], resource: KeyValue[] = [text("service.name", "items")], scope: KeyValue[] = []): TracesDocument {
  return {
    resourceSpans: [{ resource: { attributes: resource, droppedAttributesCount: 0 }, scopeSpans: [{ scope: { name: "s", version: "", attributes: scope, droppedAttributesCount: 0 }, spans, schemaUrl: "" }], schemaUrl: "" }],
  };
}

/** The decoded request's items as the decoding path counts them: decoded, its events and links cut to the bounds. */
function decodedItems(body: Uint8Array, bounds: ItemBounds): number | null {
  const decoded = decodeTraceRequest(body, "protobuf");
  if (!decoded.ok) return null;
  for (const resourceSpans of decoded.value.resourceSpans) for (const scopeSpans of resourceSpans.scopeSpans) for (const one of scopeSpans.spans) keepFirstEventsAndLinks(one, { ...limits, ...bounds });
  const counted = countDocumentItems(decoded.value, Number.POSITIVE_INFINITY);
  assert.equal(counted.kind, "within");
  return counted.kind === "within" ? counted.items : null;
}

const bounds = (maxItemsPerRequest: number, per: Partial<ItemBounds> = {}): ItemBounds => ({ maxItemsPerRequest, maxEventsPerSpan: limits.maxEventsPerSpan, maxLinksPerSpan: limits.maxLinksPerSpan, ...per });

/** The wire count passes a bound of one item less than the decoded request holds, and not a bound of exactly that. */
function assertCountedExactly(body: Uint8Array, why: string, per: Partial<ItemBounds> = {}): number {
  const items = decodedItems(body, bounds(Number.POSITIVE_INFINITY, per));
  assert.ok(items !== null && items > 0, `${why}: decodes`);
  assert.equal(countProtobufItems(body, bounds(items, per)).kind, "within", `${why}: ${items} items are within a bound of ${items}`);
  assert.equal(countProtobufItems(body, bounds(items - 1, per)).kind, "over", `${why}: ${items} items pass a bound of ${items - 1}`);
  return items;
}

describe("the request's items, counted on the protobuf bytes", () => {
  test("spans, events, links, attributes of every holder and the values inside arrays and key-value lists: the count the decoded request gives", async () => {
    assertCountedExactly(encodeTraceRequest(sampleTracesDocument()), "the codec tests' sample");
    for (const [index, body] of (await recordedRequests()).entries()) assertCountedExactly(body, `recorded SDK request ${index}`);
    const nested: KeyValue = { key: "nested", value: { kvlistValue: { values: [text("a", "1"), { key: "list", value: array([{ stringValue: "x" }, null, array([{ intValue: 1n }, { kvlistValue: { values: [text("deep", "y")] } }])]) }] } } };
    const items = assertCountedExactly(
      encodeTraceRequest(
        request(
          [span(trace(1), spanId(1), { attributes: [text("k", "v"), nested], events: [{ ...emptyEvent(0), attributes: [nested] }, emptyEvent(1)], links: [link(0, [text("l", "v")])] })],
          [text("service.name", "items"), nested],
          [text("scope.attribute", "v")],
        ),
      ),
      "values nested in arrays and lists, on the span, an event, a link, the resource and the scope",
    );
    // Per holder: the nested attribute is 1 + (a, list, [x, null, [1, {deep}]]) = 1 + 2 + 3 + 2 + 1 = 9 items.
    // Resource (service.name + nested) 10, once and once more for the span; scope 1; span 1 + 10; events 2 + 9; link 1 + 1.
    assert.equal(items, 10 + 10 + 1 + 1 + 10 + 2 + 9 + 2);
  });

  test("a resource's attributes count once more for each of its spans, which each carry a copy", () => {
    const resource = Array.from({ length: 100 }, (_, index) => text(`r${index}`, "v"));
    const spans = Array.from({ length: 50 }, (_, index) => span(trace(2), spanId(index + 1)));
    const items = assertCountedExactly(encodeTraceRequest(request(spans, resource)), "a wide resource");
    assert.equal(items, 100 + 50 * (1 + 100));
    // The resource given after its scope spans on the wire is counted the same.
    const document = request(spans, resource);
    const body = encodeTraceRequest(document);
    const resourceField = encodeTraceRequest({ resourceSpans: [{ ...document.resourceSpans[0]!, scopeSpans: [] }] });
    const scopeField = encodeTraceRequest({ resourceSpans: [{ ...document.resourceSpans[0]!, resource: { attributes: [], droppedAttributesCount: 0 } }] });
    assert.ok(body.byteLength > 0 && resourceField.byteLength > 0);
    const reordered = rewrap(Buffer.concat([innerOf(scopeField), innerOf(resourceField)]));
    assert.equal(assertCountedExactly(reordered, "the resource after its spans"), items);
  });

  test("events and links past the per-span bounds are not counted: they are stepped over, never decoded", () => {
    const body = encodeTraceRequest(request([span(trace(3), spanId(1), { events: Array.from({ length: 50 }, (_, index) => emptyEvent(index)), links: Array.from({ length: 20 }, (_, index) => link(index)) })]));
    const items = assertCountedExactly(body, "events and links past their bounds", { maxEventsPerSpan: 10, maxLinksPerSpan: 5 });
    assert.equal(items, 1 /* service.name */ + 1 /* copy */ + 1 + 10 + 5);
  });

  test("raw edits an encoder never writes: unknown fields, a field of another wire type, groups, a message given twice", () => {
    const plain = encodeTraceRequest(request([span(trace(4), spanId(1), { attributes: [text("a", "1"), text("b", "2")] })]));
    const resourceSpans = innerOf(plain);
    // An unknown varint field, an unknown group and a resource spans field (1) written as a varint, all skipped.
    const edited = Buffer.concat([Buffer.from([0x78, 0x05]), Buffer.from([0x7b, 0x08, 0x01, 0x7c]), Buffer.from([0x08, 0x01]), field(1, resourceSpans), field(1, resourceSpans)]);
    assertCountedExactly(edited, "unknown fields, a group, another wire type, resource spans twice");
  });

  test("mutated bodies: wherever the decoded request holds more items than the bound, the count on the bytes passes it too", async () => {
    const bases = [...(await recordedRequests()), encodeTraceRequest(sampleTracesDocument())];
    let decoded = 0;
    for (const { round, body } of mutatedBodies(bases, 0x17e45, 1_000)) {
      const items = decodedItems(body, bounds(Number.POSITIVE_INFINITY));
      if (items === null || items === 0) {
        // protobufjs refuses it: the count may stop where it does, and never throws.
        countProtobufItems(body, bounds(1));
        continue;
      }
      decoded += 1;
      assert.equal(countProtobufItems(body, bounds(items - 1)).kind, "over", `round ${round}: ${items} items`);
    }
    assert.ok(decoded > 200, `${decoded} mutated bodies decoded`);
  });

  test("where the count stops, protobufjs refuses: nothing past that point is ever decoded", () => {
    const events = Buffer.alloc(2_000);
    for (let index = 0; index < 1_000; index += 1) events[index * 2] = 11 * 8 + 2;
    const one = encodeTraceRequest(request([span(trace(5), spanId(1))]));
    const spanBytes = spanOf(one);
    // The events after a field number 0: the count stops there, within the bound; protobufjs refuses the body there.
    const broken = rewrap(Buffer.concat([spanBytes, Buffer.from([0x00, 0x00]), events]), 3);
    assert.equal(countProtobufItems(broken, bounds(10)).kind, "within");
    assert.equal(decodeTraceRequest(broken, "protobuf").ok, false);
    // Values nested past protobufjs's hundred message levels: the same.
    let value: AnyValue = { stringValue: "bottom" };
    for (let level = 0; level < 60; level += 1) value = array([value]);
    const deep = encodeTraceRequestUnchecked(request([span(trace(6), spanId(1), { attributes: [{ key: "deep", value }] })]));
    assert.equal(countProtobufItems(deep, bounds(10)).kind, "over", "the arrays counted before the depth protobufjs refuses pass a bound of 10");
    assert.equal(countProtobufItems(deep, bounds(1_000)).kind, "within");
    assert.equal(decodeTraceRequest(deep, "protobuf").ok, false);
  });

  test("the refusal says what was counted, where the bound was passed and how to send less", () => {
    const spans = Array.from({ length: 20 }, (_, index) => span(trace(7), spanId(index + 1), { events: Array.from({ length: 10 }, (_, event) => emptyEvent(event)) }));
    const counted = countProtobufItems(encodeTraceRequest(request(spans)), bounds(100));
    assert.equal(counted.kind, "over");
    assert.ok(counted.kind === "over");
    assert.match(counted.message, /more than 100 items \(RAGSCOPE_MAX_ITEMS_PER_REQUEST/);
    assert.match(counted.message, new RegExp(`passed at resourceSpans\\[0\\]\\.scopeSpans\\[0\\]\\.spans\\[8\\] \\(trace ${trace(7)}, span ${spanId(9)}\\)`));
    assert.match(counted.message, /with 9 spans, 82 events, 0 links, 1 attributes, 0 array elements, 9 copies of resource attributes/);
    assert.match(counted.message, /OTEL_BSP_MAX_EXPORT_BATCH_SIZE/);
    const document = countDocumentItems(decodeOrThrow(encodeTraceRequest(request(spans))), 100);
    assert.ok(document.kind === "over");
    // The document is counted a span at a time: the ninth span's twelve items pass it.
    assert.match(document.message, new RegExp(`passed at resourceSpans\\[0\\]\\.scopeSpans\\[0\\]\\.spans\\[8\\] \\(trace ${trace(7)}, span ${spanId(9)}\\)`));
  });
});

describe("OTLP/JSON bodies, before JSON.parse", () => {
  test("objects and arrays outside strings are counted, at most JSON_CONTAINERS_PER_ITEM an item; braces inside strings and escaped quotes are text", () => {
    const tricky = new TextEncoder().encode(`{"a":"{[\\"{[","b":[{},{}],"c":"\\\\","d":[[]]}`);
    // Outer object, b's array and its two objects, d's two arrays: 6, two allowed items' worth.
    assert.equal(JSON_CONTAINERS_PER_ITEM, 3);
    assert.equal(countJsonContainers(tricky, { maxItemsPerRequest: 2 }).kind, "within");
    const over = countJsonContainers(tricky, { maxItemsPerRequest: 1 });
    assert.ok(over.kind === "over");
    assert.match(over.message, new RegExp(`more than 3 objects and arrays \\(passed at byte ${new TextDecoder().decode(tricky).indexOf(",{}]") + 1} of ${tricky.byteLength}\\)`));
    assert.match(over.message, /RAGSCOPE_MAX_ITEMS_PER_REQUEST/);
  });

  test("a body of at most two bytes an allowed object is not read", () => {
    assert.equal(countJsonContainers(new TextEncoder().encode("[[[]]]"), { maxItemsPerRequest: 1 }).kind, "within");
    assert.equal(countJsonContainers(new TextEncoder().encode("[[[[]]]]"), { maxItemsPerRequest: 1 }).kind, "over");
  });

  test("a request within the bound in protobuf is within it in JSON: the codec tests' sample and a request of many attributes", () => {
    for (const document of [sampleTracesDocument(), request([span(trace(8), spanId(1), { attributes: Array.from({ length: 500 }, (_, index) => text(`k${index}`, "v")) })])]) {
      const items = decodedItems(encodeTraceRequest(document), bounds(Number.POSITIVE_INFINITY))!;
      assert.equal(countJsonContainers(new TextEncoder().encode(encodeTraceRequestJson(document)), { maxItemsPerRequest: items }).kind, "within");
    }
  });
});

describe("every path of the receiver refuses a request over the bound before decoding it", () => {
  const over = request(Array.from({ length: 30 }, (_, index) => span(trace(9), spanId(index + 1), { events: Array.from({ length: 5 }, (_, event) => emptyEvent(event)) })));
  const tight = { ...limits, maxItemsPerRequest: 150 };
  const protobuf = encodeTraceRequest(over);
  const json = new TextEncoder().encode(encodeTraceRequestJson(over));

  test("protobuf for a bus of bytes (with and without a tenant) and for a bus in this process: 413 naming the setting", () => {
    const base: PrepareRequest = { body: protobuf, encoding: "protobuf", limits: tight, tenant: null };
    for (const prepare of [base, { ...base, tenant: "acme" }, { ...base, output: "decoded" as const }]) {
      const prepared = prepareTraceMessages({ ...prepare, body: Uint8Array.from(protobuf) });
      assert.equal(prepared.kind, "tooLarge");
      assert.match(prepared.kind === "tooLarge" ? prepared.message : "", /RAGSCOPE_MAX_ITEMS_PER_REQUEST/);
    }
    assert.equal(prepareTraceMessages({ ...base, limits: { ...tight, maxItemsPerRequest: 211 } }).kind, "prepared", "at the bound: taken");
  });

  test("OTLP/JSON: refused on its objects and arrays before parsing, or on its items once parsed", () => {
    const containers = prepareTraceMessages({ body: json, encoding: "json", limits: { ...tight, maxItemsPerRequest: 20 }, tenant: null });
    assert.ok(containers.kind === "tooLarge");
    assert.match(containers.message, /OTLP\/JSON body holds more than 60 objects and arrays/);
    const items = prepareTraceMessages({ body: json, encoding: "json", limits: { ...tight, maxItemsPerRequest: 200 }, tenant: null });
    assert.ok(items.kind === "tooLarge");
    assert.match(items.message, /the request holds more than 200 items/);
    assert.equal(prepareTraceMessages({ body: json, encoding: "json", limits: { ...tight, maxItemsPerRequest: 211 }, tenant: null }).kind, "prepared", "at the bound: taken");
  });
});

function decodeOrThrow(body: Uint8Array): TracesDocument {
  const decoded = decodeTraceRequest(body, "protobuf");
  if (!decoded.ok) throw new Error(decoded.error.message);
  return decoded.value;
}

/** The encoder refuses values nested past the decoders' depth; the same bytes written by hand. */
function encodeTraceRequestUnchecked(document: TracesDocument): Uint8Array {
  const one = document.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
  const attribute = one.attributes[0]!;
  const valueBytes = (value: AnyValue): Buffer => ("arrayValue" in value ? field(5, Buffer.concat(value.arrayValue.values.map((element) => field(1, valueBytes(element!))))) : field(1, Buffer.from((value as { stringValue: string }).stringValue)));
  const keyValue = Buffer.concat([field(1, Buffer.from(attribute.key)), field(2, valueBytes(attribute.value!))]);
  const withoutAttributes = spanOf(encodeTraceRequest({ resourceSpans: [{ ...document.resourceSpans[0]!, scopeSpans: [{ ...document.resourceSpans[0]!.scopeSpans[0]!, spans: [{ ...one, attributes: [] }] }] }] }));
  return rewrap(Buffer.concat([withoutAttributes, field(9, keyValue)]), 3);
}

/** The content of a message's first length-delimited field numbered `number` (every field before it length-delimited too). */
function fieldOf(body: Uint8Array, number: number): Buffer {
  const bytes = Buffer.from(body);
  let position = 0;
  while (position < bytes.byteLength) {
    const tag = bytes[position++]!;
    let length = 0;
    let scale = 1;
    for (;;) {
      const byte = bytes[position++]!;
      length += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 128;
    }
    if (tag === number * 8 + 2) return bytes.subarray(position, position + length);
    position += length;
  }
  throw new Error(`no field ${number}`);
}

/** A request's resource spans content. */
const innerOf = (body: Uint8Array) => fieldOf(body, 1);

/** The first span of a request of one resource and one scope. */
const spanOf = (body: Uint8Array) => fieldOf(fieldOf(fieldOf(body, 1), 2), 2);

/**
 * Wraps content back up: `levels` 1 makes resource spans content a request, 3 makes span content a request (span in
 * scope spans in resource spans).
 */
function rewrap(content: Buffer, levels = 1): Buffer {
  let wrapped = content;
  for (let level = 0; level < levels; level += 1) wrapped = field(level === 0 && levels === 3 ? 2 : level === 1 ? 2 : 1, wrapped);
  return wrapped;
}
