/**
 * When two retrieved chunks are the same chunk at different stages (the
 * retriever's list and the rerank's): the same id, else the same document and
 * text. A chunk with neither id nor text is only ever itself — it is returned
 * as its own key, so nothing matches it and no rank is guessed for it.
 * retrieval.permission and the trace page's before/after-rerank table both
 * match chunks by this rule, so the page shows the stages the evaluator names.
 */
import type { RetrievedChunk } from "../../contracts/case-result.js";

export function chunkIdentityOf(chunk: RetrievedChunk): string | RetrievedChunk {
  if (chunk.chunk_id !== null) return `id\u0000${chunk.chunk_id}`;
  return chunk.text === null ? chunk : `text\u0000${chunk.document_id ?? ""}\u0000${chunk.text}`;
}
