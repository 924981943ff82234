/**
 * OTLP logs export request (ExportLogsServiceRequest, protobuf or OTLP/JSON) → the log records that are events of a
 * span (log-event-record.ts).
 *
 * Instrumentations on the GenAI conventions' event path send a call's messages as log records beside its span; only
 * the records joined to a span (a trace and a span id that are set) and named as events can be attached to it, so
 * only those are kept. The others are counted by why, so the receiver can tell the client what it left out.
 *
 * Both encodings are read as the trace decoders read them, with their helpers (decode-protobuf.ts, decode-json.ts):
 * protobufjs for the wire, a non-empty protobuf body in which nothing was recognised refused, ids of the wrong length
 * refused, values nested deeper than maxValueNesting refused, and OTLP/JSON's leniencies (proto field names, `null`
 * as absent, unknown fields ignored). What differs from spans:
 * - an empty trace or span id is no error: a log written outside any span has none. It counts as withoutSpan, as an
 *   all-zero id (the API's invalid span context) does;
 * - resource and scope are not converted (LogEventRecord carries neither): protobufjs checks their wire form, and in
 *   OTLP/JSON they must be objects. The one exception is the resource's authenticated tenant
 *   (`ragscope.tenant.authenticated`), read when the caller asks for it (tenantFromResource): records that reach an
 *   evaluator through an OpenTelemetry Collector carry their tenant where the same Collector's spans carry theirs.
 *
 * Limits, as the span path holds them (enforce-request-limits.ts): counts (records per request, attributes per
 * record, on every record, kept or not) refuse the whole request with a `tooLarge` error, answered 413 rather than
 * the 400 of a malformed body; they are checked on the decoded request, so a malformed body is refused as malformed
 * whatever its size. A string value longer than the value limit, in an attribute or anywhere in the body, is cut at a
 * code-point boundary instead (a bytes value to that many bytes), in the records kept.
 *
 * The work done before the counts are known is bounded by the request body's size limit (receiver.maxBodyBytes)
 * alone: the item bound the span path applies before decoding (count-request-items.ts) walks the trace request's
 * shape and is not mirrored for logs.
 */
import { Ragscope } from "../../contracts/span-attributes.js";
import { failure, success, type Result } from "../../core/result.js";
import {
  convertValue as convertJsonValue,
  join,
  parseOtlpJsonBody,
  presentValue,
  readArray,
  readAttributes,
  readId,
  readInt64,
  readOptionalObject,
  readString,
  requireObject,
} from "./decode-json.js";
import {
  convertAttributes as convertWireAttributes,
  convertValue as convertWireValue,
  requireId,
  toBigInt,
  type WireAnyValue,
  type WireKeyValue,
  type WireLong,
} from "./decode-protobuf.js";
import { spanIdByteLength, traceIdByteLength } from "./hex-id.js";
import type { LogEventRecord } from "./log-event-record.js";
import { MalformedOtlp, otlpDecodeError, type OtlpDecodeError } from "./otlp-decode-error.js";
import { exportLogsServiceRequestType } from "./otlp-protobuf-types.js";
import { protobufFailureReason } from "./protobuf-truncation.js";
import { truncateText } from "./enforce-request-limits.js";
import { toAttributes, toAttributeValue } from "./to-span-records.js";
import type { AnyValue, KeyValue } from "./traces-document.js";

export interface LogEventLimits {
  /** Log records in one request; more refuses the request (like maxSpansPerRequest). */
  maxLogRecordsPerRequest: number;
  /** UTF-8 bytes of one string value (attribute value or a string inside the body); longer is truncated at a code-point boundary, as enforce-request-limits.ts truncates span attribute values. */
  maxAttributeValueBytes: number;
  /** Attributes on one record; more refuses the request. */
  maxAttributesPerRecord: number;
}

export interface DecodedLogEvents {
  /** The records that are events of a span: a trace id and a span id that are set (not absent, not all zeros) and an event name. */
  events: LogEventRecord[];
  /** Every log record in the request. */
  records: number;
  /** Records left out, by why: no trace or span id (absent or all zeros), no event name. A record with neither counts as withoutSpan. */
  withoutSpan: number;
  withoutEventName: number;
  /** String values cut to maxAttributeValueBytes (bytes values too, as for spans), in the events kept. */
  truncatedValues: number;
}

/** A request over a count limit: the receiver answers 413 (send smaller batches), not the 400 of a malformed body. */
export interface LogEventsTooLarge extends OtlpDecodeError {
  tooLarge: true;
}

/** Malformed (an OtlpDecodeError, no `tooLarge`: 400) or over a count limit (413). */
export type LogEventsDecodeError = OtlpDecodeError | LogEventsTooLarge;

/** The attribute SDKs that predate LogRecord.event_name name an event with. */
const eventNameKey = "event.name";

/**
 * Passed as the tenant: each record's tenant is its resource's `ragscope.tenant.authenticated` string (null without
 * one), as a span's is (trace-assembler.ts reads it from the span's resource). For records no receiver authenticated:
 * an OpenTelemetry Collector's logs read from Kafka.
 */
export const tenantFromResource = Symbol("the tenant each record's resource names");

/** The tenant of every record (the one the receiver authenticated, or null), or tenantFromResource. */
export type LogEventsTenant = string | null | typeof tenantFromResource;

export function decodeLogEvents(
  body: Uint8Array,
  encoding: "protobuf" | "json",
  limits: LogEventLimits,
  tenant: LogEventsTenant,
): Result<DecodedLogEvents, LogEventsDecodeError> {
  const records = encoding === "json" ? readJsonLogRecords(body) : readProtobufLogRecords(body);
  if (!records.ok) return records;
  return toLogEvents(records.value, limits, tenant);
}

/** One log record as both encodings read it: the fields an event is made of; ids are "" when absent. */
interface LogRecordFields {
  /** Where the record is in the request, for a refusal. */
  path: string;
  traceId: string;
  spanId: string;
  timeUnixNano: bigint;
  observedTimeUnixNano: bigint;
  eventName: string;
  attributes: KeyValue[];
  body: AnyValue | null;
  /** The resource's `ragscope.tenant.authenticated` string value, null without one. */
  resourceTenant: string | null;
}

function toLogEvents(records: LogRecordFields[], limits: LogEventLimits, tenant: LogEventsTenant): Result<DecodedLogEvents, LogEventsTooLarge> {
  if (records.length > limits.maxLogRecordsPerRequest) {
    return failure(
      tooLarge(
        "",
        `the request holds ${records.length} log records, more than ${limits.maxLogRecordsPerRequest} (RAGSCOPE_MAX_SPANS_PER_REQUEST, which bounds a logs request's records as it bounds spans); send smaller batches (OTEL_BLRP_MAX_EXPORT_BATCH_SIZE on the client) or raise the limit`,
      ),
    );
  }
  const crowded = records.find((record) => record.attributes.length > limits.maxAttributesPerRecord);
  if (crowded !== undefined) {
    return failure(
      tooLarge(
        join(crowded.path, "attributes"),
        `${crowded.attributes.length} attributes, more than ${limits.maxAttributesPerRecord} on one log record (RAGSCOPE_MAX_ATTRIBUTES_PER_SPAN, which bounds a record's attributes as a span's); set an attribute count limit in the SDK (OTEL_LOGRECORD_ATTRIBUTE_COUNT_LIMIT) or raise the limit`,
      ),
    );
  }
  const decoded: DecodedLogEvents = { events: [], records: records.length, withoutSpan: 0, withoutEventName: 0, truncatedValues: 0 };
  const cut = { values: 0 };
  for (const record of records) {
    if (!isSetId(record.traceId) || !isSetId(record.spanId)) {
      decoded.withoutSpan += 1;
      continue;
    }
    const named = eventName(record);
    if (named.name === "") {
      decoded.withoutEventName += 1;
      continue;
    }
    const maxBytes = limits.maxAttributeValueBytes;
    decoded.events.push({
      traceId: record.traceId,
      spanId: record.spanId,
      name: named.name,
      timeUnixNano: record.timeUnixNano !== 0n ? record.timeUnixNano : record.observedTimeUnixNano,
      attributes: toAttributes(truncateKeyValues(named.attributes, maxBytes, cut)),
      body: toAttributeValue(truncateValue(record.body, maxBytes, cut)),
      tenant: tenant === tenantFromResource ? record.resourceTenant : tenant,
    });
  }
  decoded.truncatedValues = cut.values;
  return success(decoded);
}

function tooLarge(path: string, problem: string): LogEventsTooLarge {
  return { ...otlpDecodeError(path, problem), tooLarge: true };
}

/** An id that names a span: present and not all zeros (the API's invalid context, which some SDKs still send). */
function isSetId(hex: string): boolean {
  return hex !== "" && !/^0+$/.test(hex);
}

/** LogRecord.event_name, else a non-empty string `event.name` attribute, which then leaves the attributes; "" for none. */
function eventName(record: LogRecordFields): { name: string; attributes: KeyValue[] } {
  if (record.eventName !== "") return { name: record.eventName, attributes: record.attributes };
  // The last one, as toAttributes keeps a repeated key's last value.
  const value = record.attributes.findLast((attribute) => attribute.key === eventNameKey)?.value ?? null;
  if (value === null || !("stringValue" in value) || value.stringValue === "") return { name: "", attributes: record.attributes };
  return { name: value.stringValue, attributes: record.attributes.filter((attribute) => attribute.key !== eventNameKey) };
}

// ---- Protobuf ----

/** The decoded logs messages as protobufjs builds them (see decode-protobuf.ts): only the fields read here. */
interface WireLogRecord {
  timeUnixNano: WireLong;
  observedTimeUnixNano: WireLong;
  eventName: string;
  attributes: WireKeyValue[];
  body: WireAnyValue | null;
  traceId: Uint8Array;
  spanId: Uint8Array;
}
interface WireScopeLogs {
  logRecords: WireLogRecord[];
}
interface WireResourceLogs {
  resource: { attributes: WireKeyValue[] } | null;
  scopeLogs: WireScopeLogs[];
}
interface WireLogsRequest {
  resourceLogs: WireResourceLogs[];
}

function readProtobufLogRecords(body: Uint8Array): Result<LogRecordFields[], OtlpDecodeError> {
  let request: WireLogsRequest;
  try {
    request = exportLogsServiceRequestType.decode(body) as unknown as WireLogsRequest;
  } catch (error) {
    // Truncated input, bad wire types, invalid UTF-8, nesting past protobufjs's limit: not valid protobuf.
    return failure(otlpDecodeError("", `invalid OTLP protobuf: ${protobufFailureReason(exportLogsServiceRequestType, body, error, "ExportLogsServiceRequest")}`));
  }
  // protobufjs skips unknown fields, so random bytes can decode to an empty request.
  if (request.resourceLogs.length === 0 && body.length > 0) {
    return failure(
      otlpDecodeError("", "invalid OTLP protobuf: no resourceLogs (field 1) in a non-empty body; is it an ExportLogsServiceRequest?"),
    );
  }
  const records: LogRecordFields[] = [];
  try {
    for (const [resourceIndex, resourceLogs] of request.resourceLogs.entries()) {
      const resourceTenant = tenantOf(convertWireAttributes(resourceLogs.resource?.attributes ?? [], `resourceLogs[${resourceIndex}].resource.attributes`));
      for (const [scopeIndex, scopeLogs] of resourceLogs.scopeLogs.entries()) {
        for (const [recordIndex, wire] of scopeLogs.logRecords.entries()) {
          const path = `resourceLogs[${resourceIndex}].scopeLogs[${scopeIndex}].logRecords[${recordIndex}]`;
          records.push({
            path,
            traceId: wire.traceId.length === 0 ? "" : requireId(wire.traceId, traceIdByteLength, `${path}.traceId`),
            spanId: wire.spanId.length === 0 ? "" : requireId(wire.spanId, spanIdByteLength, `${path}.spanId`),
            timeUnixNano: toBigInt(wire.timeUnixNano),
            observedTimeUnixNano: toBigInt(wire.observedTimeUnixNano),
            eventName: wire.eventName,
            attributes: convertWireAttributes(wire.attributes, `${path}.attributes`),
            body: convertWireValue(wire.body, `${path}.body`, 1),
            resourceTenant,
          });
        }
      }
    }
  } catch (error) {
    if (error instanceof MalformedOtlp) return failure(error.decodeError);
    throw error;
  }
  return success(records);
}

// ---- OTLP/JSON ----

function readJsonLogRecords(body: Uint8Array): Result<LogRecordFields[], OtlpDecodeError> {
  const json = parseOtlpJsonBody(body);
  if (!json.ok) return json;
  const parsed = json.value;
  const records: LogRecordFields[] = [];
  try {
    const request = requireObject(parsed, "", "the body");
    for (const [resourceIndex, resourceItem] of readArray(request, "resourceLogs", "resource_logs", "").entries()) {
      const resourcePath = `resourceLogs[${resourceIndex}]`;
      const resourceLogs = requireObject(resourceItem, resourcePath);
      const resourceTenant = tenantOf(readAttributes(readOptionalObject(resourceLogs, "resource", "resource", resourcePath), join(resourcePath, "resource")));
      for (const [scopeIndex, scopeItem] of readArray(resourceLogs, "scopeLogs", "scope_logs", resourcePath).entries()) {
        const scopePath = `${resourcePath}.scopeLogs[${scopeIndex}]`;
        const scopeLogs = requireObject(scopeItem, scopePath);
        readOptionalObject(scopeLogs, "scope", "scope", scopePath);
        for (const [recordIndex, recordItem] of readArray(scopeLogs, "logRecords", "log_records", scopePath).entries()) {
          records.push(readJsonLogRecord(recordItem, `${scopePath}.logRecords[${recordIndex}]`, resourceTenant));
        }
      }
    }
  } catch (error) {
    if (error instanceof MalformedOtlp) return failure(error.decodeError);
    throw error;
  }
  return success(records);
}

function readJsonLogRecord(item: unknown, path: string, resourceTenant: string | null): LogRecordFields {
  const object = requireObject(item, path);
  const body = presentValue(object, "body", "body");
  return {
    path,
    // Ids are hex as in OTLP/JSON traces; absent or "" is a log outside any span.
    traceId: readId(object, "traceId", "trace_id", traceIdByteLength, path, true),
    spanId: readId(object, "spanId", "span_id", spanIdByteLength, path, true),
    timeUnixNano: readInt64(object, "timeUnixNano", "time_unix_nano", path, false),
    observedTimeUnixNano: readInt64(object, "observedTimeUnixNano", "observed_time_unix_nano", path, false),
    eventName: readString(object, "eventName", "event_name", path),
    attributes: readAttributes(object, path),
    body: body === undefined ? null : convertJsonValue(body, join(path, "body"), 1),
    resourceTenant,
  };
}

/** A resource's authenticated tenant: the last `ragscope.tenant.authenticated` (as toAttributes keeps a repeated key's last value), if a string. */
function tenantOf(resourceAttributes: KeyValue[]): string | null {
  const value = resourceAttributes.findLast((attribute) => attribute.key === Ragscope.authenticatedTenant)?.value ?? null;
  return value !== null && "stringValue" in value ? value.stringValue : null;
}

// ---- Value truncation, as enforce-request-limits.ts cuts span attribute values ----


function truncateKeyValues(keyValues: KeyValue[], maxBytes: number, cut: { values: number }): KeyValue[] {
  return keyValues.map((keyValue) => ({ key: keyValue.key, value: truncateValue(keyValue.value, maxBytes, cut) }));
}

/** The value with each string leaf cut to `maxBytes` of UTF-8 and each bytes leaf to `maxBytes` bytes; `cut` counts the leaves cut. */
function truncateValue(value: AnyValue | null, maxBytes: number, cut: { values: number }): AnyValue | null {
  if (value === null) return null;
  if ("stringValue" in value) {
    const text = truncateText(value.stringValue, maxBytes);
    if (text === null) return value;
    cut.values += 1;
    return { stringValue: text };
  }
  if ("bytesValue" in value) {
    if (value.bytesValue.byteLength <= maxBytes) return value;
    cut.values += 1;
    return { bytesValue: value.bytesValue.slice(0, maxBytes) };
  }
  if ("arrayValue" in value) return { arrayValue: { values: value.arrayValue.values.map((item) => truncateValue(item, maxBytes, cut)) } };
  if ("kvlistValue" in value) return { kvlistValue: { values: truncateKeyValues(value.kvlistValue.values, maxBytes, cut) } };
  return value;
}
