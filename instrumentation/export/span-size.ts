/**
 * An estimate of the memory a queued span holds and of its encoded size, to
 * bound the export queue and the batches in bytes: a span of a retrieval with
 * ten 500-character chunks is ~100 times the size of a cite span, so a bound
 * in spans alone is either wasteful or unsafe. Counted: the text of the name,
 * attribute keys and values, events and status message (one byte per UTF-16
 * code unit, which is what Node holds a one-byte string in), plus a fixed
 * cost per span and per attribute for ids, times and the objects around them.
 * It walks the attributes once, without encoding anything.
 */
import type { Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";

const SPAN_OVERHEAD_BYTES = 200;
const ATTRIBUTE_OVERHEAD_BYTES = 16;

export function estimateSpanBytes(span: ReadableSpan): number {
  let bytes = SPAN_OVERHEAD_BYTES + span.name.length + attributesBytes(span.attributes) + (span.status.message?.length ?? 0);
  for (const event of span.events) bytes += ATTRIBUTE_OVERHEAD_BYTES + event.name.length + (event.attributes === undefined ? 0 : attributesBytes(event.attributes));
  return bytes;
}

function attributesBytes(attributes: Attributes): number {
  let bytes = 0;
  // Object.keys rather than for…in, which checks every key of a large (hash-table) attributes object again.
  const keys = Object.keys(attributes);
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index]!;
    const value = attributes[key];
    bytes += ATTRIBUTE_OVERHEAD_BYTES + key.length;
    if (typeof value === "string") bytes += value.length;
    else if (Array.isArray(value)) {
      for (const item of value) bytes += typeof item === "string" ? item.length + ATTRIBUTE_OVERHEAD_BYTES : 8;
    } else bytes += 8;
  }
  return bytes;
}
