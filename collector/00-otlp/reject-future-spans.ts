/**
 * Spans stamped later than the receiver's clock allows. A sender whose clock
 * runs ahead (or that writes a wrong unit) puts its traces at the top of every
 * newest-first list until that time comes — a span of year 2262 sat above
 * every real trace, and the live list, which watches the newest start, saw no
 * later trace arrive — and past 2299 the store cannot hold the time at all.
 * Such spans are taken out before the request is split by trace, counted, and
 * reported to the client in the answer's `partial_success`, as spans with
 * all-zero ids are (reject-invalid-ids.ts); the other spans are accepted. Late
 * spans (clocks behind, exporters retrying) are fine and kept.
 */
import { removeSpans } from "./take-out-spans.js";
import type { TracesDocument } from "./traces-document.js";

const NANOSECONDS_PER_MILLISECOND = 1_000_000n;

/** The latest start or end time a span may carry: the receiver's clock plus the allowed skew, in Unix nanoseconds. */
export function latestSpanTimeNanos(nowMs: number, maxFutureSpanSeconds: number): bigint {
  return BigInt(Math.floor(nowMs) + maxFutureSpanSeconds * 1000) * NANOSECONDS_PER_MILLISECOND;
}

/** Whether a span's start or end is past `latest` (Unix nanoseconds). */
export function isFutureSpan(startTimeUnixNano: bigint, endTimeUnixNano: bigint, latest: bigint): boolean {
  return startTimeUnixNano > latest || endTimeUnixNano > latest;
}

/** Takes the spans past `latest` out of the document in place; how many. */
export function rejectFutureSpans(document: TracesDocument, latest: bigint): number {
  return removeSpans(document, (span) => isFutureSpan(span.startTimeUnixNano, span.endTimeUnixNano, latest));
}
