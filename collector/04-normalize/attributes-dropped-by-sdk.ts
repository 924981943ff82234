/**
 * How many of a span's attributes its SDK dropped: OTLP `dropped_attributes_count` less what the receiver itself
 * dropped for a long key (per-span-bounds.ts adds those to the count and records how many). What is left is the
 * sender's: an SDK past OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT (128 by default) drops each NEW attribute set after it
 * (the JS `Span.setAttribute` keeps the attributes it has and counts the others), so what a span lost is what was
 * set last — a gap in a flattened list when its items were set out of order, or, set in order, the list's last items.
 * Python's SDK evicts the OLDEST instead: what such a span lost is what was set first. Which order a span's SDK
 * followed is told by its resource's telemetry.sdk.language (sdk-attribute-order.ts).
 * A long key the receiver dropped is none of the keys ragscope reads, so it cuts no list.
 */
import type { SpanRecord } from "../00-otlp/span-record.js";
import { droppedSpanAttributesCountKey } from "../00-otlp/per-span-bounds.js";

export function attributesDroppedBySdk(span: SpanRecord): number {
  const byReceiver = span.attributes[droppedSpanAttributesCountKey];
  return Math.max(0, span.droppedAttributesCount - (typeof byReceiver === "number" ? byReceiver : 0));
}
