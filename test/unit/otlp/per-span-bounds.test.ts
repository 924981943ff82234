/**
 * The receiver's per-span bounds on the decoded request (enforce-request-limits.ts with per-span-bounds.ts), as the
 * OTLP/JSON path and a protobuf body the byte readers decline meet them: which attributes a key bound drops (bytes,
 * not characters; the key at the bound is kept), how they are counted once and listed on each span, at most 32 a
 * span, and that a client's own claim under the receiver's keys does not survive a drop. And span and event names
 * held to RAGSCOPE_MAX_NAME_BYTES, cut as values are.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { enforceRequestLimits, truncatedAttributesKey, truncatedNamesKey } from "../../../collector/00-otlp/enforce-request-limits.js";
import { droppedAttributesKey, droppedEventsCountKey } from "../../../collector/00-otlp/per-span-bounds.js";
import type { KeyValue, SpanDocument, TracesDocument } from "../../../collector/00-otlp/traces-document.js";
import { limits, span, spanId, text, trace } from "./request-fixtures.js";

const bounds = { ...limits, maxAttributeKeyBytes: 128, maxEventsPerSpan: 2 };

function request(spans: SpanDocument[], resource: KeyValue[] = []): TracesDocument {
  return { resourceSpans: [{ resource: { attributes: resource, droppedAttributesCount: 0 }, scopeSpans: [{ scope: { name: "s", version: "", attributes: [], droppedAttributesCount: 0 }, spans, schemaUrl: "" }], schemaUrl: "" }] };
}

const listedOn = (item: SpanDocument, key = droppedAttributesKey) => {
  const value = item.attributes.find((attribute) => attribute.key === key)?.value;
  return value !== undefined && value !== null && "arrayValue" in value ? value.arrayValue.values.map((entry) => (entry !== null && "stringValue" in entry ? entry.stringValue : "")) : [];
};

describe("per-span bounds on the decoded request", () => {
  test("the key bound counts UTF-8 bytes: a key of 128 bytes is kept, of 129 dropped, and listed by its beginning and length", () => {
    const atBound = "é".repeat(64);
    const overBound = `${"é".repeat(64)}x`;
    const document = request([span(trace(1), spanId(1), { attributes: [text(atBound, "kept"), text(overBound, "dropped"), text("plain", "kept")] })]);
    const applied = enforceRequestLimits(document, bounds);
    assert.ok(applied.ok);
    assert.equal(applied.value.droppedAttributes, 1);
    const limited = document.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
    assert.deepEqual(limited.attributes.slice(0, 2).map((attribute) => attribute.key), [atBound, "plain"]);
    assert.equal(limited.droppedAttributesCount, 1);
    assert.deepEqual(listedOn(limited), [`${"é".repeat(64)}… (129 bytes)`]);
  });

  test("a resource's dropped keys are counted once, listed on each of its spans, at most 32 a span and then how many more", () => {
    const resource = Array.from({ length: 40 }, (_, index) => text(`${index}.${"r".repeat(200)}`, "v"));
    const document = request([span(trace(1), spanId(1)), span(trace(1), spanId(2))], [text("service.name", "kept"), ...resource]);
    const applied = enforceRequestLimits(document, bounds);
    assert.ok(applied.ok);
    assert.equal(applied.value.droppedAttributes, 40);
    const { resource: limitedResource, scopeSpans } = document.resourceSpans[0]!;
    assert.deepEqual(limitedResource.attributes.map((attribute) => attribute.key), ["service.name"]);
    assert.equal(limitedResource.droppedAttributesCount, 40);
    for (const item of scopeSpans[0]!.spans) {
      const listed = listedOn(item);
      assert.equal(listed.length, 33);
      assert.match(listed[0]!, /^resource: 0\.r+… \(202 bytes\)$/);
      assert.equal(listed[32], "… and 8 more");
    }
  });

  test("the receiver's counts replace a client's own claim under the same key; without a drop the claim stays, as the byte readers leave it", () => {
    const claim = { key: droppedEventsCountKey, value: { intValue: 99n } };
    const events = Array.from({ length: 5 }, (_, index) => ({ timeUnixNano: BigInt(index), name: "e", attributes: [], droppedAttributesCount: 0 }));
    const document = request([span(trace(1), spanId(1), { attributes: [claim], events, droppedEventsCount: 7 }), span(trace(1), spanId(2), { attributes: [claim] })]);
    const applied = enforceRequestLimits(document, bounds);
    assert.ok(applied.ok);
    assert.equal(applied.value.droppedEvents, 3);
    const [cut, untouched] = document.resourceSpans[0]!.scopeSpans[0]!.spans;
    assert.deepEqual(cut!.attributes.filter((attribute) => attribute.key === droppedEventsCountKey), [{ key: droppedEventsCountKey, value: { intValue: 3n } }]);
    assert.equal(cut!.droppedEventsCount, 7 + 3, "OTLP's count holds the SDK's and the receiver's");
    assert.deepEqual(untouched!.attributes, [claim]);
  });

  test("a link's attributes are held to RAGSCOPE_MAX_ATTRIBUTES_PER_SPAN, but only those of the links the span keeps", () => {
    const link = (count: number) => ({ traceId: trace(2), spanId: spanId(2), traceState: "", attributes: Array.from({ length: count }, (_, index) => text(`a${index}`, "v")), droppedAttributesCount: 0, flags: 0 });
    const tight = { ...bounds, maxAttributesPerSpan: 2, maxLinksPerSpan: 1 };
    const refused = enforceRequestLimits(request([span(trace(1), spanId(1), { links: [link(3)] })]), tight);
    assert.ok(!refused.ok);
    assert.match(refused.error, /on it or on one of its events or links \(RAGSCOPE_MAX_ATTRIBUTES_PER_SPAN\)/);
    assert.ok(enforceRequestLimits(request([span(trace(1), spanId(1), { links: [link(2), link(3)] })]), tight).ok, "the second link is dropped, not counted");
  });

  test("span and event names longer than RAGSCOPE_MAX_NAME_BYTES are cut at a code-point boundary, counted and listed on the span with their length", () => {
    const tight = { ...bounds, maxNameBytes: 64, maxAttributeValueBytes: 64 };
    const event = (name: string, attributes: KeyValue[] = []) => ({ timeUnixNano: 1n, name, attributes, droppedAttributesCount: 0 });
    // 81 bytes; the 64th is the second of a two-byte character, so the cut ends one byte before it.
    const longName = `x${"é".repeat(40)}`;
    const document = request([
      span(trace(1), spanId(1), { name: "s".repeat(2 * 1024 * 1024), events: [event("short"), event(longName, [text("long", "z".repeat(100))])] }),
      span(trace(1), spanId(2), { name: "n".repeat(64), events: [event("é".repeat(32))], attributes: [{ key: truncatedNamesKey, value: { stringValue: "a client's own" } }] }),
    ]);
    const applied = enforceRequestLimits(document, tight);
    assert.ok(applied.ok);
    assert.equal(applied.value.truncatedNames, 2);
    const [cut, atBound] = document.resourceSpans[0]!.scopeSpans[0]!.spans;
    assert.equal(cut!.name, "s".repeat(64));
    assert.deepEqual(cut!.events.map((item) => item.name), ["short", `x${"é".repeat(31)}`]);
    assert.deepEqual(listedOn(cut!, truncatedNamesKey), [`name (${2 * 1024 * 1024} bytes)`, "event 1: name (81 bytes)"]);
    // A value cut on the event is listed under the event's cut name.
    assert.deepEqual(listedOn(cut!, truncatedAttributesKey), [`x${"é".repeat(31)}: long`]);
    assert.equal(atBound!.name, "n".repeat(64), "a name at the bound is kept whole");
    assert.equal(atBound!.events[0]!.name, "é".repeat(32));
    assert.deepEqual(atBound!.attributes, [{ key: truncatedNamesKey, value: { stringValue: "a client's own" } }], "nothing cut: a client's value under the key stays, as the byte readers leave it");
  });
});
