/**
 * The receiver's checks, held again on what an evaluator reads from Kafka.
 *
 * An OpenTelemetry Collector may write straight to the span topic, so its
 * spans never met the receiver (collector/01-receive/prepare-trace-messages.ts):
 * a span of year 2262 reached the store and sat above every trace, stopping
 * the UI's live list. So a decoded message is held to the same line, in the
 * receiver's order:
 * - spans with an all-zero trace or span id (reject-invalid-ids.ts) and spans
 *   starting or ending more than `maxFutureSpanSeconds` after the evaluator's
 *   clock (reject-future-spans.ts) and spans with a zero (unset) or pre-2000
 *   start or end time (reject-zero-time-spans.ts) are taken out and not evaluated. The
 *   receiver tells its client, who still holds them; an evaluator has no one
 *   to tell, so it keeps them: each reason's spans become one OTLP request,
 *   dead-lettered with a sentence saying why (consumer-group-runner.ts), and
 *   counted;
 * - what one span may carry (per-span-bounds.ts, enforce-request-limits.ts):
 *   events and links past their bound and attributes with an over-long key
 *   are dropped, over-long values and names cut, each recorded on its span as
 *   the receiver records it.
 * The receiver's counts that refuse a whole request (spans per request or per
 * trace, attributes per span, items) are not applied: they bound one HTTP
 * body of up to 64 MiB, while a message is already bounded by
 * RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES (a larger one is dead-lettered as
 * `oversized`), and refusing a Collector's batch for its count would refuse
 * the spans the checks above keep.
 *
 * Spans ragscope's own receiver published pass unchanged: it already held them
 * to the line, and the bounds hold a second time without cutting again.
 */
import { NO_LIMITS } from "../../00-otlp/decode-protobuf-span-records.js";
import { encodeTraceRequest } from "../../00-otlp/encode-protobuf.js";
import { enforceRequestLimits, type LimitsApplied, type RequestLimits } from "../../00-otlp/enforce-request-limits.js";
import { isFutureSpan, latestSpanTimeNanos } from "../../00-otlp/reject-future-spans.js";
import { hasInvalidId } from "../../00-otlp/reject-invalid-ids.js";
import { isZeroTimeSpan } from "../../00-otlp/reject-zero-time-spans.js";
import { takeOutSpans } from "../../00-otlp/take-out-spans.js";
import type { SpanDocument, TracesDocument } from "../../00-otlp/traces-document.js";

/** Why spans were refused: the receiver's reasons (ragscope_receiver_spans_rejected_total), every one listed so each has a series from the start. */
export const SPAN_REFUSAL_REASONS = ["invalid_id", "future_time", "zero_time"] as const;
export type SpanRefusalReason = (typeof SPAN_REFUSAL_REASONS)[number];

/** The receiver's bounds that cut a span rather than refuse it (RAGSCOPE_MAX_ATTRIBUTE_VALUE_BYTES and the like). */
export type SpanCutBounds = Pick<RequestLimits, "maxAttributeValueBytes" | "maxAttributeKeyBytes" | "maxEventsPerSpan" | "maxLinksPerSpan" | "maxNameBytes">;

/** The settings of the checks, as the evaluator is configured. */
export interface SpanCheckSettings {
  /** Seconds a span's start or end may lie after the clock (RAGSCOPE_MAX_FUTURE_SPAN_SECONDS). */
  maxFutureSpanSeconds: number;
  bounds: SpanCutBounds;
}

/** The checks for one message, read at one moment of the evaluator's clock. */
export interface SpanChecks {
  /** The evaluator's clock, Unix milliseconds. */
  nowMs: number;
  maxFutureSpanSeconds: number;
  /** The latest start or end a span may carry, Unix nanoseconds. */
  latestSpanTimeNanos: bigint;
  /** The cutting bounds, the counts that refuse unbounded (see above): what the decoders take. */
  limits: RequestLimits;
}

export function spanChecksAt(settings: SpanCheckSettings, nowMs: number): SpanChecks {
  return {
    nowMs,
    maxFutureSpanSeconds: settings.maxFutureSpanSeconds,
    latestSpanTimeNanos: latestSpanTimeNanos(nowMs, settings.maxFutureSpanSeconds),
    limits: { ...NO_LIMITS, ...settings.bounds },
  };
}

/** Spans of one message refused for one reason: not evaluated, to be dead-lettered. */
export interface RefusedSpans {
  reason: SpanRefusalReason;
  spans: number;
  /** The refused spans, under their resources and scopes, as one OTLP protobuf request. */
  value: Uint8Array;
  /** What was wrong and what to do, for the dead letter. */
  detail: string;
}

export interface Screening {
  refused: RefusedSpans[];
  /** What the bounds changed in the spans kept. */
  limited: LimitsApplied;
}

export const NOTHING_SCREENED: Screening = Object.freeze({
  refused: [],
  limited: Object.freeze({ truncatedValues: 0, droppedEvents: 0, droppedLinks: 0, droppedAttributes: 0, truncatedNames: 0 }),
});

/** Holds a decoded message to the checks, in place: the refused spans are taken out of `document`. */
export function screenConsumedSpans(document: TracesDocument, checks: SpanChecks): Screening {
  const refused: RefusedSpans[] = [];
  const invalid = takeOutSpans(document, hasInvalidId);
  if (invalid !== null) refused.push(refusal("invalid_id", invalid, invalidIdDetail));
  const future = takeOutSpans(document, (span) => isFutureSpan(span.startTimeUnixNano, span.endTimeUnixNano, checks.latestSpanTimeNanos));
  if (future !== null) refused.push(refusal("future_time", future, (spans) => futureTimeDetail(spans, checks)));
  const zeroTime = takeOutSpans(document, (span) => isZeroTimeSpan(span.startTimeUnixNano, span.endTimeUnixNano));
  if (zeroTime !== null) refused.push(refusal("zero_time", zeroTime, zeroTimeDetail));
  const limited = enforceRequestLimits(document, checks.limits);
  // Only the counts refuse, and they are unbounded here: a refusal is a bug, read as such by the caller.
  if (!limited.ok) throw new Error(`the span bounds refused a message they should only cut: ${limited.error}`);
  return { refused, limited: limited.value };
}

function refusal(reason: SpanRefusalReason, taken: TracesDocument, detail: (spans: readonly SpanDocument[]) => string): RefusedSpans {
  const spans = taken.resourceSpans.flatMap((resourceSpans) => resourceSpans.scopeSpans.flatMap((scopeSpans) => scopeSpans.spans));
  return { reason, spans: spans.length, value: encodeTraceRequest(taken), detail: detail(spans) };
}

function invalidIdDetail(spans: readonly SpanDocument[]): string {
  return (
    `${spans.length} span(s) with an all-zero trace or span id (${spanList(spans)}) were not evaluated: OTLP calls such ids invalid, ` +
    `and every such span would share one trace, merging unrelated requests into one Case Result. Fix the instrumentation that sent them`
  );
}

function futureTimeDetail(spans: readonly SpanDocument[], checks: SpanChecks): string {
  let latest = 0n;
  for (const span of spans) for (const time of [span.startTimeUnixNano, span.endTimeUnixNano]) if (time > latest) latest = time;
  return (
    `${spans.length} span(s) starting or ending more than ${checks.maxFutureSpanSeconds} s after the evaluator's clock (${new Date(checks.nowMs).toISOString()}) were not evaluated, ` +
    `the latest at ${isoOfNanos(latest)} (${spanList(spans)}): they would sit above every real trace in newest-first lists until then. ` +
    `Check the sending host's clock (NTP) and that times are Unix nanoseconds (RAGSCOPE_MAX_FUTURE_SPAN_SECONDS sets the allowance)`
  );
}

function zeroTimeDetail(spans: readonly SpanDocument[]): string {
  return (
    `${spans.length} span(s) with a zero (unset) start or end time, or one before 2000 (${spanList(spans)}), were not evaluated: OTLP requires both times, in Unix nanoseconds, ` +
    `and a span dated 1970 would stretch every report's range back to then. Fix the sending host's clock or the instrumentation that sets the times (milliseconds or seconds where nanoseconds belong land in 1970)`
  );
}

/** Traces listed in a detail at most: enough to find them, never the thousands of a batch. */
const LISTED_TRACES = 3;

function spanList(spans: readonly SpanDocument[]): string {
  const traces = [...new Set(spans.map((span) => span.traceId))];
  const listed = traces.slice(0, LISTED_TRACES).join(", ");
  const more = traces.length - LISTED_TRACES;
  return `${traces.length === 1 ? "trace" : "traces"} ${listed}${more > 0 ? ` and ${more} more` : ""}`;
}

/** A Unix-nanosecond time as ISO 8601; any 64-bit time is within what Date holds (year 275760). */
function isoOfNanos(nanos: bigint): string {
  return new Date(Number(nanos / 1_000_000n)).toISOString();
}
