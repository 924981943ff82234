/**
 * One span as the store's `trace_spans` keeps it (contracts/raw-spans.ts), as
 * JSON text: an attribute value longer than MAXIMUM_VALUE_BYTES is cut and
 * ends with a marker saying how long it was.
 *
 * Made where the span is decoded: in the receiver's decode thread for the
 * embedded path (prepare-trace-messages.ts sets `SpanRecord.stored`), so the
 * evaluation loop only orders and joins the texts of a trace
 * (collector/07-evaluate/bounded-raw-spans.ts). Building it there was ~5 % of
 * that loop's time and 12 KB of garbage per span. As UTF-8 bytes: the loop
 * neither copies them onto its heap nor encodes them again for the insert.
 */
import { MAXIMUM_VALUE_BYTES, type StoredRawSpan } from "../../contracts/raw-spans.js";
import type { AttributeValue, Attributes, SpanRecord, StoredSpanText } from "./span-record.js";
import { setOwn } from "./to-span-records.js";

function cutText(text: string, counter: { truncated: number }): string {
  if (text.length * 3 <= MAXIMUM_VALUE_BYTES) return text;
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes <= MAXIMUM_VALUE_BYTES) return text;
  counter.truncated += 1;
  // Cut on a character boundary (toString drops a split multi-byte character's bytes as U+FFFD; trimmed).
  const kept = Buffer.from(text, "utf8").subarray(0, MAXIMUM_VALUE_BYTES).toString("utf8").replace(/\uFFFD$/, "");
  return `${kept}… [cut by ragscope: ${bytes} bytes]`;
}

/** Whether `text` is longer than the bound in UTF-8; measured only when its length allows it. */
function overBound(text: string): boolean {
  return text.length * 3 > MAXIMUM_VALUE_BYTES && Buffer.byteLength(text, "utf8") > MAXIMUM_VALUE_BYTES;
}

function boundedValue(value: AttributeValue, counter: { truncated: number }): AttributeValue {
  if (typeof value === "string") return cutText(value, counter);
  if (value === null || typeof value !== "object") return value;
  const json = JSON.stringify(value);
  if (!overBound(json)) return value;
  // A nested value over the bound is kept as its cut JSON text.
  return cutText(json, counter);
}

/** Units of JSON text a flat array's items take at most: a string's character escapes to at most six. */
const MOST_JSON_UNITS_PER_CHARACTER = 6;
const MOST_JSON_UNITS_PER_SCALAR = 25;

/** Whether boundedValue would change `value`; flat arrays are bounded by their items' lengths, not stringified. */
function valueOverBound(value: AttributeValue): boolean {
  if (typeof value === "string") return overBound(value);
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) {
    let units = 2;
    for (const item of value) units += typeof item === "string" ? item.length * MOST_JSON_UNITS_PER_CHARACTER + 3 : typeof item === "object" && item !== null ? Number.POSITIVE_INFINITY : MOST_JSON_UNITS_PER_SCALAR;
    if (units * 3 <= MAXIMUM_VALUE_BYTES) return false;
  }
  return overBound(JSON.stringify(value));
}

/**
 * The attributes with keys and values cut to the bound. Nearly always nothing
 * needs cutting, and then they are returned as they are: JSON.stringify writes
 * them the same, and copying a span's forty-odd attributes into a new object
 * was a tenth of a decode thread's time (with the garbage it made).
 */
function boundedAttributes(attributes: Attributes, counter: { truncated: number }): Attributes {
  const keys = Object.keys(attributes);
  if (!keys.some((key) => overBound(key) || valueOverBound(attributes[key]!))) return attributes;
  const bounded: Attributes = {};
  for (const key of keys) {
    const value = boundedValue(attributes[key]!, counter);
    setOwn(bounded, cutText(key, counter), value);
  }
  return bounded;
}

export function toStoredRawSpan(span: SpanRecord, counter: { truncated: number } = { truncated: 0 }): StoredRawSpan {
  return {
    trace_id: span.traceId,
    span_id: span.spanId,
    parent_span_id: span.parentSpanId,
    name: cutText(span.name, counter),
    kind: span.kind,
    start_time_unix_nano: span.startTimeUnixNano.toString(),
    end_time_unix_nano: span.endTimeUnixNano.toString(),
    status: { code: span.status.code, message: cutText(span.status.message, counter) },
    attributes: boundedAttributes(span.attributes, counter),
    events: span.events.map((event) => ({
      name: cutText(event.name, counter),
      time_unix_nano: event.timeUnixNano.toString(),
      attributes: boundedAttributes(event.attributes, counter),
      ...(event.body === undefined ? {} : { body: boundedValue(event.body, counter) }),
    })),
    resource: boundedAttributes(span.resource, counter),
    scope: { name: cutText(span.scope.name, counter), version: cutText(span.scope.version, counter) },
    ...(span.droppedAttributesCount > 0 ? { dropped_attributes_count: span.droppedAttributesCount } : {}),
    ...(span.droppedEventsCount > 0 ? { dropped_events_count: span.droppedEventsCount } : {}),
  };
}

/** The span's stored JSON as text, with the values cut in it. */
function storedJson(span: SpanRecord): { json: string; truncated: number } {
  const counter = { truncated: 0 };
  return { json: JSON.stringify(toStoredRawSpan(span, counter)), truncated: counter.truncated };
}

/** The span's stored JSON as UTF-8, with the values cut in it. */
export function storedSpanText(span: SpanRecord): StoredSpanText {
  const { json, truncated } = storedJson(span);
  return { utf8: Buffer.from(json, "utf8"), truncated };
}

/**
 * The stored texts of several spans (one trace's) in one buffer of their own, each span's `stored` a view of it:
 * a decode thread transfers that buffer to the evaluation loop instead of copying a buffer per span.
 */
export function storeSpanTexts(spans: readonly SpanRecord[]): ArrayBuffer {
  const texts = spans.map((span) => {
    const { json, truncated } = storedJson(span);
    return { json, bytes: Buffer.byteLength(json, "utf8"), truncated };
  });
  const buffer = Buffer.allocUnsafeSlow(texts.reduce((sum, text) => sum + text.bytes, 0));
  let offset = 0;
  spans.forEach((span, index) => {
    const text = texts[index]!;
    buffer.write(text.json, offset, "utf8");
    span.stored = { utf8: buffer.subarray(offset, offset + text.bytes), truncated: text.truncated };
    offset += text.bytes;
  });
  return buffer.buffer as ArrayBuffer;
}
