/**
 * An OTLP protobuf request cut into one message per trace by copying its
 * bytes: each span's bytes, with the bytes of its resource and scope, go
 * into a new ExportTraceServiceRequest keyed by the span's trace id. Nothing
 * is decoded into strings or objects and nothing is encoded again.
 *
 * Why: `ragscope receive` publishes what it receives to Kafka one trace per
 * message. Decoding a request into a TracesDocument, then encoding each
 * trace's document again, cost ~200 µs of CPU a span of RAG traces (their
 * attributes carry the retrieved documents), a third of it garbage
 * collection; copying the bytes costs a small part of that.
 *
 * The result is the one the decoding path (prepare-trace-messages.ts)
 * gives, message for message the same spans under the same resources and
 * scopes, or this function declines (null) and that path runs. It declines
 * whenever the decoding path would refuse the request or change its spans:
 * anything protobufjs would refuse (truncated fields, bad wire types, invalid
 * UTF-8, too deep values), ids of the wrong length, a span kind or status
 * code out of range, an all-zero trace or span id, a start or end time past
 * the receiver's bound or zero (those spans are taken out there), a count
 * over a request limit (refused there with its message), an attribute value
 * that may need truncating, more events or links than a span
 * keeps or an attribute key over the key limit (dropped there), a span or
 * event name over the name limit (truncated there), a client's
 * `ragscope.tenant.authenticated` resource attribute (removed there), a
 * resource or scope given twice, and a known field with another wire type.
 * Whatever else the decoder decides (unknown fields, a oneof given twice),
 * it decides alike on the copied bytes, which the evaluator decodes. The test
 * (split-protobuf-by-trace-id.test.ts) holds it to the decoding path on
 * recorded and random requests.
 */
import { Ragscope } from "../../contracts/span-attributes.js";
import type { RequestLimits } from "./enforce-request-limits.js";
import { decline, FIXED32, FIXED64, LENGTH_DELIMITED, ProtobufWireCursor, unlessDeclined, VARINT } from "./protobuf-wire-cursor.js";
import { isFutureSpan } from "./reject-future-spans.js";
import { isZeroTimeSpan } from "./reject-zero-time-spans.js";

export interface WireSplitOptions {
  limits: RequestLimits;
  /** At most this many spans a message (prepare-trace-messages.ts SPANS_PER_MESSAGE). */
  maxSpansPerMessage: number;
  /** At most this many bytes a message, unless one span alone is larger. */
  maxMessageBytes: number;
  /**
   * A span starting or ending later (Unix nanoseconds), or with a zero start or end, is rejected by the decoding path
   * given this bound (reject-future-spans.ts, reject-zero-time-spans.ts): decline. Absent: times are not checked.
   */
  latestSpanTimeNanos?: bigint;
}

export interface WireSplit {
  messages: { key: string; value: Uint8Array }[];
  spanCount: number;
}

/** Deeper values are left to the decoding path, which allows 31 levels (otlp-decode-error.ts maxValueNesting). */
const MOST_VALUE_LEVELS = 20;

const authenticatedTenantKey = Buffer.from(Ragscope.authenticatedTenant, "utf8");

/** Byte range [start, end) of the body. */
interface Range {
  start: number;
  end: number;
}

interface ScopePiece {
  scope: Range | null;
  schemaUrl: Range | null;
  spans: Range[];
}

interface ResourcePiece {
  resource: Range | null;
  schemaUrl: Range | null;
  scopes: ScopePiece[];
}

/**
 * The request's messages, or null when the decoding path must take the
 * request. Every message's value owns its ArrayBuffer, so the decode thread
 * can transfer it.
 */
export function splitProtobufByTraceId(body: Uint8Array, options: WireSplitOptions): WireSplit | null {
  return unlessDeclined(() => new WireSplitter(body, options).split());
}

class WireSplitter extends ProtobufWireCursor {
  private spans = 0;
  /** Trace id (hex) → its resource pieces, in order of first appearance (split-by-trace-id.ts keeps that order). */
  private readonly traces = new Map<string, ResourcePiece[]>();
  private readonly spansPerTrace = new Map<string, number>();

  constructor(
    body: Uint8Array,
    private readonly options: WireSplitOptions,
  ) {
    super(body);
  }

  split(): WireSplit {
    let resourceSpans = 0;
    this.fields(0, this.bytes.byteLength, (field, wireType, start, end) => {
      if (field !== 1) return false;
      expect(wireType, LENGTH_DELIMITED);
      resourceSpans += 1;
      this.resourceSpans(start, end);
      return true;
    });
    // The decoding path refuses a non-empty body with no resourceSpans.
    if (resourceSpans === 0 && this.bytes.byteLength > 0) throw decline;
    const messages: WireSplit["messages"] = [];
    for (const [key, pieces] of this.traces) for (const value of this.messagesOf(pieces)) messages.push({ key, value });
    return { messages, spanCount: this.spans };
  }

  private resourceSpans(start: number, end: number): void {
    let resource: Range | null = null;
    let schemaUrl: Range | null = null;
    const scopeSpans: Range[] = [];
    this.fields(start, end, (field, wireType, from, to) => {
      if (field === 1) {
        expect(wireType, LENGTH_DELIMITED);
        if (resource !== null) throw decline;
        resource = { start: from, end: to };
        this.resource(from, to);
      } else if (field === 2) {
        expect(wireType, LENGTH_DELIMITED);
        scopeSpans.push({ start: from, end: to });
      } else if (field === 3) {
        expect(wireType, LENGTH_DELIMITED);
        this.checkText(from, to);
        schemaUrl = { start: from, end: to };
      } else return false;
      return true;
    });
    // The pieces of this ResourceSpans opened in each trace, as splitByTraceId gathers them.
    const opened = new Map<string, ResourcePiece>();
    for (const range of scopeSpans) this.scopeSpans(range, resource, schemaUrl, opened);
  }

  private scopeSpans(range: Range, resource: Range | null, resourceSchemaUrl: Range | null, opened: Map<string, ResourcePiece>): void {
    let scope: Range | null = null;
    let schemaUrl: Range | null = null;
    const spans: { traceId: string; range: Range }[] = [];
    this.fields(range.start, range.end, (field, wireType, from, to) => {
      if (field === 1) {
        expect(wireType, LENGTH_DELIMITED);
        if (scope !== null) throw decline;
        scope = { start: from, end: to };
        this.scope(from, to);
      } else if (field === 2) {
        expect(wireType, LENGTH_DELIMITED);
        spans.push({ traceId: this.span(from, to), range: { start: from, end: to } });
      } else if (field === 3) {
        expect(wireType, LENGTH_DELIMITED);
        this.checkText(from, to);
        schemaUrl = { start: from, end: to };
      } else return false;
      return true;
    });
    const pieces = new Map<string, ScopePiece>();
    for (const { traceId, range: spanRange } of spans) {
      let piece = pieces.get(traceId);
      if (piece === undefined) {
        let resourcePiece = opened.get(traceId);
        if (resourcePiece === undefined) {
          resourcePiece = { resource, schemaUrl: resourceSchemaUrl, scopes: [] };
          opened.set(traceId, resourcePiece);
          let trace = this.traces.get(traceId);
          if (trace === undefined) this.traces.set(traceId, (trace = []));
          trace.push(resourcePiece);
        }
        piece = { scope, schemaUrl, spans: [] };
        pieces.set(traceId, piece);
        resourcePiece.scopes.push(piece);
      }
      piece.spans.push(spanRange);
    }
  }

  private resource(start: number, end: number): void {
    this.fields(start, end, (field, wireType, from, to) => {
      if (field === 1) {
        expect(wireType, LENGTH_DELIMITED);
        // The decoding path removes a client's own claim of an authenticated tenant (stamp-tenant.ts).
        if (this.keyValue(from, to, true) === "authenticated tenant") throw decline;
      } else if (field === 2) expect(wireType, VARINT);
      else return false;
      return true;
    });
  }

  private scope(start: number, end: number): void {
    this.fields(start, end, (field, wireType, from, to) => {
      if (field === 1 || field === 2) {
        expect(wireType, LENGTH_DELIMITED);
        this.checkText(from, to);
      } else if (field === 3) {
        expect(wireType, LENGTH_DELIMITED);
        // Scope attributes are not truncated by the decoding path, only decoded.
        this.keyValue(from, to, false);
      } else if (field === 4) expect(wireType, VARINT);
      else return false;
      return true;
    });
  }

  /** Checks a span; its trace id in lower-case hex. */
  private span(start: number, end: number): string {
    let traceId: Range | null = null;
    let spanId: Range | null = null;
    let parentSpanId: Range | null = null;
    let kind = 0;
    let attributes = 0;
    let events = 0;
    let links = 0;
    let statusCode = 0;
    // Read as the decoder reads them: 0 when left out, the last when given twice.
    let startTime = 0n;
    let endTime = 0n;
    this.fields(start, end, (field, wireType, from, to) => {
      switch (field) {
        case 1:
          expect(wireType, LENGTH_DELIMITED);
          traceId = { start: from, end: to };
          break;
        case 2:
          expect(wireType, LENGTH_DELIMITED);
          spanId = { start: from, end: to };
          break;
        case 4:
          expect(wireType, LENGTH_DELIMITED);
          parentSpanId = { start: from, end: to };
          break;
        case 3:
        case 5:
          expect(wireType, LENGTH_DELIMITED);
          // A name over the name limit is truncated by the decoding path.
          if (field === 5 && to - from > this.options.limits.maxNameBytes) throw decline;
          this.checkText(from, to);
          break;
        case 6:
          expect(wireType, VARINT);
          kind = this.varintAt(from);
          break;
        case 7:
          expect(wireType, FIXED64);
          startTime = this.bytes.readBigUInt64LE(from);
          break;
        case 8:
          expect(wireType, FIXED64);
          endTime = this.bytes.readBigUInt64LE(from);
          break;
        case 9:
          expect(wireType, LENGTH_DELIMITED);
          attributes += 1;
          this.keyValue(from, to, true);
          break;
        case 10:
        case 12:
        case 14:
          expect(wireType, VARINT);
          break;
        case 11:
          expect(wireType, LENGTH_DELIMITED);
          if ((events += 1) > this.options.limits.maxEventsPerSpan) throw decline;
          this.event(from, to);
          break;
        case 13:
          expect(wireType, LENGTH_DELIMITED);
          if ((links += 1) > this.options.limits.maxLinksPerSpan) throw decline;
          this.link(from, to);
          break;
        case 15:
          expect(wireType, LENGTH_DELIMITED);
          statusCode = this.status(from, to, statusCode);
          break;
        case 16:
          expect(wireType, FIXED32);
          break;
        default:
          return false;
      }
      return true;
    });
    if (attributes > this.options.limits.maxAttributesPerSpan) throw decline;
    if (kind < 0 || kind > 5 || statusCode < 0 || statusCode > 2) throw decline;
    const latest = this.options.latestSpanTimeNanos;
    if (latest !== undefined && (isFutureSpan(startTime, endTime, latest) || isZeroTimeSpan(startTime, endTime))) throw decline;
    // All-zero ids are taken out by the decoding path (reject-invalid-ids.ts), which also counts them.
    const trace = this.id(traceId, 16, false);
    this.id(spanId, 8, false);
    if (parentSpanId !== null && (parentSpanId as Range).end > (parentSpanId as Range).start) this.id(parentSpanId, 8, true);
    const key = Buffer.from(trace.buffer, trace.byteOffset, trace.byteLength).toString("hex");
    this.spans += 1;
    if (this.spans > this.options.limits.maxSpansPerRequest) throw decline;
    const count = (this.spansPerTrace.get(key) ?? 0) + 1;
    if (count > this.options.limits.maxSpansPerTrace) throw decline;
    this.spansPerTrace.set(key, count);
    return key;
  }

  private event(start: number, end: number): void {
    let attributes = 0;
    this.fields(start, end, (field, wireType, from, to) => {
      if (field === 1) expect(wireType, FIXED64);
      else if (field === 2) {
        expect(wireType, LENGTH_DELIMITED);
        if (to - from > this.options.limits.maxNameBytes) throw decline;
        this.checkText(from, to);
      } else if (field === 3) {
        expect(wireType, LENGTH_DELIMITED);
        attributes += 1;
        this.keyValue(from, to, true);
      } else if (field === 4) expect(wireType, VARINT);
      else return false;
      return true;
    });
    if (attributes > this.options.limits.maxAttributesPerSpan) throw decline;
  }

  private link(start: number, end: number): void {
    let traceId: Range | null = null;
    let spanId: Range | null = null;
    let attributes = 0;
    this.fields(start, end, (field, wireType, from, to) => {
      if (field === 1 || field === 2) {
        expect(wireType, LENGTH_DELIMITED);
        if (field === 1) traceId = { start: from, end: to };
        else spanId = { start: from, end: to };
      } else if (field === 3) {
        expect(wireType, LENGTH_DELIMITED);
        this.checkText(from, to);
      } else if (field === 4) {
        expect(wireType, LENGTH_DELIMITED);
        // Link attributes are not truncated by the decoding path, only decoded (and counted).
        attributes += 1;
        this.keyValue(from, to, false);
      } else if (field === 5) expect(wireType, VARINT);
      else if (field === 6) expect(wireType, FIXED32);
      else return false;
      return true;
    });
    // A link's ids only need their length there (zeros are allowed).
    this.id(traceId, 16, true);
    this.id(spanId, 8, true);
    if (attributes > this.options.limits.maxAttributesPerSpan) throw decline;
  }

  /** The code of a Status (the last one given wins, as protobufjs merges a message given twice). */
  private status(start: number, end: number, code: number): number {
    let last = code;
    this.fields(start, end, (field, wireType, from, to) => {
      if (field === 2) {
        expect(wireType, LENGTH_DELIMITED);
        this.checkText(from, to);
      } else if (field === 3) {
        expect(wireType, VARINT);
        last = this.varintAt(from);
      } else return false;
      return true;
    });
    return last;
  }

  /**
   * Checks an attribute's KeyValue. `truncatable`: the decoding path truncates its value at the attribute value limit,
   * so a value whose encoding is longer (its strings may be) is left to it; so is a key over the key limit, which it
   * drops. Says whether the key is the authenticated tenant's.
   */
  private keyValue(start: number, end: number, truncatable: boolean): "authenticated tenant" | "other" {
    let authenticatedTenant = false;
    this.fields(start, end, (field, wireType, from, to) => {
      if (field === 1) {
        expect(wireType, LENGTH_DELIMITED);
        if (to - from > this.options.limits.maxAttributeKeyBytes) throw decline;
        this.checkText(from, to);
        // The last key given is the one the decoder keeps.
        authenticatedTenant = this.sameBytes(from, to, authenticatedTenantKey);
      } else if (field === 2) {
        expect(wireType, LENGTH_DELIMITED);
        if (truncatable && to - from > this.options.limits.maxAttributeValueBytes) throw decline;
        this.anyValue(from, to, 1);
      } else return false;
      return true;
    });
    return authenticatedTenant ? "authenticated tenant" : "other";
  }

  /** Whether [start, end) holds `bytes`, compared in place: a view per key to compare cost an allocation per attribute. */
  private sameBytes(start: number, end: number, bytes: Uint8Array): boolean {
    if (end - start !== bytes.length) return false;
    for (let index = 0; index < bytes.length; index += 1) if (this.bytes[start + index] !== bytes[index]) return false;
    return true;
  }

  private anyValue(start: number, end: number, level: number): void {
    if (level > MOST_VALUE_LEVELS) throw decline;
    this.fields(start, end, (field, wireType, from, to) => {
      switch (field) {
        case 1:
          expect(wireType, LENGTH_DELIMITED);
          this.checkText(from, to);
          break;
        case 2:
        case 3:
          expect(wireType, VARINT);
          break;
        case 4:
          expect(wireType, FIXED64);
          break;
        case 5:
          expect(wireType, LENGTH_DELIMITED);
          this.values(from, to, (itemFrom, itemTo) => this.anyValue(itemFrom, itemTo, level + 1));
          break;
        case 6:
          expect(wireType, LENGTH_DELIMITED);
          this.values(from, to, (itemFrom, itemTo) => this.nestedKeyValue(itemFrom, itemTo, level + 1));
          break;
        case 7:
          expect(wireType, LENGTH_DELIMITED);
          break;
        default:
          return false;
      }
      return true;
    });
  }

  /** The items of an ArrayValue or a KeyValueList: its `values` (field 1), each checked by `check`. */
  private values(start: number, end: number, check: (from: number, to: number) => void): void {
    this.fields(start, end, (field, wireType, from, to) => {
      if (field !== 1) return false;
      expect(wireType, LENGTH_DELIMITED);
      check(from, to);
      return true;
    });
  }

  private nestedKeyValue(start: number, end: number, level: number): void {
    this.fields(start, end, (field, wireType, from, to) => {
      if (field === 1) {
        expect(wireType, LENGTH_DELIMITED);
        this.checkText(from, to);
      } else if (field === 2) {
        expect(wireType, LENGTH_DELIMITED);
        this.anyValue(from, to, level);
      } else return false;
      return true;
    });
  }

  /** An id of `bytes` bytes (or declines); `zeroAllowed` false: all zeros declines too. */
  private id(range: Range | null, bytes: number, zeroAllowed: boolean): Uint8Array {
    if (range === null || range.end - range.start !== bytes) throw decline;
    const id = this.bytes.subarray(range.start, range.end);
    if (!zeroAllowed && id.every((byte) => byte === 0)) throw decline;
    return id;
  }

  /**
   * Calls `visit` for each field of the message in [start, end), with the range of its payload (for a
   * length-delimited field, its content). `visit` returns false for a field the message does not define: it is
   * skipped, as protobufjs skips unknown fields. Declines on anything malformed, on field number 0 and on groups.
   */
  private fields(start: number, end: number, visit: (field: number, wireType: number, from: number, to: number) => boolean): void {
    this.position = start;
    while (this.position < end) {
      const field = this.tag(end);
      const wireType = this.wireType;
      let from = this.position;
      let to: number;
      if (wireType === LENGTH_DELIMITED) {
        to = this.lengthDelimited(wireType, end);
        from = this.position;
      } else {
        this.skip(wireType, end);
        to = this.position;
      }
      // `visit` may scan inside the field, which moves the position: the next field starts where this one ends.
      visit(field, wireType, from, to);
      this.position = to;
    }
  }

  /** The varint at `at` as an enum reads it (an int32): values past 2^31 are negative or out of range either way. */
  private varintAt(at: number): number {
    const saved = this.position;
    this.position = at;
    const value = this.varint(this.bytes.byteLength, 10);
    this.position = saved;
    return value >= 2 ** 31 ? -1 : value;
  }

  /** A trace's pieces as messages of at most maxSpansPerMessage spans and maxMessageBytes bytes. */
  private *messagesOf(pieces: readonly ResourcePiece[]): Generator<Uint8Array> {
    let part: ResourcePiece[] = [];
    let spans = 0;
    let bytes = 0;
    for (const piece of pieces) {
      let resourcePiece: ResourcePiece | null = null;
      for (const scopePiece of piece.scopes) {
        let partScope: ScopePiece | null = null;
        for (const span of scopePiece.spans) {
          const spanBytes = span.end - span.start + 11;
          // The resource's and scope's own bytes, counted again for each message they open in.
          const opening = (resourcePiece === null ? this.resourceBytes(piece) : 0) + (partScope === null ? this.scopeBytes(scopePiece) : 0);
          if (spans > 0 && (spans === this.options.maxSpansPerMessage || bytes + opening + spanBytes > this.options.maxMessageBytes)) {
            yield this.encode(part);
            part = [];
            spans = 0;
            bytes = 0;
            resourcePiece = null;
            partScope = null;
          }
          if (resourcePiece === null) {
            resourcePiece = { resource: piece.resource, schemaUrl: piece.schemaUrl, scopes: [] };
            part.push(resourcePiece);
            bytes += this.resourceBytes(piece);
          }
          if (partScope === null) {
            partScope = { scope: scopePiece.scope, schemaUrl: scopePiece.schemaUrl, spans: [] };
            resourcePiece.scopes.push(partScope);
            bytes += this.scopeBytes(scopePiece);
          }
          partScope.spans.push(span);
          spans += 1;
          bytes += spanBytes;
        }
      }
    }
    if (spans > 0) yield this.encode(part);
  }

  /** At most what a resource piece adds to a message besides its scopes: its tag and length, resource and schema URL. */
  private resourceBytes(piece: ResourcePiece): number {
    return 11 + rangeBytes(piece.resource) + rangeBytes(piece.schemaUrl) + 22;
  }

  private scopeBytes(piece: ScopePiece): number {
    return 11 + rangeBytes(piece.scope) + rangeBytes(piece.schemaUrl) + 22;
  }

  /** ExportTraceServiceRequest { resource_spans (1) { resource (1), scope_spans (2) { scope (1), spans (2), schema_url (3) }, schema_url (3) } }. */
  private encode(part: readonly ResourcePiece[]): Uint8Array {
    const scopeLength = (scope: ScopePiece) => fieldLength(scope.scope) + scope.spans.reduce((sum, span) => sum + fieldLength(span), 0) + fieldLength(scope.schemaUrl);
    const resourceLength = (resource: ResourcePiece) => fieldLength(resource.resource) + resource.scopes.reduce((sum, scope) => sum + lengthDelimited(scopeLength(scope)), 0) + fieldLength(resource.schemaUrl);
    const total = part.reduce((sum, resource) => sum + lengthDelimited(resourceLength(resource)), 0);
    // Its own ArrayBuffer (not a view of Node's pool), so the decode thread can transfer it.
    const out = new Uint8Array(total);
    let at = 0;
    const header = (field: number, length: number) => {
      out[at++] = (field << 3) | LENGTH_DELIMITED;
      at = writeVarint(out, at, length);
    };
    const copy = (field: number, range: Range | null) => {
      if (range === null) return;
      header(field, range.end - range.start);
      out.set(this.bytes.subarray(range.start, range.end), at);
      at += range.end - range.start;
    };
    for (const resource of part) {
      header(1, resourceLength(resource));
      copy(1, resource.resource);
      for (const scope of resource.scopes) {
        header(2, scopeLength(scope));
        copy(1, scope.scope);
        for (const span of scope.spans) copy(2, span);
        copy(3, scope.schemaUrl);
      }
      copy(3, resource.schemaUrl);
    }
    if (at !== total) throw new Error(`wire split wrote ${at} of ${total} bytes`);
    return out;
  }
}

function expect(wireType: number, expected: number): void {
  // protobufjs skips a known field sent with another wire type, leaving its default: the decoding path decides.
  if (wireType !== expected) throw decline;
}

function rangeBytes(range: Range | null): number {
  return range === null ? 0 : range.end - range.start;
}

function varintBytes(value: number): number {
  let bytes = 1;
  for (let rest = value; rest >= 128; rest = Math.floor(rest / 128)) bytes += 1;
  return bytes;
}

/** A length-delimited field of `length` content bytes (one-byte tag: fields 1–15). */
function lengthDelimited(length: number): number {
  return 1 + varintBytes(length) + length;
}

function fieldLength(range: Range | null): number {
  return range === null ? 0 : lengthDelimited(range.end - range.start);
}

function writeVarint(out: Uint8Array, at: number, value: number): number {
  let rest = value;
  let position = at;
  while (rest >= 128) {
    out[position++] = (rest % 128) | 0x80;
    rest = Math.floor(rest / 128);
  }
  out[position++] = rest;
  return position;
}
