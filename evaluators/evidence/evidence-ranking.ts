/**
 * Turns a ranking of chunks into a ranking of gold evidence, so the
 * trec_eval-compatible ranking metrics measure evidence, not chunks.
 *
 * Each retrieved chunk stands for the first gold evidence it matches that no
 * higher-ranked chunk already stands for (match-evidence.ts decides a match);
 * a chunk matching nothing new stands for itself and is not relevant. So a
 * piece of evidence found twice counts once (recall cannot exceed 1), and the
 * judgments hold one entry per gold evidence with its graded relevance
 * (default 3, seed 004 §三.4): recall@k is "gold evidence in the top k / all
 * gold evidence", as the seed defines it.
 */
import type { RetrievedChunk } from "../../contracts/case-result.js";
import type { GoldEvidence } from "../../contracts/eval-case.js";
import type { RankedItem, RelevanceJudgments } from "../retrieval/relevance-judgments.js";
import { matchEvidence, type MatchRule } from "./match-evidence.js";

export interface EvidenceRanking {
  items: RankedItem[];
  judgments: RelevanceJudgments;
  /** For each gold evidence (by index), the 1-based rank of the chunk that found it, or null. */
  foundAtRank: (number | null)[];
  /** How each found evidence was matched. */
  rules: (MatchRule | null)[];
}

const evidenceKey = (index: number) => `gold#${index}`;

export function rankEvidence(chunks: readonly RetrievedChunk[], gold: readonly GoldEvidence[]): EvidenceRanking {
  const foundAtRank: (number | null)[] = gold.map(() => null);
  const rules: (MatchRule | null)[] = gold.map(() => null);
  const items: RankedItem[] = chunks.map((chunk, position) => {
    for (let index = 0; index < gold.length; index += 1) {
      if (foundAtRank[index] !== null) continue;
      const match = matchEvidence(chunk, gold[index]!);
      if (match.matched) {
        foundAtRank[index] = position + 1;
        rules[index] = match.rule;
        return { id: evidenceKey(index) };
      }
    }
    // Keyed by rank: a chunk standing for no evidence counts for nothing, and
    // chunks without an id (empty chunk_id) must not look like one repeated chunk.
    return { id: `rank:${position + 1}` };
  });
  const judgments = new Map<string, number>();
  gold.forEach((evidence, index) => judgments.set(evidenceKey(index), evidence.relevance));
  return { items, judgments, foundAtRank, rules };
}
