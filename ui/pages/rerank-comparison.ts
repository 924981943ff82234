/**
 * The retriever's own list beside the rerank's, chunk by chunk: where each
 * chunk the retriever returned went (its rank after the rerank, or dropped),
 * and which chunks the rerank returned that the retriever's list does not
 * hold. The retrieval metrics read the rerank's list (retrieved_chunks); the
 * retriever's list is the Case Result's pre_rerank_chunks (the retrieve spans'
 * documents, else the rerank's input), so this is what the reranker did.
 *
 * A chunk is the same at both stages by the rule retrieval.permission uses
 * (evaluators/rules/chunk-identity.ts): its id, else its document and
 * text; a chunk with neither is never matched, so a rank is never guessed.
 */
import type { RetrievedChunk } from "../../contracts/case-result.js";
import type { RetrievalStage } from "../../evaluators/rules/retrieval-permission.js";
import { chunkIdentityOf } from "../../evaluators/rules/chunk-identity.js";

/**
 * The rerank's places shown in one row. A span's lists are the application's to fill: a retriever and a rerank that
 * each listed one chunk id 2,000 times made 2,000 rows of 2,000 places — a 97 MB page that held serve's one thread
 * (its receiver too) for 20 s and took 500 MB (test/security/trace-page-hostile-chunks.test.ts). The rest are counted.
 */
export const MAXIMUM_RANKS_SHOWN = 10;

export interface RerankRow {
  /** The chunk as the retriever listed it; as the rerank returned it for a chunk the retriever's list does not hold. */
  chunk: RetrievedChunk;
  /** The chunk's place in the retriever's list; null when the list does not hold it. */
  before: RetrievedChunk | null;
  /** The index of `before` in the retriever's list, or of `after[0]` in the rerank's for a chunk only the rerank returned. */
  index: number;
  /** Its places in the rerank's list (more than one when the rerank listed it twice); empty when the rerank dropped it. */
  after: RetrievedChunk[];
  /** Where it appeared, in retrieval.permission's words (STAGE_TEXT). */
  stage: Exclude<RetrievalStage, "retrieved">;
  /** False for a chunk with neither id nor text: nothing tells whether the other list holds it, so its rank there is not known. */
  matchable: boolean;
}

/**
 * One row per entry of the retriever's list, in its order, then one per chunk
 * only the rerank returned, in the rerank's order.
 */
export function compareRerank(before: readonly RetrievedChunk[], after: readonly RetrievedChunk[]): RerankRow[] {
  // Each identity's places, and where its first one is; rows share these arrays, never copy them.
  const afterByIdentity = new Map<string | RetrievedChunk, { chunks: RetrievedChunk[]; firstIndex: number }>();
  for (const [index, chunk] of after.entries()) {
    const key = chunkIdentityOf(chunk);
    const listed = afterByIdentity.get(key);
    if (listed === undefined) afterByIdentity.set(key, { chunks: [chunk], firstIndex: index });
    else listed.chunks.push(chunk);
  }
  const rows: RerankRow[] = before.map((chunk, index) => {
    const kept = afterByIdentity.get(chunkIdentityOf(chunk))?.chunks ?? [];
    return { chunk, before: chunk, index, after: kept, stage: kept.length === 0 ? "before_rerank_only" : "before_and_after_rerank", matchable: typeof chunkIdentityOf(chunk) === "string" };
  });
  const listedBefore = new Set(before.map(chunkIdentityOf));
  for (const [key, { chunks, firstIndex }] of afterByIdentity) {
    if (!listedBefore.has(key)) rows.push({ chunk: chunks[0]!, before: null, index: firstIndex, after: chunks, stage: "after_rerank_only", matchable: typeof key === "string" });
  }
  return rows;
}
