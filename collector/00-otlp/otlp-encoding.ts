/**
 * The two OTLP encodings (shared/reference/interop.md §4, §5), and how to tell
 * them apart when nothing says which one a body is in (a Kafka message has no
 * content type: the OpenTelemetry Collector's exporter writes no headers).
 */
export type OtlpEncoding = "protobuf" | "json";

const openBrace = 0x7b;
const lineFeed = 0x0a;

function isJsonWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === lineFeed || byte === 0x0d;
}

/**
 * OTLP/JSON is an object, so it starts with `{` after optional whitespace;
 * anything else is protobuf.
 *
 * One ambiguity needs care: a protobuf ExportTraceServiceRequest starts with
 * the tag of field 1 (0x0a, which is also a JSON line feed) followed by a
 * length that may well be 0x7b (`{`). So a body that looks like JSON but is a
 * well-formed sequence of top-level `resource_spans` records ending exactly at
 * its last byte is protobuf: a JSON text practically never is one.
 */
export function detectEncoding(bytes: Uint8Array): OtlpEncoding {
  let index = 0;
  // A UTF-8 byte order mark is not JSON, but some writers put one in front.
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) index = 3;
  while (index < bytes.length && isJsonWhitespace(bytes[index]!)) index += 1;
  if (bytes[index] !== openBrace) return "protobuf";
  return isResourceSpansSequence(bytes) ? "protobuf" : "json";
}

/** True when the bytes are one or more `field 1, length-delimited` records and nothing else. */
function isResourceSpansSequence(bytes: Uint8Array): boolean {
  let position = 0;
  while (position < bytes.length) {
    if (bytes[position] !== lineFeed) return false;
    position += 1;
    let length = 0;
    let shift = 0;
    for (;;) {
      if (position >= bytes.length || shift > 28) return false;
      const byte = bytes[position]!;
      position += 1;
      length += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if ((byte & 0x80) === 0) break;
    }
    position += length;
  }
  return position === bytes.length && bytes.length > 0;
}
