/**
 * OTLP/JSON → TracesDocument.
 *
 * OTLP/JSON is proto3 JSON with deviations (shared/reference/interop.md §5):
 * ids are case-insensitive hex, not base64; enums are integers; 64-bit integers
 * are decimal strings, and numbers must be accepted too. So it is read with
 * `JSON.parse` and checked field by field here, not with protobufjs's
 * `fromObject` (which expects base64 ids).
 *
 * Also accepted, as the OpenTelemetry Collector's own JSON reader does: the
 * proto field names (`resource_spans`) beside lowerCamelCase, enum names
 * (`"SPAN_KIND_SERVER"`), `null` for "absent". Unknown fields are ignored, as
 * the specification requires.
 */
import { failure, success, type Result } from "../../core/result.js";
import { normalizeHexId, spanIdByteLength, traceIdByteLength } from "./hex-id.js";
import { MalformedOtlp, maxValueNesting, otlpDecodeError, type OtlpDecodeError } from "./otlp-decode-error.js";
import { parseJsonPreservingIntegers } from "./parse-json-preserving-integers.js";
import type {
  AnyValue,
  KeyValue,
  ResourceSpansDocument,
  ScopeSpansDocument,
  SpanDocument,
  SpanEventDocument,
  SpanKindNumber,
  SpanLinkDocument,
  StatusCodeNumber,
  TracesDocument,
} from "./traces-document.js";

type JsonObject = { [key: string]: unknown };

const spanKindNames: Record<string, SpanKindNumber> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};

const statusCodeNames: Record<string, StatusCodeNumber> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
};

const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

/** An OTLP/JSON body parsed (UTF-8, 64-bit integers kept exact), whatever signal it carries; refused as it is not JSON. */
export function parseOtlpJsonBody(body: Uint8Array): Result<unknown, OtlpDecodeError> {
  let text: string;
  try {
    text = utf8Decoder.decode(body);
  } catch {
    return failure(otlpDecodeError("", "invalid OTLP/JSON: the body is not valid UTF-8"));
  }
  try {
    return success(parseJsonPreservingIntegers(text));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return failure(otlpDecodeError("", `invalid OTLP/JSON: ${reason}`));
  }
}

export function decodeJsonTraceRequest(body: Uint8Array): Result<TracesDocument, OtlpDecodeError> {
  const json = parseOtlpJsonBody(body);
  if (!json.ok) return json;
  const parsed = json.value;
  try {
    const request = requireObject(parsed, "", "the body");
    return success({
      resourceSpans: readArray(request, "resourceSpans", "resource_spans", "").map((item, index) =>
        convertResourceSpans(item, `resourceSpans[${index}]`),
      ),
    });
  } catch (error) {
    if (error instanceof MalformedOtlp) return failure(error.decodeError);
    throw error;
  }
}

function convertResourceSpans(item: unknown, path: string): ResourceSpansDocument {
  const object = requireObject(item, path);
  const resource = readOptionalObject(object, "resource", "resource", path);
  const resourcePath = join(path, "resource");
  return {
    resource: {
      attributes: readAttributes(resource, resourcePath),
      droppedAttributesCount: readUint32(resource, "droppedAttributesCount", "dropped_attributes_count", resourcePath),
    },
    scopeSpans: readArray(object, "scopeSpans", "scope_spans", path).map((scopeSpans, index) =>
      convertScopeSpans(scopeSpans, `${path}.scopeSpans[${index}]`),
    ),
    schemaUrl: readString(object, "schemaUrl", "schema_url", path),
  };
}

function convertScopeSpans(item: unknown, path: string): ScopeSpansDocument {
  const object = requireObject(item, path);
  const scope = readOptionalObject(object, "scope", "scope", path);
  const scopePath = join(path, "scope");
  return {
    scope: {
      name: readString(scope, "name", "name", scopePath),
      version: readString(scope, "version", "version", scopePath),
      attributes: readAttributes(scope, scopePath),
      droppedAttributesCount: readUint32(scope, "droppedAttributesCount", "dropped_attributes_count", scopePath),
    },
    spans: readArray(object, "spans", "spans", path).map((span, index) => convertSpan(span, `${path}.spans[${index}]`)),
    schemaUrl: readString(object, "schemaUrl", "schema_url", path),
  };
}

function convertSpan(item: unknown, path: string): SpanDocument {
  const object = requireObject(item, path);
  const status = readOptionalObject(object, "status", "status", path);
  const statusPath = join(path, "status");
  return {
    traceId: readId(object, "traceId", "trace_id", traceIdByteLength, path, false),
    spanId: readId(object, "spanId", "span_id", spanIdByteLength, path, false),
    traceState: readString(object, "traceState", "trace_state", path),
    parentSpanId: readId(object, "parentSpanId", "parent_span_id", spanIdByteLength, path, true),
    flags: readUint32(object, "flags", "flags", path),
    name: readString(object, "name", "name", path),
    kind: readEnum(object, "kind", "kind", spanKindNames, 5, path) as SpanKindNumber,
    startTimeUnixNano: readInt64(object, "startTimeUnixNano", "start_time_unix_nano", path, false),
    endTimeUnixNano: readInt64(object, "endTimeUnixNano", "end_time_unix_nano", path, false),
    attributes: readAttributes(object, path),
    droppedAttributesCount: readUint32(object, "droppedAttributesCount", "dropped_attributes_count", path),
    events: readArray(object, "events", "events", path).map((event, index) => convertEvent(event, `${path}.events[${index}]`)),
    droppedEventsCount: readUint32(object, "droppedEventsCount", "dropped_events_count", path),
    links: readArray(object, "links", "links", path).map((link, index) => convertLink(link, `${path}.links[${index}]`)),
    droppedLinksCount: readUint32(object, "droppedLinksCount", "dropped_links_count", path),
    status: {
      message: readString(status, "message", "message", statusPath),
      code: readEnum(status, "code", "code", statusCodeNames, 2, statusPath) as StatusCodeNumber,
    },
  };
}

function convertEvent(item: unknown, path: string): SpanEventDocument {
  const object = requireObject(item, path);
  return {
    timeUnixNano: readInt64(object, "timeUnixNano", "time_unix_nano", path, false),
    name: readString(object, "name", "name", path),
    attributes: readAttributes(object, path),
    droppedAttributesCount: readUint32(object, "droppedAttributesCount", "dropped_attributes_count", path),
  };
}

function convertLink(item: unknown, path: string): SpanLinkDocument {
  const object = requireObject(item, path);
  return {
    traceId: readId(object, "traceId", "trace_id", traceIdByteLength, path, false),
    spanId: readId(object, "spanId", "span_id", spanIdByteLength, path, false),
    traceState: readString(object, "traceState", "trace_state", path),
    attributes: readAttributes(object, path),
    droppedAttributesCount: readUint32(object, "droppedAttributesCount", "dropped_attributes_count", path),
    flags: readUint32(object, "flags", "flags", path),
  };
}

export function readAttributes(object: JsonObject, path: string): KeyValue[] {
  return convertKeyValues(readArray(object, "attributes", "attributes", path), join(path, "attributes"), 1);
}

function convertKeyValues(items: unknown[], path: string, depth: number): KeyValue[] {
  return items.map((item, index) => {
    const itemPath = `${path}[${index}]`;
    const object = requireObject(item, itemPath);
    const value = object["value"];
    return {
      key: readString(object, "key", "key", itemPath),
      value: value === undefined || value === null ? null : convertValue(value, `${itemPath}.value`, depth),
    };
  });
}

const valueMembers: ReadonlyArray<readonly [string, string]> = [
  ["stringValue", "string_value"],
  ["boolValue", "bool_value"],
  ["intValue", "int_value"],
  ["doubleValue", "double_value"],
  ["arrayValue", "array_value"],
  ["kvlistValue", "kvlist_value"],
  ["bytesValue", "bytes_value"],
];

export function convertValue(item: unknown, path: string, depth: number): AnyValue | null {
  const object = requireObject(item, path);
  const present = valueMembers.filter(([camel, snake]) => presentValue(object, camel, snake) !== undefined);
  // An unset value nests nothing, so it is not held to the depth limit.
  if (present.length === 0) return null;
  if (depth > maxValueNesting) throw new MalformedOtlp(path, `values nested deeper than ${maxValueNesting} levels`);
  if (present.length > 1) {
    throw new MalformedOtlp(path, `expected one of the AnyValue members, got ${present.map(([camel]) => camel).join(" and ")}`);
  }
  const [camel, snake] = present[0]!;
  const memberPath = `${path}.${camel}`;
  const raw = presentValue(object, camel, snake);
  switch (camel) {
    case "stringValue":
      if (typeof raw !== "string") throw new MalformedOtlp(memberPath, `expected a string, got ${describe(raw)}`);
      return { stringValue: raw };
    case "boolValue":
      if (typeof raw !== "boolean") throw new MalformedOtlp(memberPath, `expected true or false, got ${describe(raw)}`);
      return { boolValue: raw };
    case "intValue":
      return { intValue: parseInt64(raw, memberPath, true) };
    case "doubleValue":
      return { doubleValue: parseDouble(raw, memberPath) };
    case "arrayValue": {
      const list = requireObject(raw, memberPath);
      return {
        arrayValue: {
          values: readArray(list, "values", "values", memberPath).map((value, index) =>
            value === null ? null : convertValue(value, `${memberPath}.values[${index}]`, depth + 1),
          ),
        },
      };
    }
    case "kvlistValue": {
      const list = requireObject(raw, memberPath);
      return {
        kvlistValue: {
          values: convertKeyValues(readArray(list, "values", "values", memberPath), `${memberPath}.values`, depth + 1),
        },
      };
    }
    default:
      return { bytesValue: parseBase64(raw, memberPath) };
  }
}

export function presentValue(object: JsonObject, camel: string, snake: string): unknown {
  const value = object[camel] ?? object[snake];
  return value === null ? undefined : value;
}

export function requireObject(value: unknown, path: string, what = "value"): JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new MalformedOtlp(path, `expected an object as ${what}, got ${describe(value)}`);
  }
  return value as JsonObject;
}

export function readOptionalObject(object: JsonObject, camel: string, snake: string, path: string): JsonObject {
  const value = presentValue(object, camel, snake);
  return value === undefined ? {} : requireObject(value, join(path, camel));
}

export function readArray(object: JsonObject, camel: string, snake: string, path: string): unknown[] {
  const value = presentValue(object, camel, snake);
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new MalformedOtlp(join(path, camel), `expected an array, got ${describe(value)}`);
  return value;
}

export function readString(object: JsonObject, camel: string, snake: string, path: string): string {
  const value = presentValue(object, camel, snake);
  if (value === undefined) return "";
  if (typeof value !== "string") throw new MalformedOtlp(join(path, camel), `expected a string, got ${describe(value)}`);
  return value;
}

export function readId(
  object: JsonObject,
  camel: string,
  snake: string,
  byteLength: number,
  path: string,
  emptyAllowed: boolean,
): string {
  const value = presentValue(object, camel, snake) ?? "";
  const fieldPath = join(path, camel);
  if (typeof value !== "string") throw new MalformedOtlp(fieldPath, `expected a hex string, got ${describe(value)}`);
  if (value === "" && emptyAllowed) return "";
  const id = normalizeHexId(value, byteLength);
  if (id === null) {
    const found = value === "" ? "nothing" : JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    throw new MalformedOtlp(fieldPath, `expected ${byteLength * 2} hex characters, got ${found}`);
  }
  return id;
}

function readUint32(object: JsonObject, camel: string, snake: string, path: string): number {
  const value = presentValue(object, camel, snake);
  if (value === undefined) return 0;
  const fieldPath = join(path, camel);
  const number = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isInteger(number) || number < 0 || number > 0xffffffff) {
    throw new MalformedOtlp(fieldPath, `expected an unsigned 32-bit integer, got ${describe(value)}`);
  }
  return number;
}

function readEnum(
  object: JsonObject,
  camel: string,
  snake: string,
  names: Record<string, number>,
  maximum: number,
  path: string,
): number {
  const value = presentValue(object, camel, snake);
  if (value === undefined) return 0;
  if (typeof value === "string" && Object.hasOwn(names, value)) return names[value]!;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > maximum) {
    throw new MalformedOtlp(join(path, camel), `expected an integer from 0 to ${maximum}, got ${describe(value)}`);
  }
  return value;
}

export function readInt64(object: JsonObject, camel: string, snake: string, path: string, signed: boolean): bigint {
  const value = presentValue(object, camel, snake);
  return value === undefined ? 0n : parseInt64(value, join(path, camel), signed);
}

const minimumInt64 = -(2n ** 63n);
const maximumInt64 = 2n ** 63n - 1n;
const maximumUint64 = 2n ** 64n - 1n;

function parseInt64(value: unknown, path: string, signed: boolean): bigint {
  let parsed: bigint | null = null;
  if (typeof value === "string" && /^-?\d+$/.test(value)) parsed = BigInt(value);
  else if (typeof value === "number" && Number.isInteger(value)) parsed = BigInt(value);
  const minimum = signed ? minimumInt64 : 0n;
  const maximum = signed ? maximumInt64 : maximumUint64;
  if (parsed === null || parsed < minimum || parsed > maximum) {
    const kind = signed ? "a signed" : "an unsigned";
    throw new MalformedOtlp(path, `expected ${kind} 64-bit integer (a decimal string or a number), got ${describe(value)}`);
  }
  return parsed;
}

/** proto3 JSON writes non-finite doubles as strings, and accepts numbers in strings. */
function parseDouble(value: unknown, path: string): number {
  if (typeof value === "number") return value;
  if (value === "NaN") return Number.NaN;
  if (value === "Infinity") return Number.POSITIVE_INFINITY;
  if (value === "-Infinity") return Number.NEGATIVE_INFINITY;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  throw new MalformedOtlp(path, `expected a number, got ${describe(value)}`);
}

/** proto3 JSON bytes: standard or URL-safe base64, padding optional. */
function parseBase64(value: unknown, path: string): Uint8Array {
  if (typeof value !== "string" || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(value) || value.replace(/=+$/, "").length % 4 === 1) {
    throw new MalformedOtlp(path, `expected base64, got ${describe(value)}`);
  }
  const buffer = Buffer.from(value, "base64");
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

export function join(path: string, field: string): string {
  return path === "" ? field : `${path}.${field}`;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "object") return "an object";
  return String(value);
}
