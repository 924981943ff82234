/**
 * TracesDocument → OTLP/JSON, as the OpenTelemetry Collector's `otlp_json`
 * marshaler writes it (shared/reference/interop.md §4, §5): lowerCamelCase keys,
 * lower-case hex ids, integer enums, 64-bit integers as decimal strings, bytes as
 * base64, fields at their default left out; `resource`, `scope` and `status`
 * always written, possibly as `{}`.
 */
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

type JsonObject = Record<string, unknown>;

export function encodeTraceRequestJson(document: TracesDocument): string {
  return JSON.stringify(withoutDefaults({ resourceSpans: document.resourceSpans.map(toJsonResourceSpans) }));
}

function toJsonResourceSpans(resourceSpans: ResourceSpansDocument): JsonObject {
  return withoutDefaults({
    resource: withoutDefaults({
      attributes: resourceSpans.resource.attributes.map(toJsonKeyValue),
      droppedAttributesCount: resourceSpans.resource.droppedAttributesCount,
    }),
    scopeSpans: resourceSpans.scopeSpans.map(toJsonScopeSpans),
    schemaUrl: resourceSpans.schemaUrl,
  });
}

function toJsonScopeSpans(scopeSpans: ScopeSpansDocument): JsonObject {
  return withoutDefaults({
    scope: withoutDefaults({
      name: scopeSpans.scope.name,
      version: scopeSpans.scope.version,
      attributes: scopeSpans.scope.attributes.map(toJsonKeyValue),
      droppedAttributesCount: scopeSpans.scope.droppedAttributesCount,
    }),
    spans: scopeSpans.spans.map(toJsonSpan),
    schemaUrl: scopeSpans.schemaUrl,
  });
}

function toJsonSpan(span: SpanDocument): JsonObject {
  return withoutDefaults({
    traceId: span.traceId,
    spanId: span.spanId,
    traceState: span.traceState,
    parentSpanId: span.parentSpanId,
    flags: span.flags,
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: int64Text(span.startTimeUnixNano),
    endTimeUnixNano: int64Text(span.endTimeUnixNano),
    attributes: span.attributes.map(toJsonKeyValue),
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events.map(toJsonEvent),
    droppedEventsCount: span.droppedEventsCount,
    links: span.links.map(toJsonLink),
    droppedLinksCount: span.droppedLinksCount,
    status: withoutDefaults({ message: span.status.message, code: span.status.code }),
  });
}

function toJsonEvent(event: SpanEventDocument): JsonObject {
  return withoutDefaults({
    timeUnixNano: int64Text(event.timeUnixNano),
    name: event.name,
    attributes: event.attributes.map(toJsonKeyValue),
    droppedAttributesCount: event.droppedAttributesCount,
  });
}

function toJsonLink(link: SpanLinkDocument): JsonObject {
  return withoutDefaults({
    traceId: link.traceId,
    spanId: link.spanId,
    traceState: link.traceState,
    attributes: link.attributes.map(toJsonKeyValue),
    droppedAttributesCount: link.droppedAttributesCount,
    flags: link.flags,
  });
}

function toJsonKeyValue(keyValue: KeyValue): JsonObject {
  return { key: keyValue.key, value: toJsonValue(keyValue.value) };
}

function toJsonValue(value: AnyValue | null): JsonObject {
  if (value === null) return {};
  if ("stringValue" in value) return { stringValue: value.stringValue };
  if ("boolValue" in value) return { boolValue: value.boolValue };
  if ("intValue" in value) return { intValue: value.intValue.toString() };
  if ("doubleValue" in value) return { doubleValue: doubleJson(value.doubleValue) };
  if ("arrayValue" in value) return { arrayValue: { values: value.arrayValue.values.map(toJsonValue) } };
  if ("kvlistValue" in value) return { kvlistValue: { values: value.kvlistValue.values.map(toJsonKeyValue) } };
  return { bytesValue: Buffer.from(value.bytesValue).toString("base64") };
}

/** proto3 JSON has no literal for non-finite doubles: they are the strings "NaN", "Infinity", "-Infinity". */
function doubleJson(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}

/** A zero time is the default and is left out, like the Collector does. */
function int64Text(value: bigint): string | undefined {
  return value === 0n ? undefined : value.toString();
}

function withoutDefaults(object: JsonObject): JsonObject {
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(object)) {
    if (value === undefined || value === 0 || value === "") continue;
    if (Array.isArray(value) && value.length === 0) continue;
    result[key] = value;
  }
  return result;
}
