/**
 * Where an OTLP protobuf body was cut short, when it was. protobufjs says only "index out of range" for a body that
 * ends inside a message: a client could not tell a cut body (a proxy's body size limit, a client that stopped
 * sending) from bytes that are no protobuf at all. This walks the body along the message type's fields, as the
 * decoder reads it, and names the innermost field the body ends inside, the field of the request it belongs to, and
 * both byte counts.
 */
import type protobuf from "protobufjs";
import { FIXED32, FIXED64, LENGTH_DELIMITED, VARINT } from "./protobuf-wire-cursor.js";

/** Where the body ends inside a field that declares more bytes than are left. */
export interface ProtobufTruncation {
  /** The innermost part cut, e.g. `resourceSpans[0].scopeSpans[0].spans[1].attributes[0].value`, or `the length of resourceSpans[1]`. */
  where: string;
  /** The top-level field cut, e.g. `resourceSpans[0]`, and the byte its content would end at (the body had to be at least this long); null when the body ends before its length. */
  topLevel: { path: string; end: number } | null;
  /** The body's length. */
  bodyBytes: number;
}

/** protobufjs's own nesting limit: a deeper body is refused for that, not walked. */
const MAXIMUM_DEPTH = 100;

/** Thrown inside the walk: the body ends inside `where` (a read ran past its last byte). */
class BodyEnds extends Error {
  constructor(readonly where: string) {
    super(where);
  }
}

/** Thrown inside the walk: the body is malformed in another way, so protobufjs's reason stands. */
class NotTruncation extends Error {}

/**
 * The truncation of `body` read as `type`, or null when the body does not end inside a field (it is malformed
 * otherwise, or it decodes).
 */
export function truncationOf(type: protobuf.Type, body: Uint8Array): ProtobufTruncation | null {
  const walk = new TruncationWalk(body);
  try {
    // The request itself has no declared length: it ends where the body does.
    walk.message(type, 0, Number.POSITIVE_INFINITY, "", 0);
    return null;
  } catch (error) {
    if (error instanceof BodyEnds) return { where: error.where, topLevel: walk.topLevel, bodyBytes: body.length };
    if (error instanceof NotTruncation) return null;
    throw error;
  }
}

/** The sentence a client is sent back for a cut body: what, where, how many bytes, and how to send it whole. */
function describeTruncation(truncation: ProtobufTruncation, requestName: string): string {
  const topLevel = truncation.topLevel;
  const declared = topLevel === null ? "" : `, but ${topLevel.path} declares content up to byte ${topLevel.end}`;
  // A length that is wrong (an encoder's bug) reads the same as a cut body: the last clause says so.
  const wrongLength = topLevel === null ? "" : `; if the client sent all ${topLevel.end} bytes, its encoder wrote a wrong length`;
  return (
    `the body ends early, cut short: it has ${truncation.bodyBytes} byte${truncation.bodyBytes === 1 ? "" : "s"}${declared}, and it ends inside ${truncation.where}. ` +
    `Send the whole ${requestName}: a proxy or load balancer in front of the collector may cut bodies at its own size limit (raise it, or send smaller batches), or the client stopped sending before the end${wrongLength}`
  );
}

class TruncationWalk {
  private position = 0;
  /** The top-level field being read, with where its content was declared to end; null until its length is read. */
  topLevel: { path: string; end: number } | null = null;

  constructor(private readonly bytes: Uint8Array) {}

  /** Reads a message of `type` in [start, end); `end` may lie past the body, which is what a cut body looks like. The request's own end is the body's. */
  message(type: protobuf.Type, start: number, end: number, path: string, depth: number): void {
    if (depth > MAXIMUM_DEPTH) throw new NotTruncation();
    this.position = start;
    const occurrences = new Map<number, number>();
    while (this.position < end && (depth > 0 || this.position < this.bytes.length)) {
      if (depth === 0) this.topLevel = null;
      const tag = this.varint(end, path === "" ? "the tag of a top-level field" : `${path}, at the tag of its next field`);
      const number = Math.floor(tag / 8);
      if (number === 0) throw new NotTruncation();
      const field = type.fieldsById[number];
      const index = occurrences.get(number) ?? 0;
      occurrences.set(number, index + 1);
      const name = field === undefined ? `field ${number}` : field.name;
      const fieldPath = `${path === "" ? "" : `${path}.`}${name}${field?.repeated ? `[${index}]` : ""}`;
      this.field(tag % 8, field, fieldPath, end, depth);
    }
    if (this.position > end) throw new NotTruncation();
  }

  private field(wireType: number, field: protobuf.Field | undefined, path: string, end: number, depth: number): void {
    switch (wireType) {
      case VARINT:
        this.varint(end, path);
        return;
      case FIXED64:
        this.fixed(8, end, path);
        return;
      case FIXED32:
        this.fixed(4, end, path);
        return;
      case LENGTH_DELIMITED: {
        const length = this.varint(end, `the length of ${path}`);
        const contentEnd = this.position + length;
        // Past the enclosing message's own end is a wrong length, not a cut body.
        if (contentEnd > end) throw new NotTruncation();
        if (depth === 0) this.topLevel = { path, end: contentEnd };
        const resolved = field?.resolve().resolvedType;
        if (resolved !== undefined && resolved !== null && "fieldsById" in resolved && !field!.map) this.message(resolved, this.position, contentEnd, path, depth + 1);
        else if (contentEnd > this.bytes.length) throw new BodyEnds(path);
        this.position = contentEnd;
        return;
      }
      default:
        throw new NotTruncation();
    }
  }

  private fixed(size: number, end: number, path: string): void {
    if (this.position + size > end) throw new NotTruncation();
    if (this.position + size > this.bytes.length) throw new BodyEnds(path);
    this.position += size;
  }

  private varint(end: number, path: string): number {
    let value = 0;
    let scale = 1;
    for (let index = 0; index < 10; index += 1) {
      if (this.position >= this.bytes.length) throw new BodyEnds(path);
      if (this.position >= end) throw new NotTruncation();
      const byte = this.bytes[this.position++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    throw new NotTruncation();
  }
}

/** Why protobufjs refused `body` read as `type` (`error`, what it threw): where the body was cut when it was, else protobufjs's own reason. */
export function protobufFailureReason(type: protobuf.Type, body: Uint8Array, error: unknown, requestName: string): string {
  const truncation = truncationOf(type, body);
  if (truncation !== null) return describeTruncation(truncation, requestName);
  return error instanceof Error ? error.message : String(error);
}
