/**
 * The raw spans kept for the trace detail page are bounded in bytes: a long
 * attribute value is cut and says how long it was, spans past the trace's
 * budget are left out and counted, and what is kept is the spans as received
 * (times as decimal nanoseconds, in start order).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { SpanRecord } from "../../../collector/00-otlp/span-record.js";
import { boundedRawSpans } from "../../../collector/07-evaluate/bounded-raw-spans.js";
import { rawSpansJson } from "../../support/raw-spans-json.js";
import { storeSpanTexts } from "../../../collector/00-otlp/stored-span-text.js";
import { MAXIMUM_TRACE_BYTES, MAXIMUM_VALUE_BYTES, type RawSpans, type StoredRawSpan } from "../../../contracts/raw-spans.js";

/** The stored JSON array as text. */
const textOf = (raw: RawSpans) => rawSpansJson(raw).toString("utf8");

function span(index: number, attributes: SpanRecord["attributes"]): SpanRecord {
  return {
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: index.toString(16).padStart(16, "0"),
    parentSpanId: index === 0 ? "" : "0000000000000000",
    name: `stage ${index}`,
    kind: 1,
    // Above 2^53: kept exactly as text.
    startTimeUnixNano: 1_780_000_000_000_000_123n + BigInt(index),
    endTimeUnixNano: 1_780_000_000_500_000_123n + BigInt(index),
    attributes,
    events: [{ name: "event", timeUnixNano: 1_780_000_000_100_000_000n, attributes: { note: "é" } }],
    droppedEventsCount: 0,
    droppedAttributesCount: 0,
    status: { code: 0, message: "" },
    resource: { "service.name": "svc" },
    scope: { name: "ragscope", version: "1" },
  };
}

describe("raw spans bounded in bytes", () => {
  test("a small trace is kept whole, in start order, with exact nanosecond times", () => {
    const raw = boundedRawSpans([span(2, { b: [1, 2] }), span(0, { a: "x", nested: { k: true } }), span(1, {})]);
    const spans = JSON.parse(textOf(raw)) as StoredRawSpan[];
    assert.deepEqual(spans.map((item) => item.name), ["stage 0", "stage 1", "stage 2"]);
    assert.equal(spans[0]!.start_time_unix_nano, "1780000000000000123");
    assert.deepEqual(spans[0]!.attributes, { a: "x", nested: { k: true } });
    assert.deepEqual(spans[2]!.attributes, { b: [1, 2] });
    assert.deepEqual(spans[0]!.events, [{ name: "event", time_unix_nano: "1780000000100000000", attributes: { note: "é" } }]);
    assert.deepEqual({ spanCount: raw.spanCount, storedSpanCount: raw.storedSpanCount, truncatedValues: raw.truncatedValues }, { spanCount: 3, storedSpanCount: 3, truncatedValues: 0 });
  });

  test("a value over the bound is cut on a character boundary and marked with its length", () => {
    const long = "é".repeat(MAXIMUM_VALUE_BYTES); // two bytes each
    const raw = boundedRawSpans([span(0, { document: long, list: [long] })]);
    const [kept] = JSON.parse(textOf(raw)) as StoredRawSpan[];
    const document = kept!.attributes.document as string;
    assert.equal(raw.truncatedValues, 2);
    assert.ok(document.endsWith(`… [cut by ragscope: ${2 * MAXIMUM_VALUE_BYTES} bytes]`), document.slice(-60));
    assert.ok(Buffer.byteLength(document.slice(0, document.indexOf("…")), "utf8") <= MAXIMUM_VALUE_BYTES);
    assert.ok(!document.includes("\uFFFD"), "no broken character");
    assert.equal(typeof kept!.attributes.list, "string", "a nested value over the bound is kept as its cut JSON text");
  });

  test("values at the bound: a value's stored JSON is cut exactly when it is over the bound in UTF-8", () => {
    // Each case's value is cut when JSON.stringify(value) (a string: the value itself) takes more than the bound in UTF-8.
    const control = "\u0001"; // six characters of JSON text each, one byte as a string
    const cases: Record<string, SpanRecord["attributes"][string]> = {
      stringAtBound: "a".repeat(MAXIMUM_VALUE_BYTES),
      stringOverBound: "a".repeat(MAXIMUM_VALUE_BYTES + 1),
      shortStringsUnderBound: Array.from({ length: 100 }, () => "abcdefghijklmnopqrstuvwxyz"),
      shortStringsOverBound: Array.from({ length: 400 }, () => "abcdefghijklmnopqrstuvwxyz"),
      escapesUnderBound: [control.repeat(Math.floor((MAXIMUM_VALUE_BYTES - 4) / 6))],
      escapesOverBound: [control.repeat(Math.ceil(MAXIMUM_VALUE_BYTES / 6) + 1)],
      numbersOverBound: Array.from({ length: 2_000 }, (_, index) => index * 1.5),
      nestedOverBound: { inner: "b".repeat(MAXIMUM_VALUE_BYTES) },
      ["__proto__"]: "c".repeat(MAXIMUM_VALUE_BYTES + 10),
    };
    const attributes: SpanRecord["attributes"] = {};
    for (const [key, value] of Object.entries(cases)) Object.defineProperty(attributes, key, { value, enumerable: true, writable: true, configurable: true });
    const raw = boundedRawSpans([span(0, attributes)]);
    const [kept] = JSON.parse(textOf(raw)) as StoredRawSpan[];
    let over = 0;
    for (const [key, value] of Object.entries(cases)) {
      const json = typeof value === "string" ? value : JSON.stringify(value);
      const isOver = Buffer.byteLength(json, "utf8") > MAXIMUM_VALUE_BYTES;
      if (isOver) over += 1;
      const stored = kept!.attributes[key];
      if (isOver) assert.ok(typeof stored === "string" && stored.includes("… [cut by ragscope: "), `${key} is cut`);
      else assert.deepEqual(stored, value, `${key} is kept as it is`);
    }
    assert.equal(over, 6, "the cases straddle the bound as named");
    assert.equal(raw.truncatedValues, over);
    assert.deepEqual(Object.keys(kept!.attributes), Object.keys(cases), "every key kept, __proto__ too, in order");
  });

  test("attributes with nothing to cut are stored as they are, __proto__ included", () => {
    const attributes: SpanRecord["attributes"] = { a: "x", list: ["y", "z"] };
    Object.defineProperty(attributes, "__proto__", { value: "kept", enumerable: true, writable: true, configurable: true });
    const [kept] = JSON.parse(textOf(boundedRawSpans([span(0, attributes)]))) as StoredRawSpan[];
    assert.deepEqual(Object.keys(kept!.attributes), ["a", "list", "__proto__"]);
    assert.equal(Object.getOwnPropertyDescriptor(kept!.attributes, "__proto__")?.value, "kept");
  });

  test("texts the decode thread stored in one buffer, some spans without one: the same array as texts made here", () => {
    const made = () => [span(2, { b: "\\ and é" }), span(0, { a: "x" }), span(1, { c: "\t" })];
    const stored = made();
    const buffer = storeSpanTexts(stored.slice(0, 2));
    assert.ok(stored[0]!.stored!.utf8.buffer === buffer && stored[1]!.stored!.utf8.buffer === buffer, "views of the one buffer");
    assert.equal(stored[2]!.stored, undefined);
    assert.deepEqual(textOf(boundedRawSpans(stored)), textOf(boundedRawSpans(made())));
    assert.deepEqual(JSON.parse(textOf(boundedRawSpans(stored))).map((item: StoredRawSpan) => item.name), ["stage 0", "stage 1", "stage 2"]);
    assert.equal(textOf(boundedRawSpans([])), "[]");
  });

  test("spans past the trace's budget are left out and counted, never silently", () => {
    const value = "a".repeat(MAXIMUM_VALUE_BYTES - 100);
    const spans = Array.from({ length: 100 }, (_, index) => span(index, { one: value, two: value }));
    const raw = boundedRawSpans(spans);
    assert.ok(Buffer.byteLength(textOf(raw), "utf8") <= MAXIMUM_TRACE_BYTES);
    assert.equal(raw.spanCount, 100);
    assert.ok(raw.storedSpanCount > 0 && raw.storedSpanCount < 100, String(raw.storedSpanCount));
    assert.equal((JSON.parse(textOf(raw)) as unknown[]).length, raw.storedSpanCount);
  });
});
