/**
 * Trace and span ids: bytes on the protobuf wire, hex strings in OTLP/JSON
 * (shared/reference/interop.md §5) and everywhere in the collector.
 */
export const traceIdByteLength = 16;
export const spanIdByteLength = 8;

const hexPattern = /^[0-9a-fA-F]*$/;

export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Lower-case hex of exactly `byteLength` bytes, or null. OTLP/JSON ids are case-insensitive. */
export function normalizeHexId(text: string, byteLength: number): string | null {
  if (text.length !== byteLength * 2 || !hexPattern.test(text)) return null;
  return text.toLowerCase();
}

/** Bytes of a hex id that was already checked (`normalizeHexId`); the empty string gives no bytes. */
export function hexToBytes(hex: string): Uint8Array {
  const buffer = Buffer.from(hex, "hex");
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}
