/**
 * Bounds a trace's spans in bytes for the store's `trace_spans` (the
 * contract and its limits: contracts/raw-spans.ts): each span's stored text
 * (collector/00-otlp/stored-span-text.ts: values cut to MAXIMUM_VALUE_BYTES),
 * in start order; spans past MAXIMUM_TRACE_BYTES of JSON are left out and
 * counted. A span the decode thread already made the text of is not
 * serialised again, and the texts are not joined here: the insert body is
 * where the array is written (store/clickhouse/tab-separated-body.ts).
 */
import { MAXIMUM_TRACE_BYTES, type RawSpans } from "../../contracts/raw-spans.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import { storedSpanText } from "../00-otlp/stored-span-text.js";

/** The trace's spans in start order (then span id), bounded as the module says. */
export function boundedRawSpans(spans: readonly SpanRecord[]): RawSpans {
  const ordered = [...spans].sort((first, second) => (first.startTimeUnixNano < second.startTimeUnixNano ? -1 : first.startTimeUnixNano > second.startTimeUnixNano ? 1 : first.spanId < second.spanId ? -1 : 1));
  let truncated = 0;
  const kept: Uint8Array[] = [];
  // The brackets, and a comma before every span but the first.
  let bytes = 2;
  for (const span of ordered) {
    const text = span.stored ?? storedSpanText(span);
    const size = text.utf8.byteLength + (kept.length === 0 ? 0 : 1);
    if (bytes + size > MAXIMUM_TRACE_BYTES) break;
    kept.push(text.utf8);
    truncated += text.truncated;
    bytes += size;
  }
  return { spans: kept, spanCount: spans.length, storedSpanCount: kept.length, truncatedValues: truncated };
}
