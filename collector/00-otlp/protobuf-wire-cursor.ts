/**
 * The wire rules the receiver's byte readers of an OTLP protobuf request hold
 * to (split-protobuf-by-trace-id.ts, decode-protobuf-span-records.ts): tags,
 * lengths, varints, skipped fields and UTF-8 text. Wherever protobufjs would
 * refuse what they read, they decline, and the decoding path decides; these
 * rules are kept in one place so the two readers cannot drift apart.
 */
import { isUtf8 } from "node:buffer";

export const VARINT = 0;
export const FIXED64 = 1;
export const LENGTH_DELIMITED = 2;
export const FIXED32 = 5;

/** Texts up to this many bytes are checked for ASCII in place before isUtf8 is asked. */
const SHORT_TEXT = 64;

/** Thrown inside a read when the decoding path must decide; caught by `unlessDeclined`. */
class Decline extends Error {}
export const decline = new Decline();

/** What `read` returns, or null when it declined. */
export function unlessDeclined<T>(read: () => T): T | null {
  try {
    return read();
  } catch (error) {
    if (error === decline) return null;
    throw error;
  }
}

/** A position in a request's bytes and the wire type of the tag read last. */
export class ProtobufWireCursor {
  protected readonly bytes: Buffer;
  protected position = 0;
  /** The wire type of the tag `tag` read last (a field, not a returned pair: a pair per field was garbage). */
  protected wireType = 0;

  constructor(body: Uint8Array) {
    this.bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  }

  /** The next tag's field number, its wire type in `wireType`; declines on field 0 and past 32 bits. */
  protected tag(end: number): number {
    // protobufjs refuses a tag past 32 bits or five bytes.
    const tag = this.varint(end, 5);
    if (tag > 0xffffffff) throw decline;
    const field = Math.floor(tag / 8);
    if (field === 0) throw decline;
    this.wireType = tag % 8;
    return field;
  }

  /** A length-delimited field's content: its end (the position is at its start); declines on another wire type. */
  protected lengthDelimited(wireType: number, end: number): number {
    if (wireType !== LENGTH_DELIMITED) throw decline;
    // protobufjs refuses a length past 31 bits or five bytes.
    const length = this.varint(end, 5);
    if (length >= 2 ** 31) throw decline;
    const to = this.position + length;
    if (to > end) throw decline;
    return to;
  }

  /** A varint at the position, moving past it; declines past `end` or beyond `maxBytes` bytes. Exact up to 2^53. */
  protected varint(end: number, maxBytes: number): number {
    const bytes = this.bytes;
    let value = 0;
    let scale = 1;
    for (let index = 0; index < maxBytes; index += 1) {
      if (this.position >= end) throw decline;
      const byte = bytes[this.position++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    throw decline;
  }

  /** Moves past a field's payload, as protobufjs skips an unknown field; declines on groups and past `end`. */
  protected skip(wireType: number, end: number): void {
    switch (wireType) {
      case VARINT:
        this.varint(end, 10);
        return;
      case FIXED64:
        this.position += 8;
        break;
      case LENGTH_DELIMITED:
        this.position = this.lengthDelimited(wireType, end);
        return;
      case FIXED32:
        this.position += 4;
        break;
      default:
        throw decline;
    }
    if (this.position > end) throw decline;
  }

  /**
   * Declines unless [start, end) is UTF-8; says whether it is ASCII. A short text (most keys and many values) is
   * checked for ASCII in place first: a view per string for isUtf8 cost more than the check itself, mostly in
   * garbage collection. A longer one is only checked, and reported as not ASCII.
   */
  protected checkText(start: number, end: number): boolean {
    if (end - start <= SHORT_TEXT) {
      const bytes = this.bytes;
      let index = start;
      while (index < end && bytes[index]! < 0x80) index += 1;
      if (index === end) return true;
    }
    if (!isUtf8(this.bytes.subarray(start, end))) throw decline;
    return false;
  }
}
