/**
 * Spans whose trace id or span id is all zeros. OTLP calls such ids invalid
 * (the W3C trace context's "invalid" value), and every such span would share
 * one trace: unrelated requests would merge into one Case Result. They are
 * taken out before the request is split by trace, counted, and reported to
 * the client in the answer's `partial_success` (rejected_spans and a message),
 * the OTLP way to refuse part of a request; the other spans are accepted.
 */
import { removeSpans } from "./take-out-spans.js";
import type { TracesDocument } from "./traces-document.js";

const ZERO_TRACE_ID = "0".repeat(32);
const ZERO_SPAN_ID = "0".repeat(16);

export interface InvalidIdRejection {
  document: TracesDocument;
  rejectedSpans: number;
}

export function rejectInvalidIds(document: TracesDocument): InvalidIdRejection {
  return { document, rejectedSpans: removeSpans(document, hasInvalidId) };
}

/** Whether the span's trace id or span id is all zeros (OTLP's invalid value). */
export function hasInvalidId(span: { traceId: string; spanId: string }): boolean {
  return span.traceId === ZERO_TRACE_ID || span.spanId === ZERO_SPAN_ID;
}
