/**
 * The chunks that were packed into the context, with what the trace knows of
 * each: a packed chunk id is looked up in the retrieved (and pre-rerank)
 * chunks for its document, section and text. A packed id the retrieval never
 * listed keeps only its id; a packed chunk without an id is never matched.
 */
import type { CaseResult, RetrievedChunk } from "../../contracts/case-result.js";

export interface PackedChunk extends RetrievedChunk {
  truncated: boolean;
}

export function chunkLookup(caseResult: CaseResult): Map<string, RetrievedChunk> {
  const lookup = new Map<string, RetrievedChunk>();
  const observation = caseResult.rag_observation;
  for (const chunk of [...(observation.retrieved_chunks ?? []), ...(observation.pre_rerank_chunks ?? [])]) {
    if (chunk.chunk_id !== null && !lookup.has(chunk.chunk_id)) lookup.set(chunk.chunk_id, chunk);
  }
  return lookup;
}

/** Null when the trace did not record which chunks were packed. */
export function packedChunks(caseResult: CaseResult): PackedChunk[] | null {
  const packed = caseResult.rag_observation.context_chunks;
  if (packed === null) return null;
  const lookup = chunkLookup(caseResult);
  return packed.map((entry) => {
    const known = entry.chunk_id === null ? undefined : lookup.get(entry.chunk_id);
    return {
      rank: known?.rank ?? entry.position,
      chunk_id: entry.chunk_id,
      text: known?.text ?? null,
      score: known?.score ?? null,
      document_id: known?.document_id ?? null,
      document_version: known?.document_version ?? null,
      section_id: known?.section_id ?? null,
      effective_from: known?.effective_from ?? null,
      effective_to: known?.effective_to ?? null,
      acl: known?.acl ?? null,
      tenant_id: known?.tenant_id ?? null,
      truncated: entry.truncated,
    };
  });
}
