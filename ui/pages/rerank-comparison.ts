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

export interface RerankRow {
  /** The chunk as the retriever listed it; as the rerank returned it for a chunk the retriever's list does not hold. */
  chunk: RetrievedChunk;
  /** The chunk's place in the retriever's list; null when the list does not hold it. */
  before: RetrievedChunk | null;
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
  const afterByIdentity = new Map<string | RetrievedChunk, RetrievedChunk[]>();
  for (const chunk of after) {
    const key = chunkIdentityOf(chunk);
    afterByIdentity.set(key, [...(afterByIdentity.get(key) ?? []), chunk]);
  }
  const rows: RerankRow[] = before.map((chunk) => {
    const kept = afterByIdentity.get(chunkIdentityOf(chunk)) ?? [];
    return { chunk, before: chunk, after: kept, stage: kept.length === 0 ? "before_rerank_only" : "before_and_after_rerank", matchable: typeof chunkIdentityOf(chunk) === "string" };
  });
  const listedBefore = new Set(before.map(chunkIdentityOf));
  for (const [key, chunks] of afterByIdentity) {
    if (!listedBefore.has(key)) rows.push({ chunk: chunks[0]!, before: null, after: chunks, stage: "after_rerank_only", matchable: typeof key === "string" });
  }
  return rows;
}
