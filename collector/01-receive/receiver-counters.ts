/**
 * What the receiver has seen, as plain numbers for a metrics exporter to read.
 *
 * A lost span must show up somewhere (STYLE.md "Behaviour"): every request
 * ends either accepted or counted under exactly one rejection reason.
 */
export type RejectionReason =
  | "notFound"
  | "methodNotAllowed"
  | "unauthorized"
  | "unsupportedMediaType"
  | "payloadTooLarge"
  | "overBudget"
  | "timedOut"
  | "malformed"
  | "publishUnavailable"
  | "publishFailed"
  | "clientAborted"
  | "internalError";

/** The transport a request came by: OTLP/HTTP or OTLP/gRPC. */
export type ReceiverProtocol = "http" | "grpc";

/** The requests of one transport and what became of them (a share of the receiver's totals). */
export interface ProtocolCounters {
  requests: number;
  accepted: number;
  rejected: Record<RejectionReason, number>;
}

export interface ReceiverCounters {
  /** Requests received (OTLP/HTTP and OTLP/gRPC), whatever became of them. */
  requests: number;
  /** Requests answered 200: their spans are in the bus. */
  accepted: number;
  /** Spans in requests that decoded, published or not. */
  spansReceived: number;
  /** Spans the bus confirmed. */
  spansAccepted: number;
  /**
   * Spans of decoded requests that were answered with an error (the bus refused them), or refused in a request
   * otherwise accepted (all-zero ids, future or zero times). Counted once decided, never derived as received −
   * accepted: that difference also held the spans of every request still waiting for the bus's confirmation, and fell
   * back when it came, a counter that went down (Prometheus reads a fall as a restart, and the health snapshots'
   * deltas counted those spans as dropped).
   */
  spansDropped: number;
  /** Bus messages confirmed: one per trace per request. */
  tracesPublished: number;
  /** Spans refused in requests otherwise accepted (all-zero trace or span id), reported as partial success. */
  spansRejectedInvalidId: number;
  /** Spans refused in requests otherwise accepted for a time past RAGSCOPE_MAX_FUTURE_SPAN_SECONDS, reported as partial success. */
  spansRejectedFutureTime: number;
  /** Spans refused in requests otherwise accepted for a zero (unset) or pre-2000 start or end time, reported as partial success. */
  spansRejectedZeroTime: number;
  /** Attribute values cut to RAGSCOPE_MAX_ATTRIBUTE_VALUE_BYTES (listed on the span as ragscope.truncated_attributes). */
  attributeValuesTruncated: number;
  /** Attributes dropped for a key longer than RAGSCOPE_MAX_ATTRIBUTE_KEY_BYTES (listed on the span as ragscope.dropped_attributes). */
  attributesDroppedForKeyLength: number;
  /** Span events dropped past RAGSCOPE_MAX_EVENTS_PER_SPAN (counted on the span as ragscope.dropped_events_count). */
  eventsDropped: number;
  /** Span links dropped past RAGSCOPE_MAX_LINKS_PER_SPAN (counted on the span as ragscope.dropped_links_count). */
  linksDropped: number;
  /** Span and event names cut to RAGSCOPE_MAX_NAME_BYTES (listed on the span as ragscope.truncated_names). */
  namesTruncated: number;
  /** Connections closed on arrival because RAGSCOPE_MAX_CONNECTIONS were open. */
  connectionsDropped: number;
  /** OTLP logs (`POST /v1/logs`): log records in requests that decoded, and what became of them. */
  logRecords: {
    received: number;
    /** Left out, accepted but not kept: no trace or span id (a log outside any span), or no event name (a log line, no event). */
    withoutSpan: number;
    withoutEventName: number;
  };
  rejected: Record<RejectionReason, number>;
  /** The OTLP/gRPC requests among them (the rest came over HTTP). */
  grpc: ProtocolCounters;
}

function noRejections(): Record<RejectionReason, number> {
  return {
    notFound: 0,
    methodNotAllowed: 0,
    unauthorized: 0,
    unsupportedMediaType: 0,
    payloadTooLarge: 0,
    overBudget: 0,
    timedOut: 0,
    malformed: 0,
    publishUnavailable: 0,
    publishFailed: 0,
    clientAborted: 0,
    internalError: 0,
  };
}

export function createReceiverCounters(): ReceiverCounters {
  return {
    requests: 0,
    accepted: 0,
    spansReceived: 0,
    spansAccepted: 0,
    spansDropped: 0,
    tracesPublished: 0,
    spansRejectedInvalidId: 0,
    spansRejectedFutureTime: 0,
    spansRejectedZeroTime: 0,
    attributeValuesTruncated: 0,
    attributesDroppedForKeyLength: 0,
    eventsDropped: 0,
    linksDropped: 0,
    namesTruncated: 0,
    connectionsDropped: 0,
    logRecords: { received: 0, withoutSpan: 0, withoutEventName: 0 },
    rejected: noRejections(),
    grpc: { requests: 0, accepted: 0, rejected: noRejections() },
  };
}
