/**
 * Optional second stage: re-order the retrieved chunks by their support score
 * (pipeline/support-score.ts), the share of the question's weighted terms each
 * chunk contains. Unlike BM25 it does not reward short chunks, so it can lift
 * a longer chunk that covers the question better. Ties keep the retrieval order.
 *
 * Off in the dataset's configuration (createPolicyAssistant `rerank: false`).
 * Like the retriever, it ignores effective dates and ACLs.
 */
import type { LexicalIndex, RankedChunk } from "./lexical-retriever.js";
import { supportScore } from "./support-score.js";

export const RERANKER_NAME = "support-reranker-v1";

export function rerankBySupport(index: LexicalIndex, question: string, candidates: readonly RankedChunk[]): RankedChunk[] {
  return candidates
    .map((candidate) => ({ candidate, support: supportScore(index, question, candidate.chunk.text) }))
    .sort((left, right) => right.support - left.support || left.candidate.rank - right.candidate.rank)
    .map((entry, position) => ({ rank: position + 1, score: entry.support, chunk: entry.candidate.chunk }));
}
