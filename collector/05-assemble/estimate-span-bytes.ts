/**
 * An estimate of the heap a SpanRecord holds, for bounding the assembler by
 * bytes rather than by span count (one span may carry a few bytes or a
 * megabyte of retrieved text).
 *
 * It errs on the high side: strings count two bytes per UTF-16 code unit
 * (V8 stores Latin-1 strings in one), and every object, array and property
 * a fixed overhead. The resource and scope are counted once per span even
 * though spans of one request share them: an estimate that over-counts keeps
 * the bound a bound.
 */
import type { LogEventRecord } from "../00-otlp/log-event-record.js";
import type { AttributeValue, Attributes, SpanRecord } from "../00-otlp/span-record.js";

const OBJECT_OVERHEAD = 64;
const PROPERTY_OVERHEAD = 16;

export function estimateSpanBytes(span: SpanRecord): number {
  let bytes = OBJECT_OVERHEAD * 4 + 2 * (span.traceId.length + span.spanId.length + span.parentSpanId.length + span.name.length + span.status.message.length);
  bytes += attributesBytes(span.attributes) + attributesBytes(span.resource);
  bytes += 2 * (span.scope.name.length + span.scope.version.length);
  for (const event of span.events) bytes += OBJECT_OVERHEAD + 2 * event.name.length + attributesBytes(event.attributes) + (event.body === undefined ? 0 : valueBytes(event.body));
  // The stored text the decode thread made (stored-span-text.ts) is held with the span, as bytes outside the heap.
  if (span.stored !== undefined) bytes += OBJECT_OVERHEAD + span.stored.utf8.byteLength;
  return bytes;
}

/** The same estimate for an event that came as a log record, held until it is joined to its span. */
export function estimateLogEventBytes(event: LogEventRecord): number {
  return OBJECT_OVERHEAD * 2 + 2 * (event.traceId.length + event.spanId.length + event.name.length + (event.tenant?.length ?? 0)) + attributesBytes(event.attributes) + valueBytes(event.body);
}

function attributesBytes(attributes: Attributes): number {
  let bytes = OBJECT_OVERHEAD;
  for (const key in attributes) bytes += PROPERTY_OVERHEAD + 2 * key.length + valueBytes(attributes[key]!);
  return bytes;
}

function valueBytes(value: AttributeValue): number {
  if (typeof value === "string") return OBJECT_OVERHEAD / 4 + 2 * value.length;
  if (value === null || typeof value !== "object") return 8;
  if (Array.isArray(value)) {
    let bytes = OBJECT_OVERHEAD;
    for (const item of value) bytes += 8 + valueBytes(item);
    return bytes;
  }
  return attributesBytes(value);
}
