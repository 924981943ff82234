/**
 * Bounds a trace's spans in bytes for the store's `trace_spans` (the
 * contract and its limits: contracts/raw-spans.ts): each span's stored text
 * (collector/00-otlp/stored-span-text.ts: values cut to MAXIMUM_VALUE_BYTES),
 * in start order; spans past MAXIMUM_TRACE_BYTES of JSON are left out and
 * counted. A span the decode thread already made the text of is not
 * serialised again.
 */
import { MAXIMUM_TRACE_BYTES, type RawSpans } from "../../contracts/raw-spans.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import { storedSpanText } from "../00-otlp/stored-span-text.js";

/** The trace's spans in start order (then span id), bounded as the module says. */
export function boundedRawSpans(spans: readonly SpanRecord[]): RawSpans {
  const ordered = [...spans].sort((first, second) => (first.startTimeUnixNano < second.startTimeUnixNano ? -1 : first.startTimeUnixNano > second.startTimeUnixNano ? 1 : first.spanId < second.spanId ? -1 : 1));
  let truncated = 0;
  const kept: string[] = [];
  let bytes = 2;
  for (const span of ordered) {
    const text = span.stored ?? storedSpanText(span);
    const size = text.bytes + 1;
    if (bytes + size > MAXIMUM_TRACE_BYTES) break;
    kept.push(text.json);
    truncated += text.truncated;
    bytes += size;
  }
  // The brackets go on the first and last text, so that the join makes the array's text flat at once: around the
  // join they made a concatenation the sink's encoding then flattened, a copy of every trace's spans.
  if (kept.length > 0) {
    kept[0] = `[${kept[0]}`;
    kept[kept.length - 1] = `${kept[kept.length - 1]}]`;
  }
  return { json: kept.length === 0 ? "[]" : kept.join(","), spanCount: spans.length, storedSpanCount: kept.length, truncatedValues: truncated };
}
