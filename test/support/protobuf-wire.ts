/**
 * Protobuf written by hand for the receiver's bound tests: requests of millions
 * of events or attributes, or bytes the encoder would never write, that the
 * collector's encoder cannot (or should not) make.
 */

/** A base-128 varint. */
export function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A length-delimited field: its tag, its length and its bytes. */
export function field(number: number, content: Buffer): Buffer {
  return Buffer.concat([varint(number * 8 + 2), varint(content.byteLength), content]);
}

/** A field of any wire type: its tag, then for a length-delimited one its length, then `content` as it is. */
export function fieldOfWireType(number: number, wireType: number, content: Buffer): Buffer {
  return wireType === 2 ? field(number, content) : Buffer.concat([varint(number * 8 + wireType), content]);
}
