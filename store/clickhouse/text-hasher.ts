/**
 * Feeds texts to a hash as one UTF-8 stream through a reused buffer: the
 * digest is that of the texts' concatenation, without making it. Joining a
 * case's payloads into one text for the hash flattened ~40 KB a case (a copy
 * on the heap, then another in UTF-8), and one update per text converted each
 * apart, which cost more than the hashing (tab-separated-batch.ts prepareBatch).
 */
import type { Hash } from "node:crypto";

const encoder = new TextEncoder();

export class TextHasher {
  private readonly buffer: Buffer;
  private used = 0;

  constructor(
    private readonly hash: Hash,
    bufferBytes = 256 * 1024,
  ) {
    // At least one character of four bytes fits, so every call makes progress.
    this.buffer = Buffer.allocUnsafe(Math.max(bufferBytes, 4));
  }

  add(text: string): void {
    let rest = text;
    for (;;) {
      const { read, written } = encoder.encodeInto(rest, this.buffer.subarray(this.used));
      this.used += written;
      if (read === rest.length) return;
      // Full (encodeInto writes whole characters only): hand the bytes over and go on with the rest.
      this.flush();
      rest = rest.slice(read);
    }
  }

  /** Hands what is buffered to the hash; call before its digest. */
  flush(): void {
    if (this.used > 0) this.hash.update(this.buffer.subarray(0, this.used));
    this.used = 0;
  }
}
