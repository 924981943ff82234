/**
 * A body's chunks joined into one Uint8Array with a buffer of its own, so it
 * can be transferred to a decode thread (Buffer.concat may return a slice of
 * Node's shared pool for a small body, which cannot be transferred).
 */
export function joinChunks(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const joined = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.length;
  }
  return joined;
}
