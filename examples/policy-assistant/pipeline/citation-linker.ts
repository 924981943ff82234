/**
 * Citation: turn the generator's [n] markers into chunk ids.
 *
 * Designed flaw (examples/README.md): the prompt numbers sentences, but this
 * step reads [n] as "the n-th packed chunk". Where every chunk is one sentence
 * the two agree; after a multi-sentence chunk every later sentence resolves to
 * the wrong chunk (or to none, past the last chunk), so an answer taken from
 * chunk X can cite chunk Y. Memory answers are marked [1] and so cite the
 * top-ranked packed chunk, which does not support them.
 */
import type { AssembledContext } from "./context-assembler.js";

export function linkCitations(markers: readonly number[], context: AssembledContext): string[] {
  const chunkIds: string[] = [];
  for (const marker of markers) {
    const chunkId = context.chunks[marker - 1]?.chunk.chunk_id;
    if (chunkId !== undefined && !chunkIds.includes(chunkId)) chunkIds.push(chunkId);
  }
  return chunkIds;
}
