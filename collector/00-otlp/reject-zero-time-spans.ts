/**
 * Spans whose start or end time is 0, i.e. unset: OTLP calls both fields
 * required, and 0 is what a client with a broken or unset clock sends (or
 * what protobuf gives for a field left out). Kept, such a span put the
 * report's default range at 1970 (a QPS of 0.0000002) and sorted oddly in
 * every list and board. It is taken out before the request is split by
 * trace, counted, and reported to the client in the answer's
 * `partial_success`, as spans with all-zero ids (reject-invalid-ids.ts) and
 * spans far in the future (reject-future-spans.ts) are; the other spans are
 * accepted. Only zero is refused: any other past time is a legitimate replay
 * of an old trace.
 */
import { removeSpans } from "./take-out-spans.js";
import type { TracesDocument } from "./traces-document.js";

/** Whether a span's start or end time (Unix nanoseconds) is unset. */
export function isZeroTimeSpan(startTimeUnixNano: bigint, endTimeUnixNano: bigint): boolean {
  return startTimeUnixNano === 0n || endTimeUnixNano === 0n;
}

/** Takes the spans with a zero start or end time out of the document in place; how many. */
export function rejectZeroTimeSpans(document: TracesDocument): number {
  return removeSpans(document, (span) => isZeroTimeSpan(span.startTimeUnixNano, span.endTimeUnixNano));
}
