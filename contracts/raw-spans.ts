/**
 * The raw spans of a trace as the store keeps them for the trace detail page
 * (migration 0013 `trace_spans`): every span as the collector received it —
 * ids, name, kind, times (nanoseconds since the epoch, as decimal text: they
 * exceed 2^53), attributes, events, status, resource and scope — in start
 * order, as one JSON array.
 *
 * Bounded in bytes, because a trace is untrusted input: an attribute value
 * (a string, or a nested value's JSON) longer than MAXIMUM_VALUE_BYTES is cut
 * and ends with a marker saying how long it was; spans past
 * MAXIMUM_TRACE_BYTES of JSON are left out and counted (`span_count` −
 * `stored_span_count`), never dropped silently. The Case Result keeps what
 * evaluation read from them; these are for a person to look at.
 */
/** An attribute value as JSON (the collector's span-record AttributeValue has this shape). */
export type RawAttributeValue = string | number | boolean | null | RawAttributeValue[] | { [key: string]: RawAttributeValue };
export type RawAttributes = Record<string, RawAttributeValue>;

/** A trace's stored spans at most (UTF-8 bytes of the JSON array). */
export const MAXIMUM_TRACE_BYTES = 256 * 1024;
/** One attribute value at most (UTF-8 bytes); a retrieved document's text is often longer, and the Case Result has it. */
export const MAXIMUM_VALUE_BYTES = 8 * 1024;

export interface RawSpans {
  /**
   * The kept spans, each one's JSON (a StoredSpan) in UTF-8, in start order: the stored value is the JSON array
   * of them. Kept apart until the insert body is written, which is their only copy.
   */
  spans: readonly Uint8Array[];
  spanCount: number;
  storedSpanCount: number;
  /** Attribute values cut to MAXIMUM_VALUE_BYTES. */
  truncatedValues: number;
}

/** One span as stored and as the read API returns it. */
export interface StoredRawSpan {
  trace_id: string;
  span_id: string;
  parent_span_id: string;
  name: string;
  kind: number;
  start_time_unix_nano: string;
  end_time_unix_nano: string;
  status: { code: number; message: string };
  attributes: RawAttributes;
  /**
   * `body` only on an event that came as an OpenTelemetry log record, joined to its span by the collector (a log
   * record has a body, a span event has none): the GenAI conventions' `gen_ai.choice` record holds the choice there.
   */
  events: { name: string; time_unix_nano: string; attributes: RawAttributes; body?: RawAttributeValue }[];
  resource: RawAttributes;
  scope: { name: string; version: string };
  /**
   * OTLP `dropped_attributes_count` and `dropped_events_count` (the SDK's drops at its count limits, with the
   * receiver's own, which its ragscope.* attributes tell apart), present only when above 0: the trace page shows them.
   * In the JSON the `spans` column already holds, so no migration: spans stored before they were kept have neither.
   */
  dropped_attributes_count?: number;
  dropped_events_count?: number;
}
