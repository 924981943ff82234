/**
 * The items of an OTLP logs request, counted on its protobuf bytes before protobufjs decodes it: resource and scope
 * entries, log records, and every attribute and nested value (array and key-value list entries, in bodies and
 * attributes alike) — each an object protobufjs would make. The trace path's count (count-request-items.ts) bounds a
 * request's decoded memory the same way: without it a body of tiny items (a body kvlist of a million empty entries, two
 * bytes each) decodes into hundreds of megabytes before any count can refuse it.
 *
 * Only the logs schema's message fields are followed (logs.proto, common.proto); any other field is stepped over as
 * protobufjs skips it. Bytes it cannot follow decline (null): the decoding path then refuses the body as malformed,
 * so nothing unreadable is counted as within the bound.
 */
import { decline, LENGTH_DELIMITED, ProtobufWireCursor, unlessDeclined } from "./protobuf-wire-cursor.js";

/** Field numbers of the messages followed (opentelemetry/proto/logs/v1/logs.proto, common/v1/common.proto, resource/v1/resource.proto). */
const REQUEST_RESOURCE_LOGS = 1;
const RESOURCE_LOGS_RESOURCE = 1;
const RESOURCE_LOGS_SCOPE_LOGS = 2;
const RESOURCE_ATTRIBUTES = 1;
const SCOPE_LOGS_SCOPE = 1;
const SCOPE_LOGS_LOG_RECORDS = 2;
const SCOPE_ATTRIBUTES = 3;
const LOG_RECORD_BODY = 5;
const LOG_RECORD_ATTRIBUTES = 6;
const KEY_VALUE_VALUE = 2;
const ANY_VALUE_ARRAY = 5;
const ANY_VALUE_KEY_VALUE_LIST = 6;
const ARRAY_VALUES = 1;
const KEY_VALUE_LIST_VALUES = 1;

export type LogItemCount = { kind: "within"; items: number } | { kind: "over"; message: string } | { kind: "unreadable" };

class Passed extends Error {}
const passed = new Passed();

class LogItemCounter extends ProtobufWireCursor {
  items = 0;
  records = 0;

  constructor(
    body: Uint8Array,
    private readonly maxItems: number,
  ) {
    super(body);
  }

  read(): void {
    this.message(this.bytes.length, (field, end) => (field === REQUEST_RESOURCE_LOGS ? this.nested(end, (inner, innerEnd) => this.resourceLogs(inner, innerEnd)) : false));
  }

  private resourceLogs(field: number, end: number): boolean {
    if (field === RESOURCE_LOGS_RESOURCE) return this.nested(end, (inner, innerEnd) => (inner === RESOURCE_ATTRIBUTES ? this.nested(innerEnd, (kv, kvEnd) => this.keyValue(kv, kvEnd)) : false));
    if (field === RESOURCE_LOGS_SCOPE_LOGS) return this.nested(end, (inner, innerEnd) => this.scopeLogs(inner, innerEnd));
    return false;
  }

  private scopeLogs(field: number, end: number): boolean {
    if (field === SCOPE_LOGS_SCOPE) return this.nested(end, (inner, innerEnd) => (inner === SCOPE_ATTRIBUTES ? this.nested(innerEnd, (kv, kvEnd) => this.keyValue(kv, kvEnd)) : false));
    if (field === SCOPE_LOGS_LOG_RECORDS) {
      this.records += 1;
      return this.nested(end, (inner, innerEnd) => this.logRecord(inner, innerEnd));
    }
    return false;
  }

  private logRecord(field: number, end: number): boolean {
    if (field === LOG_RECORD_BODY) return this.nested(end, (inner, innerEnd) => this.anyValue(inner, innerEnd));
    if (field === LOG_RECORD_ATTRIBUTES) return this.nested(end, (inner, innerEnd) => this.keyValue(inner, innerEnd));
    return false;
  }

  private keyValue(field: number, end: number): boolean {
    return field === KEY_VALUE_VALUE ? this.nested(end, (inner, innerEnd) => this.anyValue(inner, innerEnd)) : false;
  }

  private anyValue(field: number, end: number): boolean {
    if (field === ANY_VALUE_ARRAY) return this.nested(end, (inner, innerEnd) => (inner === ARRAY_VALUES ? this.nested(innerEnd, (value, valueEnd) => this.anyValue(value, valueEnd)) : false));
    if (field === ANY_VALUE_KEY_VALUE_LIST) return this.nested(end, (inner, innerEnd) => (inner === KEY_VALUE_LIST_VALUES ? this.nested(innerEnd, (kv, kvEnd) => this.keyValue(kv, kvEnd)) : false));
    return false;
  }

  /** A length-delimited message field: one item, its own fields read by `field` up to its end. */
  private nested(end: number, field: (number: number, end: number) => boolean): boolean {
    if (this.wireType !== LENGTH_DELIMITED) throw decline;
    const to = this.lengthDelimited(this.wireType, end);
    this.items += 1;
    if (this.items > this.maxItems) throw passed;
    this.message(to, field);
    return true;
  }

  /** The fields up to `end`: each one `field` follows, the rest stepped over. */
  private message(end: number, field: (number: number, end: number) => boolean): void {
    while (this.position < end) {
      const number = this.tag(end);
      if (!field(number, end)) this.skip(this.wireType, end);
    }
    if (this.position !== end) throw decline;
  }
}

/** The count of a protobuf logs request against `maxItems`, stopped as soon as it passes it. */
export function countLogRequestItems(body: Uint8Array, maxItems: number): LogItemCount {
  // Every item takes two bytes at least: a body of at most twice the bound cannot pass it.
  if (body.byteLength <= 2 * maxItems) return { kind: "within", items: Math.floor(body.byteLength / 2) };
  const counter = new LogItemCounter(body, maxItems);
  try {
    return unlessDeclined(() => counter.read()) === null ? { kind: "unreadable" } : { kind: "within", items: counter.items };
  } catch (error) {
    if (error !== passed) throw error;
    return {
      kind: "over",
      message: `the request holds more than ${maxItems} items (log records, attributes and the values nested in them; ${counter.records} log records read before the count passed it): send fewer records per request (OTEL_BLRP_MAX_EXPORT_BATCH_SIZE on the client) or raise RAGSCOPE_MAX_ITEMS_PER_REQUEST`,
    };
  }
}
