/**
 * The bytes of one TabSeparated insert body (tab-separated-batch.ts builds
 * the lines): UTF-8, each line ended by a line feed.
 */
/** Bytes of one chunk of a body: most batches fit in a few; a line longer than a chunk continues in the next. */
export const CHUNK_BYTES = 256 * 1024;

const encoder = new TextEncoder();

const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;

/** A JSON array given as its items' UTF-8 (each a JSON document), written into a field without being joined first. */
export interface JsonArrayItems {
  items: readonly Uint8Array[];
}

/**
 * A body's lines encoded to UTF-8 as they come, straight into chunks of
 * bytes, then the chunks into the body. No text of the whole body (or of a
 * piece of it) is ever made: joining lines into text, then encoding that
 * text, made two copies of every byte on the JavaScript heap, and holding
 * every line of a large batch until one join kept hundreds of thousands of
 * concatenation trees alive through every collection. The body is bytes,
 * outside the JavaScript heap: the embedded engine takes a Buffer as it is
 * (clickhouse-connection.ts embeddedInsert). Each line ends with a line feed.
 */
export class TabSeparatedBody {
  lines = 0;
  private readonly chunks: Buffer[] = [];
  private chunk: Buffer = Buffer.allocUnsafe(0);
  private used = 0;

  /** `chunkBytes`: the size of a chunk (tests make it small, to put every boundary under every byte of a line). */
  constructor(private readonly chunkBytes = CHUNK_BYTES) {}

  add(line: string): void {
    this.lines += 1;
    this.write(line);
    this.endLine();
  }

  /**
   * A line of `head`, a JSON document (made by JSON.stringify; as text, or
   * as an array's items already in UTF-8) as a field, and `tail`. The
   * document is most of a line's bytes: it is encoded (or copied) as it is,
   * not copied into the line's text first (which encoding would have
   * flattened), and escaped as a field in its bytes (escapeBackslashes).
   */
  addWithJson(head: string, json: string | JsonArrayItems, tail: string): void {
    this.lines += 1;
    this.write(head);
    this.writeJsonField(json);
    this.write(tail);
    this.endLine();
  }

  bytes(): Buffer {
    this.seal();
    if (this.chunks.length === 1) return this.chunks[0]!;
    return Buffer.concat(this.chunks);
  }

  private write(text: string): void {
    let rest = text;
    for (;;) {
      const { read, written } = encoder.encodeInto(rest, this.chunk.subarray(this.used));
      this.used += written;
      if (read === rest.length) return;
      rest = rest.slice(read);
      this.nextChunk(rest.length);
    }
  }

  private endLine(): void {
    if (this.used === this.chunk.length) this.nextChunk(1);
    this.chunk[this.used] = 0x0a;
    this.used += 1;
  }

  /**
   * JSON.stringify writes every control character as an escape, so of a
   * field's escapes only the backslash can occur in the document: each is
   * doubled in the encoded bytes (a backslash byte is never part of a
   * multi-byte UTF-8 character). The document is kept in one chunk for that.
   */
  private writeJsonField(json: string | JsonArrayItems): void {
    const written = typeof json === "string" ? this.placeText(json) : this.placeArray(json.items);
    const encoded = this.chunk.subarray(this.used, this.used + written);
    const backslashes: number[] = [];
    for (let at = encoded.indexOf(0x5c); at !== -1; at = encoded.indexOf(0x5c, at + 1)) backslashes.push(at);
    if (backslashes.length === 0) {
      this.used += written;
      return;
    }
    const escapedLength = written + backslashes.length;
    if (escapedLength <= this.chunk.length - this.used) {
      escapeBackslashes(encoded, backslashes, this.chunk, this.used);
      this.used += escapedLength;
      return;
    }
    // No room to escape in place: into a new chunk (the document's bytes stay readable in the old one, which is sealed before them).
    const source = this.chunk;
    const sourceStart = this.used;
    this.nextChunk(escapedLength);
    escapeBackslashes(source.subarray(sourceStart, sourceStart + written), backslashes, this.chunk, this.used);
    this.used += escapedLength;
  }

  /** The document's UTF-8 at `used` in the chunk (not yet counted in `used`); how many bytes it is. */
  private placeText(json: string): number {
    if (json.length > this.chunk.length - this.used) this.nextChunk(json.length);
    const { read, written } = encoder.encodeInto(json, this.chunk.subarray(this.used));
    if (read === json.length) return written;
    // Characters of several bytes: a chunk that surely holds the document (what was written past `used` is overwritten).
    this.nextChunk(json.length * 3);
    return encoder.encodeInto(json, this.chunk.subarray(this.used)).written;
  }

  /** As placeText, for a JSON array of documents in UTF-8: "[", the items with commas between them, "]". */
  private placeArray(items: readonly Uint8Array[]): number {
    let bytes = items.length === 0 ? 2 : items.length + 1;
    for (const item of items) bytes += item.byteLength;
    if (bytes > this.chunk.length - this.used) this.nextChunk(bytes);
    let at = this.used;
    this.chunk[at++] = OPEN_BRACKET;
    items.forEach((item, index) => {
      if (index > 0) this.chunk[at++] = COMMA;
      this.chunk.set(item, at);
      at += item.byteLength;
    });
    this.chunk[at] = CLOSE_BRACKET;
    return bytes;
  }

  /** A new chunk, large enough for `bytes` more bytes (or characters of one-byte text); the full one is kept. */
  private nextChunk(bytes: number): void {
    this.seal();
    this.chunk = Buffer.allocUnsafe(Math.max(this.chunkBytes, bytes + 4));
    this.used = 0;
  }

  private seal(): void {
    if (this.used > 0) this.chunks.push(this.chunk.subarray(0, this.used));
    this.chunk = this.chunk.subarray(this.used);
    this.used = 0;
  }
}

/**
 * `source` with each backslash (at the offsets `backslashes`, ascending)
 * doubled, written to `target` from `targetStart`. From the end backwards,
 * so that `target` may be the same memory as `source` (escaping in place):
 * every byte is moved once, by Buffer.copy, which allows overlap.
 */
function escapeBackslashes(source: Buffer, backslashes: readonly number[], target: Buffer, targetStart: number): void {
  let sourceEnd = source.length;
  let targetEnd = targetStart + source.length + backslashes.length;
  for (let index = backslashes.length - 1; index >= 0; index -= 1) {
    const at = backslashes[index]!;
    const length = sourceEnd - (at + 1);
    targetEnd -= length;
    source.copy(target, targetEnd, at + 1, sourceEnd);
    targetEnd -= 2;
    target[targetEnd] = 0x5c;
    target[targetEnd + 1] = 0x5c;
    sourceEnd = at;
  }
  // The bytes before the first backslash: in place already when target is source.
  if (sourceEnd > 0) source.copy(target, targetStart, 0, sourceEnd);
}
