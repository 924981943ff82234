/**
 * First-stage retrieval: BM25 over the terms of pipeline/text-terms.ts.
 *
 * Deterministic by construction: scores are rounded to two decimals, ties are
 * broken by chunk_id, only chunks that share at least one term are returned.
 *
 * Known flaw, kept on purpose (examples/README.md "Designed flaws"): the
 * retriever does not look at effective dates or ACLs. An expired version of a
 * policy, or a chunk only finance staff may read, is ranked like any other.
 * Catching that is the evaluators' job.
 */
import type { PolicyChunk } from "../corpus/policy-corpus.js";
import { distinctTerms, lexicalTerms } from "./text-terms.js";

/** BM25 parameters, the usual defaults (Robertson & Zaragoza 2009). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

export interface RankedChunk {
  /** 1-based. */
  rank: number;
  score: number;
  chunk: PolicyChunk;
}

export interface LexicalIndex {
  /** BM25 inverse document frequency of a term (highest for a term no chunk has). */
  inverseDocumentFrequency(term: string): number;
  /** The topK chunks for the query, best first. */
  search(query: string, topK: number): RankedChunk[];
}

interface IndexedChunk {
  chunk: PolicyChunk;
  termFrequencies: Map<string, number>;
  length: number;
}

export function roundScore(value: number): number {
  return Math.round(value * 100) / 100;
}

export function buildLexicalIndex(chunks: readonly PolicyChunk[]): LexicalIndex {
  const indexed: IndexedChunk[] = chunks.map((chunk) => {
    const terms = lexicalTerms(chunk.text);
    const termFrequencies = new Map<string, number>();
    for (const term of terms) termFrequencies.set(term, (termFrequencies.get(term) ?? 0) + 1);
    return { chunk, termFrequencies, length: terms.length };
  });
  const documentFrequencies = new Map<string, number>();
  for (const entry of indexed) {
    for (const term of entry.termFrequencies.keys()) documentFrequencies.set(term, (documentFrequencies.get(term) ?? 0) + 1);
  }
  const chunkCount = indexed.length;
  const averageLength = indexed.reduce((sum, entry) => sum + entry.length, 0) / Math.max(chunkCount, 1);

  function inverseDocumentFrequency(term: string): number {
    const frequency = documentFrequencies.get(term) ?? 0;
    // The BM25 idf with +1 inside the log (Lucene's), which never goes negative.
    return Math.log(1 + (chunkCount - frequency + 0.5) / (frequency + 0.5));
  }

  function score(queryTerms: readonly string[], entry: IndexedChunk): number {
    let total = 0;
    for (const term of queryTerms) {
      const frequency = entry.termFrequencies.get(term) ?? 0;
      if (frequency === 0) continue;
      const lengthNorm = averageLength === 0 ? 1 : 1 - BM25_B + (BM25_B * entry.length) / averageLength;
      total += (inverseDocumentFrequency(term) * frequency * (BM25_K1 + 1)) / (frequency + BM25_K1 * lengthNorm);
    }
    return total;
  }

  function search(query: string, topK: number): RankedChunk[] {
    const queryTerms = distinctTerms(query);
    return indexed
      .map((entry) => ({ chunk: entry.chunk, score: roundScore(score(queryTerms, entry)) }))
      .filter((candidate) => candidate.score > 0)
      .sort((left, right) => right.score - left.score || compareIds(left.chunk.chunk_id, right.chunk.chunk_id))
      .slice(0, Math.max(topK, 0))
      .map((candidate, position) => ({ rank: position + 1, score: candidate.score, chunk: candidate.chunk }));
  }

  return { inverseDocumentFrequency, search };
}

/** Code-point order, independent of the locale. */
export function compareIds(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
