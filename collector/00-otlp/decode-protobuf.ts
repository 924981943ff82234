/**
 * OTLP protobuf → TracesDocument.
 *
 * protobufjs does the wire decoding (shared/reference/interop.md §6); this file
 * turns its messages into the document and checks what protobufjs cannot know:
 * id lengths, enum ranges, and that the body held a request at all. protobufjs
 * skips unknown fields silently, as proto3 requires, so random bytes can decode
 * to an "empty request"; a non-empty body in which nothing was recognised is
 * therefore refused.
 */
import { failure, success, type Result } from "../../core/result.js";
import { bytesToHex, spanIdByteLength, traceIdByteLength } from "./hex-id.js";
import { MalformedOtlp, maxValueNesting, otlpDecodeError, type OtlpDecodeError } from "./otlp-decode-error.js";
import { exportTraceServiceRequestType } from "./otlp-protobuf-types.js";
import { protobufFailureReason } from "./protobuf-truncation.js";
import type {
  AnyValue,
  InstrumentationScopeDocument,
  KeyValue,
  ResourceDocument,
  ResourceSpansDocument,
  ScopeSpansDocument,
  SpanDocument,
  SpanEventDocument,
  SpanKindNumber,
  SpanLinkDocument,
  StatusCodeNumber,
  TracesDocument,
} from "./traces-document.js";

/** A 64-bit integer as protobufjs hands it out: a `Long`, or a number when `long` is absent. */
export type WireLong = number | { low: number; high: number; unsigned?: boolean };

/**
 * The decoded messages as protobufjs builds them: absent scalars read as their
 * default from the prototype, absent bytes as an empty array, absent messages
 * as null, and `AnyValue.value` names the oneof member that is set.
 */
export interface WireKeyValue {
  key: string;
  value: WireAnyValue | null;
}
export interface WireAnyValue {
  value?: string;
  stringValue?: string;
  boolValue?: boolean;
  intValue?: WireLong;
  doubleValue?: number;
  arrayValue?: { values: WireAnyValue[] } | null;
  kvlistValue?: { values: WireKeyValue[] } | null;
  bytesValue?: Uint8Array;
}
interface WireEvent {
  timeUnixNano: WireLong;
  name: string;
  attributes: WireKeyValue[];
  droppedAttributesCount: number;
}
interface WireLink {
  traceId: Uint8Array;
  spanId: Uint8Array;
  traceState: string;
  attributes: WireKeyValue[];
  droppedAttributesCount: number;
  flags: number;
}
interface WireSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  traceState: string;
  parentSpanId: Uint8Array;
  flags: number;
  name: string;
  kind: number;
  startTimeUnixNano: WireLong;
  endTimeUnixNano: WireLong;
  attributes: WireKeyValue[];
  droppedAttributesCount: number;
  events: WireEvent[];
  droppedEventsCount: number;
  links: WireLink[];
  droppedLinksCount: number;
  status: { message: string; code: number } | null;
}
interface WireScope {
  name: string;
  version: string;
  attributes: WireKeyValue[];
  droppedAttributesCount: number;
}
interface WireScopeSpans {
  scope: WireScope | null;
  spans: WireSpan[];
  schemaUrl: string;
}
interface WireResourceSpans {
  resource: { attributes: WireKeyValue[]; droppedAttributesCount: number } | null;
  scopeSpans: WireScopeSpans[];
  schemaUrl: string;
}
interface WireRequest {
  resourceSpans: WireResourceSpans[];
}

export function decodeProtobufTraceRequest(body: Uint8Array): Result<TracesDocument, OtlpDecodeError> {
  let request: WireRequest;
  try {
    request = exportTraceServiceRequestType.decode(body) as unknown as WireRequest;
  } catch (error) {
    // protobufjs throws for truncated input, bad wire types, invalid UTF-8 and
    // nesting past its limit: all of them mean the body is not valid protobuf.
    return failure(otlpDecodeError("", `invalid OTLP protobuf: ${protobufFailureReason(exportTraceServiceRequestType, body, error, "ExportTraceServiceRequest")}`));
  }
  if (request.resourceSpans.length === 0 && body.length > 0) {
    return failure(
      otlpDecodeError(
        "",
        "invalid OTLP protobuf: no resourceSpans (field 1) in a non-empty body; is it an ExportTraceServiceRequest?",
      ),
    );
  }
  try {
    return success({
      resourceSpans: request.resourceSpans.map((resourceSpans, index) =>
        convertResourceSpans(resourceSpans, `resourceSpans[${index}]`),
      ),
    });
  } catch (error) {
    if (error instanceof MalformedOtlp) return failure(error.decodeError);
    throw error;
  }
}

function convertResourceSpans(wire: WireResourceSpans, path: string): ResourceSpansDocument {
  const resource: ResourceDocument = {
    attributes: convertAttributes(wire.resource?.attributes ?? [], `${path}.resource.attributes`),
    droppedAttributesCount: wire.resource?.droppedAttributesCount ?? 0,
  };
  return {
    resource,
    scopeSpans: wire.scopeSpans.map((scopeSpans, index) => convertScopeSpans(scopeSpans, `${path}.scopeSpans[${index}]`)),
    schemaUrl: wire.schemaUrl,
  };
}

function convertScopeSpans(wire: WireScopeSpans, path: string): ScopeSpansDocument {
  const scope: InstrumentationScopeDocument = {
    name: wire.scope?.name ?? "",
    version: wire.scope?.version ?? "",
    attributes: convertAttributes(wire.scope?.attributes ?? [], `${path}.scope.attributes`),
    droppedAttributesCount: wire.scope?.droppedAttributesCount ?? 0,
  };
  return {
    scope,
    spans: wire.spans.map((span, index) => convertSpan(span, `${path}.spans[${index}]`)),
    schemaUrl: wire.schemaUrl,
  };
}

function convertSpan(wire: WireSpan, path: string): SpanDocument {
  const statusCode = wire.status?.code ?? 0;
  if (statusCode !== 0 && statusCode !== 1 && statusCode !== 2) {
    throw new MalformedOtlp(`${path}.status.code`, `expected 0 (unset), 1 (ok) or 2 (error), got ${statusCode}`);
  }
  return {
    traceId: requireId(wire.traceId, traceIdByteLength, `${path}.traceId`),
    spanId: requireId(wire.spanId, spanIdByteLength, `${path}.spanId`),
    traceState: wire.traceState,
    parentSpanId: wire.parentSpanId.length === 0 ? "" : requireId(wire.parentSpanId, spanIdByteLength, `${path}.parentSpanId`),
    flags: wire.flags,
    name: wire.name,
    kind: requireSpanKind(wire.kind, `${path}.kind`),
    startTimeUnixNano: toBigInt(wire.startTimeUnixNano),
    endTimeUnixNano: toBigInt(wire.endTimeUnixNano),
    attributes: convertAttributes(wire.attributes, `${path}.attributes`),
    droppedAttributesCount: wire.droppedAttributesCount,
    events: wire.events.map((event, index) => convertEvent(event, `${path}.events[${index}]`)),
    droppedEventsCount: wire.droppedEventsCount,
    links: wire.links.map((link, index) => convertLink(link, `${path}.links[${index}]`)),
    droppedLinksCount: wire.droppedLinksCount,
    status: { message: wire.status?.message ?? "", code: statusCode as StatusCodeNumber },
  };
}

function convertEvent(wire: WireEvent, path: string): SpanEventDocument {
  return {
    timeUnixNano: toBigInt(wire.timeUnixNano),
    name: wire.name,
    attributes: convertAttributes(wire.attributes, `${path}.attributes`),
    droppedAttributesCount: wire.droppedAttributesCount,
  };
}

function convertLink(wire: WireLink, path: string): SpanLinkDocument {
  return {
    traceId: requireId(wire.traceId, traceIdByteLength, `${path}.traceId`),
    spanId: requireId(wire.spanId, spanIdByteLength, `${path}.spanId`),
    traceState: wire.traceState,
    attributes: convertAttributes(wire.attributes, `${path}.attributes`),
    droppedAttributesCount: wire.droppedAttributesCount,
    flags: wire.flags,
  };
}

export function convertAttributes(wire: WireKeyValue[], path: string): KeyValue[] {
  return wire.map((keyValue, index) => ({
    key: keyValue.key,
    value: convertValue(keyValue.value, `${path}[${index}].value`, 1),
  }));
}

export function convertValue(wire: WireAnyValue | null, path: string, depth: number): AnyValue | null {
  // An unset value nests nothing, so it is not held to the depth limit.
  if (wire === null || wire.value === undefined) return null;
  if (depth > maxValueNesting) throw new MalformedOtlp(path, `values nested deeper than ${maxValueNesting} levels`);
  switch (wire.value) {
    case "stringValue":
      return { stringValue: wire.stringValue! };
    case "boolValue":
      return { boolValue: wire.boolValue! };
    case "intValue":
      return { intValue: toBigInt(wire.intValue!, true) };
    case "doubleValue":
      return { doubleValue: wire.doubleValue! };
    case "arrayValue":
      return {
        arrayValue: {
          values: (wire.arrayValue?.values ?? []).map((value, index) =>
            convertValue(value, `${path}.arrayValue.values[${index}]`, depth + 1),
          ),
        },
      };
    case "kvlistValue":
      return {
        kvlistValue: {
          values: (wire.kvlistValue?.values ?? []).map((keyValue, index) => ({
            key: keyValue.key,
            value: convertValue(keyValue.value, `${path}.kvlistValue.values[${index}].value`, depth + 1),
          })),
        },
      };
    case "bytesValue":
      return { bytesValue: Uint8Array.from(wire.bytesValue!) };
    default:
      return null;
  }
}

export function requireId(bytes: Uint8Array, byteLength: number, path: string): string {
  if (bytes.length !== byteLength) {
    throw new MalformedOtlp(path, `expected ${byteLength} bytes, got ${bytes.length}`);
  }
  return bytesToHex(bytes);
}

function requireSpanKind(kind: number, path: string): SpanKindNumber {
  if (!Number.isInteger(kind) || kind < 0 || kind > 5) {
    throw new MalformedOtlp(path, `expected a SpanKind from 0 to 5, got ${kind}`);
  }
  return kind as SpanKindNumber;
}

export function toBigInt(value: WireLong, signed = false): bigint {
  if (typeof value === "number") return BigInt(value);
  const unsigned = (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
  return signed ? BigInt.asIntN(64, unsigned) : unsigned;
}
