/**
 * An OTLP ExportTraceServiceRequest as a plain typed object.
 *
 * It is the same tree whether it came from OTLP protobuf or OTLP/JSON, with the
 * wire's quirks resolved once (shared/reference/interop.md §5, §6):
 * - ids are lower-case hex strings (trace id 32 characters, span id 16, an
 *   absent parent span id is the empty string);
 * - 64-bit integers (times, `intValue`) are bigint, because nanosecond times
 *   exceed 2^53;
 * - enums are their integer values;
 * - every field is present, with the proto3 default when the wire had none, so
 *   decoding what was encoded gives back an equal document.
 *
 * An AnyValue that carries no value (an empty message, or a KeyValue without
 * `value`) is `null`: proto3 gives the two no different meaning.
 */

export type AnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: bigint }
  | { doubleValue: number }
  | { arrayValue: { values: Array<AnyValue | null> } }
  | { kvlistValue: { values: KeyValue[] } }
  | { bytesValue: Uint8Array };

export interface KeyValue {
  key: string;
  value: AnyValue | null;
}

/** OTLP Span.SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
export type SpanKindNumber = 0 | 1 | 2 | 3 | 4 | 5;

/** OTLP Status.StatusCode: 0 unset, 1 ok, 2 error. */
export type StatusCodeNumber = 0 | 1 | 2;

export interface SpanEventDocument {
  timeUnixNano: bigint;
  name: string;
  attributes: KeyValue[];
  droppedAttributesCount: number;
}

export interface SpanLinkDocument {
  traceId: string;
  spanId: string;
  traceState: string;
  attributes: KeyValue[];
  droppedAttributesCount: number;
  flags: number;
}

export interface SpanDocument {
  traceId: string;
  spanId: string;
  traceState: string;
  /** Empty string for a root span. */
  parentSpanId: string;
  /** W3C trace flags in the low 8 bits, OTLP's "has/is remote" bits above. */
  flags: number;
  name: string;
  kind: SpanKindNumber;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: KeyValue[];
  droppedAttributesCount: number;
  events: SpanEventDocument[];
  droppedEventsCount: number;
  links: SpanLinkDocument[];
  droppedLinksCount: number;
  status: { message: string; code: StatusCodeNumber };
}

export interface InstrumentationScopeDocument {
  name: string;
  version: string;
  attributes: KeyValue[];
  droppedAttributesCount: number;
}

export interface ScopeSpansDocument {
  scope: InstrumentationScopeDocument;
  spans: SpanDocument[];
  schemaUrl: string;
}

export interface ResourceDocument {
  attributes: KeyValue[];
  droppedAttributesCount: number;
}

export interface ResourceSpansDocument {
  resource: ResourceDocument;
  scopeSpans: ScopeSpansDocument[];
  schemaUrl: string;
}

export interface TracesDocument {
  resourceSpans: ResourceSpansDocument[];
}
