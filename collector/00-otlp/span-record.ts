/**
 * One decoded OTLP span, flattened with its resource and scope.
 *
 * This is the collector's working form of a span, whatever the wire format
 * (OTLP protobuf or OTLP/JSON) or the producer (our receiver, or an OpenTelemetry
 * Collector's Kafka exporter). Ids are lower-case hex; times are nanoseconds since
 * the epoch as bigint because they exceed 2^53.
 */
export type AttributeValue =
  | string
  | number
  | boolean
  | null
  | AttributeValue[]
  | { [key: string]: AttributeValue };

export type Attributes = Record<string, AttributeValue>;

export interface SpanEventRecord {
  name: string;
  timeUnixNano: bigint;
  attributes: Attributes;
  /**
   * Present on an event that came as an OTLP log record (log-event-record.ts), joined to its span by the assembler:
   * the record's body, which a span event does not have (the GenAI conventions' `gen_ai.choice` record holds the
   * choice there). Null when the record had none.
   */
  body?: AttributeValue;
}

/** OTLP Status.code: 0 unset, 1 ok, 2 error. */
export type StatusCode = 0 | 1 | 2;

export interface SpanRecord {
  /** 32 lower-case hex characters. */
  traceId: string;
  /** 16 lower-case hex characters. */
  spanId: string;
  /** Empty string for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Attributes;
  events: SpanEventRecord[];
  /**
   * OTLP `dropped_events_count`: events the span had but does not carry. An SDK past its event limit
   * (OTEL_SPAN_EVENT_COUNT_LIMIT, 128 by default) drops the OLDEST (JS `Span.addEvent` shifts the list, Python's
   * bounded list does the same), so the events left are not the first ones recorded: a list read from events (an
   * OpenLLMetry vector search's `db.query.result` hits) would have lost its best ranks and moved the rest up. Includes
   * the events the receiver dropped past its own bound (per-span-bounds.ts), which keeps the first ones.
   */
  droppedEventsCount: number;
  /**
   * OTLP `dropped_attributes_count`: attributes the span had but does not carry (the SDK's
   * OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, or the receiver's key bound). Explains a gap in a flattened list.
   */
  droppedAttributesCount: number;
  status: { code: StatusCode; message: string };
  resource: Attributes;
  scope: { name: string; version: string };
  /**
   * The span as the store's trace_spans keeps it, when the receiver's decode
   * thread made it (stored-span-text.ts); absent, it is made when needed.
   */
  stored?: StoredSpanText;
}

/**
 * A span's stored JSON (contracts/raw-spans.ts) as UTF-8 bytes, and how many values were cut in it. Bytes, not
 * text: they go into the trace_spans insert body as they are, and until then they wait outside the JavaScript heap
 * (a trace's spans are ~40 KB of this, held from decoding until its write).
 */
export interface StoredSpanText {
  utf8: Uint8Array;
  truncated: number;
}
