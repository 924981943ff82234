/**
 * Encodes spans as an OTLP ExportTraceServiceRequest in protobuf, byte for byte
 * what @opentelemetry/otlp-transformer's ProtobufTraceSerializer writes (the
 * same fields in the same order; test/unit/instrumentation/otlp-protobuf-encoder.test.ts
 * compares the two on every kind of value), in about a third of its time.
 *
 * Why a second encoder: on an application exporting RAG spans (ten
 * 500-character chunks on a retrieval span, the context and prompt texts)
 * encoding cost as much CPU as recording the spans (test/bench/sdk-export.bench.ts
 * profile). OTel's serializer walks every string three times in JavaScript —
 * a size-estimating pass, an ASCII check, a byte-by-byte copy, or a
 * TextEncoder allocation for non-ASCII text such as Chinese — and moves every
 * message longer than 127 bytes once more to fit its length. Here long strings
 * are measured and written by Node's native UTF-8 code (Buffer.byteLength,
 * buffer.write) straight into the request buffer, attribute keys are copied
 * from their remembered encoding, an attribute's lengths are known before it
 * is written, and a span or an outer message is moved only when its length
 * needs another number of bytes than reserved for it.
 */
import type { Attributes, AttributeValue, HrTime, SpanContext } from "@opentelemetry/api";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-base";

type Resource = ReadableSpan["resource"];
type Scope = ReadableSpan["instrumentationScope"];

/** Strings shorter than this are measured and copied in JavaScript: a native call costs more for them. */
const SHORT_STRING = 48;
/** Bytes reserved for the length of a message whose length is known only once it is written. */
const RESERVED = 5;
/** A span's length usually takes two bytes (128 B to 16 KiB: a retrieval with ten chunks is ~10 KiB). */
const SPAN_LENGTH_BYTES = 2;
/** A request's resource and scope messages usually take three (16 KiB to 2 MiB). */
const BATCH_LENGTH_BYTES = 3;
const MIN_64_BIT_INT = -(2 ** 63);
const MAX_64_BIT_INT = 2 ** 63;
const SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK = 0x100;
const SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK = 0x200;

export function encodeTraceRequest(spans: readonly ReadableSpan[], sizeHint = 64 * 1024): Uint8Array {
  const writer = new Writer(sizeHint);
  for (const [resource, scopes] of groupByResourceAndScope(spans)) {
    writer.tag(1, 2);
    const resourceSpans = writer.begin(BATCH_LENGTH_BYTES);
    writer.tag(1, 2);
    const resourceStart = writer.begin();
    writeAttributes(writer, resource.attributes, 1);
    writer.tag(2, 0);
    writer.varint(0);
    writer.end(resourceStart);
    for (const [scope, scopeSpans] of scopes) {
      writer.tag(2, 2);
      const scopeSpansStart = writer.begin(BATCH_LENGTH_BYTES);
      writeScope(writer, scope);
      for (const span of scopeSpans) writeSpan(writer, span);
      if (scope.schemaUrl) writer.stringField(3, scope.schemaUrl);
      writer.end(scopeSpansStart, BATCH_LENGTH_BYTES);
    }
    if (resource.schemaUrl) writer.stringField(3, resource.schemaUrl);
    writer.end(resourceSpans, BATCH_LENGTH_BYTES);
  }
  return writer.finish();
}

/** By identity, in first-seen order, as the OTel serializer groups them. */
function groupByResourceAndScope(spans: readonly ReadableSpan[]): Map<Resource, Map<Scope, ReadableSpan[]>> {
  const resources = new Map<Resource, Map<Scope, ReadableSpan[]>>();
  for (const span of spans) {
    let scopes = resources.get(span.resource);
    if (scopes === undefined) {
      scopes = new Map();
      resources.set(span.resource, scopes);
    }
    let list = scopes.get(span.instrumentationScope);
    if (list === undefined) {
      list = [];
      scopes.set(span.instrumentationScope, list);
    }
    list.push(span);
  }
  return resources;
}

function writeScope(writer: Writer, scope: Scope): void {
  writer.tag(1, 2);
  const start = writer.begin();
  writer.stringField(1, scope.name);
  if (scope.version) writer.stringField(2, scope.version);
  const extended = scope as Scope & { attributes?: Attributes; droppedAttributesCount?: number };
  if (extended.attributes) writeAttributes(writer, extended.attributes, 3);
  if (extended.droppedAttributesCount) {
    writer.tag(4, 0);
    writer.varint(extended.droppedAttributesCount);
  }
  writer.end(start);
}

function writeSpan(writer: Writer, span: ReadableSpan): void {
  writer.tag(2, 2);
  const start = writer.begin(SPAN_LENGTH_BYTES);
  const context = span.spanContext();
  writer.hexField(1, context.traceId);
  writer.hexField(2, context.spanId);
  const traceState = context.traceState?.serialize();
  if (traceState) writer.stringField(3, traceState);
  if (span.parentSpanContext?.spanId) writer.hexField(4, span.parentSpanContext.spanId);
  writer.stringField(5, span.name);
  const kind = span.kind == null ? 0 : span.kind + 1;
  if (kind !== 0) {
    writer.tag(6, 0);
    writer.varint(kind);
  }
  writer.tag(7, 1);
  writer.hrTime(span.startTime);
  writer.tag(8, 1);
  writer.hrTime(span.endTime);
  writeAttributes(writer, span.attributes, 9);
  writer.tag(10, 0);
  writer.varint(span.droppedAttributesCount);
  for (const event of span.events) writeEvent(writer, event);
  writer.tag(12, 0);
  writer.varint(span.droppedEventsCount);
  for (const link of span.links) writeLink(writer, link.context, link.attributes, link.droppedAttributesCount);
  writer.tag(14, 0);
  writer.varint(span.droppedLinksCount);
  writer.tag(15, 2);
  const status = writer.begin();
  if (span.status.message) writer.stringField(2, span.status.message);
  writer.tag(3, 0);
  writer.varint(span.status.code);
  writer.end(status);
  const flags = spanFlags(context.traceFlags, span.parentSpanContext?.isRemote);
  if (flags) {
    writer.tag(16, 5);
    writer.fixed32(flags);
  }
  writer.end(start, SPAN_LENGTH_BYTES);
}

function writeEvent(writer: Writer, event: TimedEvent): void {
  writer.tag(11, 2);
  const start = writer.begin();
  writer.tag(1, 1);
  writer.hrTime(event.time);
  writer.stringField(2, event.name);
  if (event.attributes) writeAttributes(writer, event.attributes, 3);
  writer.tag(4, 0);
  writer.varint(event.droppedAttributesCount || 0);
  writer.end(start);
}

function writeLink(writer: Writer, context: SpanContext, attributes: Attributes | undefined, droppedAttributesCount: number | undefined): void {
  writer.tag(13, 2);
  const start = writer.begin();
  writer.hexField(1, context.traceId);
  writer.hexField(2, context.spanId);
  const traceState = context.traceState?.serialize();
  if (traceState) writer.stringField(3, traceState);
  if (attributes) writeAttributes(writer, attributes, 4);
  writer.tag(5, 0);
  writer.varint(droppedAttributesCount || 0);
  const flags = spanFlags(context.traceFlags, context.isRemote);
  if (flags) {
    writer.tag(6, 5);
    writer.fixed32(flags);
  }
  writer.end(start);
}

function spanFlags(traceFlags: number, isRemote: boolean | undefined): number {
  let flags = (traceFlags & 0xff) | SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK;
  if (isRemote) flags |= SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK;
  return flags;
}

function writeAttributes(writer: Writer, attributes: Attributes, field: number): void {
  // Object.keys rather than for…in: a span with a hundred-odd attributes is a
  // hash table to V8, and for…in checks every key again (~2× the time a key).
  const keys = Object.keys(attributes);
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index]!;
    writeKeyValue(writer, field, key, attributes[key]);
  }
}

/** A KeyValue: with a string value (most attributes) every length is known first, so nothing is moved. */
function writeKeyValue(writer: Writer, field: number, key: string, value: AttributeValue | undefined | null): void {
  writer.tag(field, 2);
  const keyField = encodedKeyField(key);
  if (typeof value === "string" && value.length >= SHORT_STRING && writer.stringKeyValueInOnePass(keyField, value)) return;
  if (typeof value === "string") {
    const valueBytes = utf8Length(value);
    const anyValue = 1 + varintSize(valueBytes) + valueBytes;
    writer.varint(keyField.length + 1 + varintSize(anyValue) + anyValue);
    writer.encoded(keyField);
    writer.tag(2, 2);
    writer.varint(anyValue);
    writer.tag(1, 2);
    writer.string(value, valueBytes);
    return;
  }
  const start = writer.begin();
  writer.encoded(keyField);
  writer.tag(2, 2);
  const valueStart = writer.begin();
  writeAnyValue(writer, value);
  writer.end(valueStart);
  writer.end(start);
}

function writeAnyValue(writer: Writer, value: unknown): void {
  if (typeof value === "string") writer.stringField(1, value);
  else if (typeof value === "boolean") {
    writer.tag(2, 0);
    writer.varint(value ? 1 : 0);
  } else if (typeof value === "number") {
    if (Number.isInteger(value) && value >= MIN_64_BIT_INT && value < MAX_64_BIT_INT) {
      writer.tag(3, 0);
      writer.varint(value);
    } else {
      writer.tag(4, 1);
      writer.double(value);
    }
  } else if (value instanceof Uint8Array) {
    writer.tag(7, 2);
    writer.bytes(value);
  } else if (Array.isArray(value)) {
    writer.tag(5, 2);
    const arrayStart = writer.begin();
    for (const item of value) {
      writer.tag(1, 2);
      const itemStart = writer.begin();
      writeAnyValue(writer, item);
      writer.end(itemStart);
    }
    writer.end(arrayStart);
  } else if (typeof value === "object" && value !== null) {
    writer.tag(6, 2);
    const listStart = writer.begin();
    const entries = value as Record<string, unknown>;
    for (const key in entries) {
      if (!Object.prototype.hasOwnProperty.call(entries, key)) continue;
      writer.tag(1, 2);
      const entryStart = writer.begin();
      writer.stringField(1, key);
      writer.tag(2, 2);
      const valueStart = writer.begin();
      writeAnyValue(writer, entries[key]);
      writer.end(valueStart);
      writer.end(entryStart);
    }
    writer.end(listStart);
  }
}

/**
 * Encoded key fields (KeyValue.key's tag, length and UTF-8 bytes), remembered:
 * an application sends the same few hundred attribute keys in every request
 * (twelve per retrieved chunk), and measuring and copying each key character
 * by character was two fifths of encoding (test/bench/sdk-export.bench.ts).
 * Bounded in entries and key length; past the bounds a key is encoded each time.
 */
const keyFields = new Map<string, Uint8Array>();
const MAX_REMEMBERED_KEYS = 4096;
const MAX_REMEMBERED_KEY_LENGTH = 256;

function encodedKeyField(key: string): Uint8Array {
  const known = keyFields.get(key);
  if (known !== undefined) return known;
  const keyBytes = Buffer.byteLength(key, "utf8");
  const field = Buffer.alloc(1 + varintSize(keyBytes) + keyBytes);
  field[0] = (1 << 3) | 2;
  field.write(key, putVarint(field, 1, keyBytes), keyBytes, "utf8");
  if (key.length <= MAX_REMEMBERED_KEY_LENGTH && keyFields.size < MAX_REMEMBERED_KEYS) keyFields.set(key, field);
  return field;
}

function utf8Length(text: string): number {
  if (text.length >= SHORT_STRING) return Buffer.byteLength(text, "utf8");
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code < 0xd800 || code >= 0xe000) bytes += 3;
    else {
      index += 1;
      bytes += 4;
    }
  }
  return bytes;
}

/** A varint of a value in [0, 2³¹) at `position`; the position after it. */
function putVarint(target: Uint8Array, position: number, value: number): number {
  let at = position;
  let rest = value;
  while (rest >= 0x80) {
    target[at++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  target[at++] = rest;
  return at;
}

function varintSize(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  return 5;
}

class Writer {
  private buffer: Buffer;
  private pos = 0;

  constructor(size: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(1024, size));
  }

  finish(): Uint8Array {
    return this.buffer.subarray(0, this.pos);
  }

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** Unsigned varints, and negative integers as 64-bit two's complement (10 bytes), as protobuf's int64. */
  varint(value: number): void {
    this.ensure(10);
    if (value >= 0 && value < 0x80000000) {
      this.pos = putVarint(this.buffer, this.pos, value);
      return;
    }
    let rest = BigInt.asUintN(64, BigInt(value));
    while (rest >= 0x80n) {
      this.buffer[this.pos++] = Number(rest & 0x7fn) | 0x80;
      rest >>= 7n;
    }
    this.buffer[this.pos++] = Number(rest);
  }

  fixed32(value: number): void {
    this.ensure(4);
    this.buffer.writeUInt32LE(value >>> 0, this.pos);
    this.pos += 4;
  }

  double(value: number): void {
    this.ensure(8);
    this.buffer.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /**
   * Nanoseconds since the epoch as fixed64, from OTel's [seconds, nanoseconds].
   * Two 32-bit halves computed exactly in doubles (no BigInt a timestamp, two
   * a span): seconds = high·2¹⁶ + low, so every product stays below 2⁴⁸.
   */
  hrTime(time: HrTime): void {
    this.ensure(8);
    const [seconds, nanoseconds] = time;
    if (!(Number.isInteger(seconds) && seconds >= 0 && seconds < 2 ** 32 && Number.isInteger(nanoseconds) && nanoseconds >= 0 && nanoseconds < 1e9)) {
      this.buffer.writeBigUInt64LE(BigInt(seconds) * 1_000_000_000n + BigInt(nanoseconds), this.pos);
      this.pos += 8;
      return;
    }
    const high = Math.floor(seconds / 65_536) * 1e9;
    const low = (seconds % 65_536) * 1e9 + nanoseconds;
    // total = high·2¹⁶ + low; high·2¹⁶ = ⌊high / 2¹⁶⌋·2³² + (high mod 2¹⁶)·2¹⁶.
    const belowHigh = (high % 65_536) * 65_536 + low;
    this.buffer.writeUInt32LE(belowHigh % 2 ** 32, this.pos);
    this.buffer.writeUInt32LE(Math.floor(high / 65_536) + Math.floor(belowHigh / 2 ** 32), this.pos + 4);
    this.pos += 8;
  }

  stringField(field: number, text: string): void {
    this.tag(field, 2);
    this.string(text, utf8Length(text));
  }

  /** Length-prefixed UTF-8, `byteLength` measured by the caller. */
  string(text: string, byteLength: number): void {
    this.varint(byteLength);
    this.ensure(byteLength);
    if (text.length >= SHORT_STRING || byteLength !== text.length) {
      this.buffer.write(text, this.pos, byteLength, "utf8");
    } else {
      for (let index = 0; index < byteLength; index += 1) this.buffer[this.pos + index] = text.charCodeAt(index);
    }
    this.pos += byteLength;
  }

  /**
   * The body of a KeyValue with a long string value, written without measuring
   * the value first: its UTF-8 length lies between its length and three times
   * that, and when the three lengths that enclose it (value, AnyValue,
   * KeyValue) need as many varint bytes at both ends of that range, their
   * places are known, the value is written once by the native encoder and the
   * lengths filled in after. False, with nothing written, when the range
   * straddles a varint size (then the caller measures first).
   */
  stringKeyValueInOnePass(keyField: Uint8Array, value: string): boolean {
    const fewest = value.length;
    const most = 3 * value.length;
    const valueSize = varintSize(fewest);
    if (varintSize(most) !== valueSize) return false;
    const anyValueSize = varintSize(1 + valueSize + fewest);
    if (varintSize(1 + valueSize + most) !== anyValueSize) return false;
    const prefix = keyField.length + 1 + anyValueSize + 1 + valueSize;
    const keyValueSize = varintSize(prefix + fewest);
    if (varintSize(prefix + most) !== keyValueSize) return false;
    this.ensure(keyValueSize + prefix + most);
    const keyValueAt = this.pos;
    this.pos += keyValueSize;
    this.encoded(keyField);
    this.tag(2, 2);
    const anyValueAt = this.pos;
    this.pos += anyValueSize;
    this.tag(1, 2);
    const valueAt = this.pos;
    this.pos += valueSize;
    const valueBytes = this.buffer.write(value, this.pos, most, "utf8");
    this.pos += valueBytes;
    this.varintAt(keyValueAt, prefix + valueBytes);
    this.varintAt(anyValueAt, 1 + valueSize + valueBytes);
    this.varintAt(valueAt, valueBytes);
    return true;
  }

  /** A varint into a place reserved for exactly its size. */
  private varintAt(position: number, value: number): void {
    putVarint(this.buffer, position, value);
  }

  /** An id given in hex (trace and span ids) as length-prefixed bytes. */
  hexField(field: number, hex: string): void {
    this.tag(field, 2);
    const length = hex.length >>> 1;
    this.varint(length);
    this.ensure(length);
    this.pos += this.buffer.write(hex, this.pos, length, "hex");
  }

  /** Bytes already encoded (a field with its tag and length), copied as they are. */
  encoded(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buffer.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.ensure(value.length);
    this.buffer.set(value, this.pos);
    this.pos += value.length;
  }

  /**
   * Starts a message whose length is known once written: room for a length of
   * `reserved` bytes, filled in by `end` (with the same `reserved`). The
   * message is moved only when its length needs another size; callers reserve
   * the size their messages usually take.
   */
  begin(reserved = RESERVED): number {
    this.ensure(reserved);
    const start = this.pos;
    this.pos += reserved;
    return start;
  }

  end(start: number, reserved = RESERVED): void {
    const contentStart = start + reserved;
    const length = this.pos - contentStart;
    const size = varintSize(length);
    if (size !== reserved) {
      if (size > reserved) this.ensure(size - reserved);
      this.buffer.copyWithin(start + size, contentStart, this.pos);
      this.pos += size - reserved;
    }
    this.varintAt(start, length);
  }

  private ensure(bytes: number): void {
    if (this.pos + bytes <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.pos + bytes) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.pos);
    this.buffer = grown;
  }
}
