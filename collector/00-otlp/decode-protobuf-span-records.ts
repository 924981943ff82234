/**
 * An OTLP protobuf request read straight into span records, one list per
 * trace: no protobufjs messages, no TracesDocument, no second pass for the
 * request limits, the tenant stamp or the split by trace.
 *
 * Why: serve's decode threads spent most of their time — a quarter of serve's
 * CPU at load — building protobufjs's message objects, converting them to a
 * TracesDocument, walking it again for the limits and the tenant, and only
 * then flattening it into records; each layer was garbage for the next
 * collection. Reading the bytes once into the records is the other direction
 * of what the SDK's encoder does (instrumentation/export/).
 *
 * The result equals what the decoding path gives (decodeTraceRequest,
 * rejectInvalidIds, enforceRequestLimits, stampTenant, splitByTraceId,
 * toSpanRecords: the receiver's; or decodeTraceRequest and toSpanRecords for
 * a bus's message, without limits or stamp), or this function declines (null)
 * and that path runs. It
 * declines whenever that path would refuse the request or change a span, and
 * wherever protobufjs's rules are subtle:
 * - anything protobufjs refuses: truncated fields, bad wire types, groups,
 *   invalid UTF-8, a varint too long;
 * - a start or end time past the receiver's bound, or zero (taken out there
 *   and counted, reject-future-spans.ts, reject-zero-time-spans.ts);
 * - ids of the wrong length, an all-zero trace or span id (taken out there and
 *   counted), a span kind or status code out of range;
 * - a count over a request limit (refused there with its message), a string
 *   or bytes value longer than the value limit (truncated there), more
 *   events or links than a span keeps or a key longer than the key limit
 *   (dropped there, per-span-bounds.ts), a span or event name longer than
 *   the name limit (truncated there);
 * - a client's own `ragscope.tenant.authenticated` resource attribute when
 *   the receiver's stamp is asked for (removed there);
 * - a message field given twice (protobufjs merges the two), a oneof given
 *   twice, a known field with another wire type (protobufjs skips it), a bool
 *   other than 0 or 1, values nested more than MOST_VALUE_LEVELS deep, a body
 *   with no resource spans.
 * Unknown fields are skipped, as protobufjs skips them. The test
 * (decode-protobuf-span-records.test.ts) holds it to the decoding path on
 * recorded and mutated requests.
 */
import { Ragscope } from "../../contracts/span-attributes.js";
import type { RequestLimits } from "./enforce-request-limits.js";
import type { AttributeValue, Attributes, SpanEventRecord, SpanRecord, StatusCode } from "./span-record.js";
import { decline, FIXED32, FIXED64, ProtobufWireCursor, unlessDeclined, VARINT } from "./protobuf-wire-cursor.js";
import { setOwn } from "./to-span-records.js";
import { isFutureSpan } from "./reject-future-spans.js";
import { isZeroTimeSpan } from "./reject-zero-time-spans.js";

export interface SpanRecordsOptions {
  /** The receiver's request limits; a message a bus delivers was held to them when received: NO_LIMITS. */
  limits: RequestLimits;
  /**
   * Stamp every resource as the receiver does (stamp-tenant.ts): a client's own claim removed, then this tenant
   * set (null: none). Absent: the resources as sent, as a bus's message is read (stamped when it was received).
   */
  stamp?: { tenant: string | null };
  /**
   * Decline at a second trace: the caller has a use only for a message of one trace (a bus's usual message) and
   * decodes anything else again, so reading on would be wasted.
   */
  oneTrace?: boolean;
  /**
   * A span starting or ending later (Unix nanoseconds), or with a zero start or end, is rejected by the decoding path
   * given this bound (reject-future-spans.ts, reject-zero-time-spans.ts): decline. Absent: times are not checked.
   */
  latestSpanTimeNanos?: bigint;
}

/** No request limits: a bus's message is read as it is. */
export const NO_LIMITS: RequestLimits = {
  maxSpansPerRequest: Number.POSITIVE_INFINITY,
  maxSpansPerTrace: Number.POSITIVE_INFINITY,
  maxAttributesPerSpan: Number.POSITIVE_INFINITY,
  maxAttributeValueBytes: Number.POSITIVE_INFINITY,
  maxAttributeKeyBytes: Number.POSITIVE_INFINITY,
  maxEventsPerSpan: Number.POSITIVE_INFINITY,
  maxLinksPerSpan: Number.POSITIVE_INFINITY,
  maxItemsPerRequest: Number.POSITIVE_INFINITY,
  maxNameBytes: Number.POSITIVE_INFINITY,
};

export interface TraceSpanRecords {
  /** Lower-case hex. */
  traceId: string;
  /** The trace's spans in the order of the request. */
  spans: SpanRecord[];
}

export interface DecodedSpanRecords {
  /** In the order of each trace's first span in the request. */
  traces: TraceSpanRecords[];
  spanCount: number;
}

/** Deeper values are left to the decoding path, which allows 31 levels (otlp-decode-error.ts maxValueNesting). */
const MOST_VALUE_LEVELS = 20;

const TWO_TO_THE_32 = 4294967296;
/** A fixed64 whose high half is below this is exact as a number. */
const EXACT_HIGH_HALF = 2 ** 21;

const authenticatedTenantKey = Ragscope.authenticatedTenant;

/** The request's span records by trace, or null when the decoding path must take the request. */
export function decodeProtobufSpanRecords(body: Uint8Array, options: SpanRecordsOptions): DecodedSpanRecords | null {
  return unlessDeclined(() => new SpanRecordReader(body, options).read());
}

/**
 * A resource's attributes, read once and stamped. Each span gets a copy: arrays and objects new (no two records
 * share a mutable object, as toSpanRecords does), strings shared (a long value is not copied once per span).
 */
interface ResourceAttributes {
  attributes: Attributes;
  /** Every value a scalar: a shallow copy is a whole copy. */
  flat: boolean;
}

class SpanRecordReader extends ProtobufWireCursor {
  private spanCount = 0;
  /** Trace id → its records, in order of first appearance. */
  private readonly traces = new Map<string, SpanRecord[]>();

  constructor(
    body: Uint8Array,
    private readonly options: SpanRecordsOptions,
  ) {
    super(body);
  }

  read(): DecodedSpanRecords {
    const end = this.bytes.byteLength;
    let resourceSpans = 0;
    while (this.position < end) {
      const field = this.tag(end);
      const wireType = this.wireType;
      if (field === 1) {
        const to = this.lengthDelimited(wireType, end);
        this.resourceSpans(this.position, to);
        this.position = to;
        resourceSpans += 1;
      } else this.skip(wireType, end);
    }
    // The decoding path refuses a non-empty body without resource spans, and an empty one has nothing to read.
    if (resourceSpans === 0) throw decline;
    const traces: TraceSpanRecords[] = [];
    for (const [traceId, spans] of this.traces) traces.push({ traceId, spans });
    return { traces, spanCount: this.spanCount };
  }

  private resourceSpans(start: number, end: number): void {
    const { head, items } = this.container(start, end);
    const resource = head === null ? this.resource(0, 0) : this.resource(head.start, head.end);
    for (let index = 0; index < items.length; index += 2) this.scopeSpans(items[index]!, items[index + 1]!, resource);
  }

  /**
   * A ResourceSpans or a ScopeSpans: where its head (field 1, the resource or the scope; given twice, protobufjs
   * merges them) and its items (field 2, as start and end pairs) are; its schema URL (field 3) is checked. The head
   * is read after the whole message: it may follow the items on the wire.
   */
  private container(start: number, end: number): { head: { start: number; end: number } | null; items: number[] } {
    let head: { start: number; end: number } | null = null;
    const items: number[] = [];
    this.position = start;
    while (this.position < end) {
      const field = this.tag(end);
      const wireType = this.wireType;
      if (field === 1 || field === 2) {
        const to = this.lengthDelimited(wireType, end);
        if (field === 2) items.push(this.position, to);
        else if (head === null) head = { start: this.position, end: to };
        else throw decline;
        this.position = to;
      } else if (field === 3) this.textField(wireType, end);
      else this.skip(wireType, end);
    }
    return { head, items };
  }

  /** A Resource's attributes, read and stamped; an empty range (no resource given) reads as an empty resource. */
  private resource(start: number, end: number): ResourceAttributes {
    const attributes: Attributes = {};
    this.position = start;
    while (this.position < end) {
      const field = this.tag(end);
      const wireType = this.wireType;
      if (field === 1) {
        // The receiver removes a client's own claim of an authenticated tenant (stamp-tenant.ts).
        if (this.keyValueField(wireType, end, attributes, true) === authenticatedTenantKey && this.options.stamp !== undefined) throw decline;
      } else if (field === 2) this.varintField(wireType, end);
      else this.skip(wireType, end);
    }
    const tenant = this.options.stamp?.tenant ?? null;
    if (tenant !== null) attributes[authenticatedTenantKey] = tenant;
    return { attributes, flat: Object.values(attributes).every((value) => value === null || typeof value !== "object") };
  }

  private scopeSpans(start: number, end: number, resource: ResourceAttributes): void {
    const { head, items } = this.container(start, end);
    const { name, version } = head === null ? { name: "", version: "" } : this.scope(head.start, head.end);
    for (let index = 0; index < items.length; index += 2) this.span(items[index]!, items[index + 1]!, resource, name, version);
  }

  private scope(start: number, end: number): { name: string; version: string } {
    let name = "";
    let version = "";
    const attributes: Attributes = {};
    this.position = start;
    while (this.position < end) {
      const field = this.tag(end);
      const wireType = this.wireType;
      if (field === 1) name = this.textField(wireType, end);
      else if (field === 2) version = this.textField(wireType, end);
      // Scope attributes are not kept on the records, only checked (and never truncated there).
      else if (field === 3) this.keyValueField(wireType, end, attributes, false);
      else if (field === 4) this.varintField(wireType, end);
      else this.skip(wireType, end);
    }
    return { name, version };
  }

  private span(start: number, end: number, resource: ResourceAttributes, scopeName: string, scopeVersion: string): void {
    const limits = this.options.limits;
    let traceId = -1;
    let spanId = -1;
    let parentSpanId = "";
    let name = "";
    let kind = 0;
    let startTime = 0n;
    let endTime = 0n;
    const attributes: Attributes = {};
    let attributeCount = 0;
    const events: SpanEventRecord[] = [];
    let links = 0;
    let droppedAttributesCount = 0;
    let droppedEventsCount = 0;
    let status: { code: StatusCode; message: string } | null = null;
    this.position = start;
    while (this.position < end) {
      const field = this.tag(end);
      const wireType = this.wireType;
      switch (field) {
        case 1:
          traceId = this.id(wireType, end, 16);
          break;
        case 2:
          spanId = this.id(wireType, end, 8);
          break;
        case 3:
          this.textField(wireType, end);
          break;
        case 4: {
          const to = this.lengthDelimited(wireType, end);
          if (to === this.position) parentSpanId = "";
          else {
            if (to - this.position !== 8) throw decline;
            parentSpanId = this.bytes.toString("hex", this.position, to);
          }
          this.position = to;
          break;
        }
        case 5:
          name = this.nameField(wireType, end);
          break;
        case 6:
          kind = this.varintField(wireType, end);
          break;
        case 7:
          startTime = this.fixed64(wireType, end);
          break;
        case 8:
          endTime = this.fixed64(wireType, end);
          break;
        case 9:
          attributeCount += 1;
          this.keyValueField(wireType, end, attributes, true);
          break;
        case 11: {
          const to = this.lengthDelimited(wireType, end);
          // Declined at the first event past the bound, before reading the rest: the decoding path leaves them out unread.
          if (events.length >= limits.maxEventsPerSpan) throw decline;
          events.push(this.event(this.position, to));
          this.position = to;
          break;
        }
        case 13: {
          const to = this.lengthDelimited(wireType, end);
          if ((links += 1) > limits.maxLinksPerSpan) throw decline;
          this.link(this.position, to);
          this.position = to;
          break;
        }
        case 15: {
          const to = this.lengthDelimited(wireType, end);
          if (status !== null) throw decline;
          status = this.status(this.position, to);
          this.position = to;
          break;
        }
        // The span's dropped attribute and event counts are kept on the record (span-record.ts says why); its dropped
        // link count only checked, as records keep no links.
        case 10:
          droppedAttributesCount = this.varintField(wireType, end);
          break;
        case 12:
          droppedEventsCount = this.varintField(wireType, end);
          break;
        case 14:
          this.varintField(wireType, end);
          break;
        case 16:
          this.fixed32Field(wireType, end);
          break;
        default:
          this.skip(wireType, end);
      }
    }
    if (attributeCount > limits.maxAttributesPerSpan) throw decline;
    if (kind > 5) throw decline;
    // A time left out is 0 too: checked once the span's fields are read, the last of a time given twice counting.
    const latest = this.options.latestSpanTimeNanos;
    if (latest !== undefined && (isFutureSpan(startTime, endTime, latest) || isZeroTimeSpan(startTime, endTime))) throw decline;
    // A missing id has length 0 there: refused as malformed. All zeros: taken out and counted.
    if (traceId < 0 || spanId < 0 || this.allZero(traceId, 16) || this.allZero(spanId, 8)) throw decline;
    this.spanCount += 1;
    if (this.spanCount > limits.maxSpansPerRequest) throw decline;
    const traceKey = this.bytes.toString("hex", traceId, traceId + 16);
    let trace = this.traces.get(traceKey);
    if (trace === undefined) {
      if (this.options.oneTrace === true && this.traces.size > 0) throw decline;
      this.traces.set(traceKey, (trace = []));
    }
    if (trace.length >= limits.maxSpansPerTrace) throw decline;
    trace.push({
      traceId: traceKey,
      spanId: this.bytes.toString("hex", spanId, spanId + 8),
      parentSpanId,
      name,
      kind,
      startTimeUnixNano: startTime,
      endTimeUnixNano: endTime,
      attributes,
      events,
      droppedEventsCount,
      droppedAttributesCount,
      status: status ?? { code: 0, message: "" },
      // Converted per record, so no two records share a mutable object (as toSpanRecords does).
      resource: this.resourceAttributes(resource),
      scope: { name: scopeName, version: scopeVersion },
    });
  }

  /** The resource's attributes for one record. */
  private resourceAttributes(resource: ResourceAttributes): Attributes {
    // Spread defines properties (a `__proto__` key stays an own attribute) in the source's order.
    return resource.flat ? { ...resource.attributes } : (copyValue(resource.attributes) as Attributes);
  }

  private event(start: number, end: number): SpanEventRecord {
    let name = "";
    let time = 0n;
    const attributes: Attributes = {};
    let attributeCount = 0;
    this.position = start;
    while (this.position < end) {
      const field = this.tag(end);
      const wireType = this.wireType;
      if (field === 1) time = this.fixed64(wireType, end);
      else if (field === 2) name = this.nameField(wireType, end);
      else if (field === 3) {
        attributeCount += 1;
        this.keyValueField(wireType, end, attributes, true);
      } else if (field === 4) this.varintField(wireType, end);
      else this.skip(wireType, end);
    }
    if (attributeCount > this.options.limits.maxAttributesPerSpan) throw decline;
    return { name, timeUnixNano: time, attributes };
  }

  /** Checks a link: records do not keep links, but the decoding path refuses a malformed one. */
  private link(start: number, end: number): void {
    let traceId = -1;
    let spanId = -1;
    const attributes: Attributes = {};
    let attributeCount = 0;
    this.position = start;
    while (this.position < end) {
      const field = this.tag(end);
      const wireType = this.wireType;
      if (field === 1) traceId = this.id(wireType, end, 16);
      else if (field === 2) spanId = this.id(wireType, end, 8);
      else if (field === 3) this.textField(wireType, end);
      // Link attributes are not truncated there, only decoded (and counted).
      else if (field === 4) {
        attributeCount += 1;
        this.keyValueField(wireType, end, attributes, false);
      } else if (field === 5) this.varintField(wireType, end);
      else if (field === 6) this.fixed32Field(wireType, end);
      else this.skip(wireType, end);
    }
    // A link's ids only need their length (zeros are allowed).
    if (traceId < 0 || spanId < 0) throw decline;
    if (attributeCount > this.options.limits.maxAttributesPerSpan) throw decline;
  }

  private status(start: number, end: number): { code: StatusCode; message: string } {
    let code = 0;
    let message = "";
    this.position = start;
    while (this.position < end) {
      const field = this.tag(end);
      const wireType = this.wireType;
      if (field === 2) message = this.textField(wireType, end);
      else if (field === 3) code = this.varintField(wireType, end);
      else this.skip(wireType, end);
    }
    if (code > 2) throw decline;
    return { code: code as StatusCode, message };
  }

  /**
   * Reads a length-delimited KeyValue field at the position into `into` (a repeated key keeps its first place and
   * its last value, as toAttributes does) and moves past it; returns its key. `limited`: the decoding path truncates
   * its strings and bytes at the value limit, so a longer one is left to it. `level`: how deep its value is (a
   * key-value list's items are one deeper than the list); an attribute's own key (level 1) longer than the key limit
   * is left to the decoding path, which drops the attribute.
   */
  private keyValueField(fieldWireType: number, outerEnd: number, into: Attributes, limited: boolean, level = 1): string {
    const end = this.lengthDelimited(fieldWireType, outerEnd);
    let key = "";
    let value: AttributeValue = null;
    let valueSeen = false;
    while (this.position < end) {
      const field = this.tag(end);
      const wireType = this.wireType;
      if (field === 1) {
        const to = this.lengthDelimited(wireType, end);
        if (level === 1 && to - this.position > this.options.limits.maxAttributeKeyBytes) throw decline;
        key = this.text(this.position, to);
        this.position = to;
      } else if (field === 2) {
        const to = this.lengthDelimited(wireType, end);
        if (valueSeen) throw decline;
        valueSeen = true;
        value = this.anyValue(this.position, to, level, limited);
        this.position = to;
      } else this.skip(wireType, end);
    }
    setOwn(into, key, value);
    return key;
  }

  /** An AnyValue as toAttributeValue gives it: int64 a number while exact, bytes base64, no value null. */
  private anyValue(start: number, end: number, level: number, limited: boolean): AttributeValue {
    if (level > MOST_VALUE_LEVELS) throw decline;
    let value: AttributeValue = null;
    let members = 0;
    this.position = start;
    while (this.position < end) {
      const field = this.tag(end);
      const wireType = this.wireType;
      switch (field) {
        case 1: {
          const to = this.lengthDelimited(wireType, end);
          if (limited && to - this.position > this.options.limits.maxAttributeValueBytes) throw decline;
          value = this.text(this.position, to);
          this.position = to;
          break;
        }
        case 2: {
          const bool = this.varintField(wireType, end);
          if (bool > 1) throw decline;
          value = bool === 1;
          break;
        }
        case 3:
          if (wireType !== VARINT) throw decline;
          value = this.int64(end);
          break;
        case 4:
          if (wireType !== FIXED64) throw decline;
          if (this.position + 8 > end) throw decline;
          value = this.bytes.readDoubleLE(this.position);
          this.position += 8;
          break;
        case 5: {
          const to = this.lengthDelimited(wireType, end);
          value = this.arrayValue(this.position, to, level, limited);
          this.position = to;
          break;
        }
        case 6: {
          const to = this.lengthDelimited(wireType, end);
          value = this.keyValueList(this.position, to, level, limited);
          this.position = to;
          break;
        }
        case 7: {
          const to = this.lengthDelimited(wireType, end);
          if (limited && to - this.position > this.options.limits.maxAttributeValueBytes) throw decline;
          value = this.bytes.toString("base64", this.position, to);
          this.position = to;
          break;
        }
        default:
          this.skip(wireType, end);
          continue;
      }
      members += 1;
    }
    if (members > 1) throw decline;
    return value;
  }

  private arrayValue(start: number, end: number, level: number, limited: boolean): AttributeValue[] {
    const values: AttributeValue[] = [];
    this.position = start;
    while (this.position < end) {
      const field = this.tag(end);
      const wireType = this.wireType;
      if (field === 1) {
        const to = this.lengthDelimited(wireType, end);
        values.push(this.anyValue(this.position, to, level + 1, limited));
        this.position = to;
      } else this.skip(wireType, end);
    }
    return values;
  }

  private keyValueList(start: number, end: number, level: number, limited: boolean): Attributes {
    const values: Attributes = {};
    this.position = start;
    while (this.position < end) {
      const field = this.tag(end);
      const wireType = this.wireType;
      if (field === 1) this.keyValueField(wireType, end, values, limited, level + 1);
      else this.skip(wireType, end);
    }
    return values;
  }

  /** An id field of `length` bytes; its offset in the body. */
  private id(wireType: number, end: number, length: number): number {
    const to = this.lengthDelimited(wireType, end);
    if (to - this.position !== length) throw decline;
    const at = this.position;
    this.position = to;
    return at;
  }

  private allZero(at: number, length: number): boolean {
    for (let index = at; index < at + length; index += 1) if (this.bytes[index] !== 0) return false;
    return true;
  }

  /** A span's or an event's name; one longer than the name limit is left to the decoding path, which truncates it. */
  private nameField(wireType: number, end: number): string {
    const to = this.lengthDelimited(wireType, end);
    if (to - this.position > this.options.limits.maxNameBytes) throw decline;
    const value = this.text(this.position, to);
    this.position = to;
    return value;
  }

  /** A length-delimited text field at the position, moving past it. */
  private textField(wireType: number, end: number): string {
    const to = this.lengthDelimited(wireType, end);
    const value = this.text(this.position, to);
    this.position = to;
    return value;
  }

  /** [start, end) as text; declines unless it is UTF-8. */
  private text(start: number, end: number): string {
    if (start === end) return "";
    return this.checkText(start, end) ? this.bytes.toString("latin1", start, end) : this.bytes.toString("utf8", start, end);
  }

  /** A varint field's value (exact up to 2^53, larger values are out of every range read here). */
  private varintField(wireType: number, end: number): number {
    if (wireType !== VARINT) throw decline;
    return this.varint(end, 10);
  }

  /** Skips a fixed32 field (flags); declines on another wire type. */
  private fixed32Field(wireType: number, end: number): void {
    if (wireType !== FIXED32) throw decline;
    this.skip(wireType, end);
  }

  /** An unsigned fixed64 (a time) as bigint. */
  private fixed64(wireType: number, end: number): bigint {
    if (wireType !== FIXED64 || this.position + 8 > end) throw decline;
    const low = this.bytes.readUInt32LE(this.position);
    const high = this.bytes.readUInt32LE(this.position + 4);
    this.position += 8;
    return high < EXACT_HIGH_HALF ? BigInt(high * TWO_TO_THE_32 + low) : (BigInt(high) << 32n) | BigInt(low);
  }

  /** An int64 varint as toAttributeValue gives it: a number while it is a safe integer, else its decimal text. */
  private int64(end: number): number | string {
    const start = this.position;
    const value = this.varint(end, 10);
    const length = this.position - start;
    // Seven bytes hold at most 49 bits: exact and positive.
    if (length <= 7) return value;
    let wide = 0n;
    for (let index = this.position - 1; index >= start; index -= 1) wide = (wide << 7n) | BigInt(this.bytes[index]! & 0x7f);
    // protobufjs keeps the low 64 bits of a ten-byte varint, as signed.
    const signed = BigInt.asIntN(64, wide);
    const number = Number(signed);
    return Number.isSafeInteger(number) ? number : signed.toString();
  }
}

/** A value with new arrays and objects, the same strings. */
function copyValue(value: AttributeValue): AttributeValue {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copyValue);
  const copy: Attributes = {};
  for (const key of Object.keys(value)) setOwn(copy, key, copyValue(value[key]!));
  return copy;
}
