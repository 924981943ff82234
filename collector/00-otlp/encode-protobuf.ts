/**
 * TracesDocument → OTLP protobuf (an ExportTraceServiceRequest, which is also
 * the `otlp_proto` value of the OpenTelemetry Collector's Kafka exporter,
 * shared/reference/interop.md §4).
 *
 * protobufjs encodes plain objects; it takes 64-bit integers as `{low, high}`
 * bits, not bigint, and ids as bytes. Its proto3 encoder itself leaves out
 * scalar fields at their default (0, "", empty bytes, empty lists); oneof
 * members and sub-messages are written whenever present, so `{stringValue: ""}`
 * and an empty resource or status survive, as the Collector writes them.
 */
import { hexToBytes } from "./hex-id.js";
import { exportTraceServiceRequestType } from "./otlp-protobuf-types.js";
import type {
  AnyValue,
  KeyValue,
  ResourceSpansDocument,
  ScopeSpansDocument,
  SpanDocument,
  SpanEventDocument,
  SpanLinkDocument,
  TracesDocument,
} from "./traces-document.js";

type WireObject = Record<string, unknown>;

export function encodeTraceRequest(document: TracesDocument): Uint8Array {
  const request = { resourceSpans: document.resourceSpans.map(toWireResourceSpans) };
  return exportTraceServiceRequestType.encode(request).finish();
}

function toWireResourceSpans(resourceSpans: ResourceSpansDocument): WireObject {
  return {
    resource: {
      attributes: resourceSpans.resource.attributes.map(toWireKeyValue),
      droppedAttributesCount: resourceSpans.resource.droppedAttributesCount,
    },
    scopeSpans: resourceSpans.scopeSpans.map(toWireScopeSpans),
    schemaUrl: resourceSpans.schemaUrl,
  };
}

function toWireScopeSpans(scopeSpans: ScopeSpansDocument): WireObject {
  return {
    scope: {
      name: scopeSpans.scope.name,
      version: scopeSpans.scope.version,
      attributes: scopeSpans.scope.attributes.map(toWireKeyValue),
      droppedAttributesCount: scopeSpans.scope.droppedAttributesCount,
    },
    spans: scopeSpans.spans.map(toWireSpan),
    schemaUrl: scopeSpans.schemaUrl,
  };
}

function toWireSpan(span: SpanDocument): WireObject {
  return {
    traceId: hexToBytes(span.traceId),
    spanId: hexToBytes(span.spanId),
    traceState: span.traceState,
    parentSpanId: hexToBytes(span.parentSpanId),
    flags: span.flags,
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: toLongBits(span.startTimeUnixNano),
    endTimeUnixNano: toLongBits(span.endTimeUnixNano),
    attributes: span.attributes.map(toWireKeyValue),
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events.map(toWireEvent),
    droppedEventsCount: span.droppedEventsCount,
    links: span.links.map(toWireLink),
    droppedLinksCount: span.droppedLinksCount,
    status: { message: span.status.message, code: span.status.code },
  };
}

function toWireEvent(event: SpanEventDocument): WireObject {
  return {
    timeUnixNano: toLongBits(event.timeUnixNano),
    name: event.name,
    attributes: event.attributes.map(toWireKeyValue),
    droppedAttributesCount: event.droppedAttributesCount,
  };
}

function toWireLink(link: SpanLinkDocument): WireObject {
  return {
    traceId: hexToBytes(link.traceId),
    spanId: hexToBytes(link.spanId),
    traceState: link.traceState,
    attributes: link.attributes.map(toWireKeyValue),
    droppedAttributesCount: link.droppedAttributesCount,
    flags: link.flags,
  };
}

function toWireKeyValue(keyValue: KeyValue): WireObject {
  // An unset value is still written as an empty AnyValue: the OpenTelemetry
  // Collector always writes the field, and an array keeps its positions.
  return { key: keyValue.key, value: toWireValue(keyValue.value) };
}

function toWireValue(value: AnyValue | null): WireObject {
  if (value === null) return {};
  if ("stringValue" in value) return { stringValue: value.stringValue };
  if ("boolValue" in value) return { boolValue: value.boolValue };
  if ("intValue" in value) return { intValue: toLongBits(value.intValue) };
  if ("doubleValue" in value) return { doubleValue: value.doubleValue };
  if ("arrayValue" in value) return { arrayValue: { values: value.arrayValue.values.map(toWireValue) } };
  if ("kvlistValue" in value) return { kvlistValue: { values: value.kvlistValue.values.map(toWireKeyValue) } };
  return { bytesValue: value.bytesValue };
}

/** Two's complement bits, so negative int64 values and unsigned fixed64 values both fit. */
function toLongBits(value: bigint): { low: number; high: number; unsigned: boolean } {
  const bits = BigInt.asUintN(64, value);
  return { low: Number(bits & 0xffffffffn) | 0, high: Number(bits >> 32n) | 0, unsigned: false };
}
