/**
 * Spans whose start or end time is unset (0) or before 2000-01-01, which no
 * real span can carry. OTLP calls both fields required, and 0 is what a
 * client with a broken or unset clock sends (or what protobuf gives for a
 * field left out); a time in 1970 past zero is a time written in the wrong
 * unit — milliseconds or seconds where OTLP wants Unix nanoseconds (a
 * millisecond clock read as nanoseconds lands on 1970-01-01 about half an hour
 * after midnight) — or a device clock that was never set. Kept, such a span
 * put the report's default range at 1970 (a QPS of 0.0000002) and sorted
 * oddly in every list and board. It is taken out before the request is split
 * by trace, counted (reason `zero_time`, the name it had when only 0 was
 * refused), and reported to the client in the answer's `partial_success`, as
 * spans with all-zero ids (reject-invalid-ids.ts) and spans far in the future
 * (reject-future-spans.ts) are; the other spans are accepted. Any later past
 * time is a legitimate replay of an old trace and kept: no OpenTelemetry
 * trace, nor any RAG application, predates 2000.
 */
import { removeSpans } from "./take-out-spans.js";
import type { TracesDocument } from "./traces-document.js";

/** 2000-01-01T00:00:00Z in Unix nanoseconds: the earliest start or end time a span is taken with. */
export const EARLIEST_SPAN_TIME_NANOS = 946_684_800n * 1_000_000_000n;

/** Whether a span's start or end time (Unix nanoseconds) is unset or before 2000: not a time a real span carries. */
export function isZeroTimeSpan(startTimeUnixNano: bigint, endTimeUnixNano: bigint): boolean {
  return startTimeUnixNano < EARLIEST_SPAN_TIME_NANOS || endTimeUnixNano < EARLIEST_SPAN_TIME_NANOS;
}

/** Takes the spans with an unset or pre-2000 start or end time out of the document in place; how many. */
export function rejectZeroTimeSpans(document: TracesDocument): number {
  return removeSpans(document, (span) => isZeroTimeSpan(span.startTimeUnixNano, span.endTimeUnixNano));
}
