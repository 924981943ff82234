/**
 * Turns a ranking of chunks into a ranking of gold evidence, so the
 * trec_eval-compatible ranking metrics measure evidence, not chunks.
 *
 * A piece of gold evidence is found at the first rank where the chunks ranked
 * so far cover enough of it together (evidence-set-coverage.ts: the union of
 * the characters each covers, ids first as in match-evidence.ts). The chunk at
 * that rank stands for the evidence. A chunk stands for one evidence at most:
 * the first (in gold order) that is covered enough at its rank, that it
 * covers some of itself, and that no higher chunk stands for — so a chunk
 * that completes two pieces at once stands for the first, and the second is
 * credited to the next chunk covering some of it. A chunk standing for
 * nothing new stands for itself and is not relevant. So a piece of evidence
 * found twice counts once (recall cannot exceed 1), and the judgments hold one
 * entry per gold evidence with its graded relevance (default 3, seed 004
 * §三.4): recall@k is "gold evidence in the top k / all gold evidence", as the
 * seed defines it, MRR and NDCG use the rank at which the evidence became
 * covered enough.
 */
import type { RetrievedChunk } from "../../contracts/case-result.js";
import type { GoldEvidence } from "../../contracts/eval-case.js";
import type { RankedItem, RelevanceJudgments } from "../retrieval/relevance-judgments.js";
import { DEFAULT_EVIDENCE_COVERAGE_OPTIONS, type EvidenceCoverageOptions } from "./evidence-coverage-options.js";
import { coverEvidence, CoverageUnion } from "./evidence-set-coverage.js";
import { coverOfChunk, type MatchRule } from "./match-evidence.js";

export interface EvidenceRanking {
  items: RankedItem[];
  judgments: RelevanceJudgments;
  /** For each gold evidence (by index), the 1-based rank of the chunk that stands for it, or null. */
  foundAtRank: (number | null)[];
  /** How the chunk standing for each found evidence matched it. */
  rules: (MatchRule | null)[];
  /** For each gold evidence, the 1-based ranks of the chunks that added to its coverage up to the rank where it was found (all ranks when never found). */
  contributors: number[][];
  /** For each gold evidence, the share the whole ranking covers (0 to 1). */
  coverage: number[];
}

const evidenceKey = (index: number) => `gold#${index}`;

export function rankEvidence(chunks: readonly RetrievedChunk[], gold: readonly GoldEvidence[], options: EvidenceCoverageOptions = DEFAULT_EVIDENCE_COVERAGE_OPTIONS): EvidenceRanking {
  const foundAtRank: (number | null)[] = gold.map(() => null);
  const rules: (MatchRule | null)[] = gold.map(() => null);
  const contributors: number[][] = gold.map(() => []);
  const unions = gold.map(() => new CoverageUnion());
  const items: RankedItem[] = chunks.map((chunk, position) => {
    const covers = gold.map((evidence) => coverOfChunk(chunk, evidence));
    covers.forEach((cover, index) => {
      const added = unions[index]!.add(cover);
      if (added > 0 && foundAtRank[index] === null) contributors[index]!.push(position + 1);
    });
    for (let index = 0; index < gold.length; index += 1) {
      const cover = covers[index]!;
      if (foundAtRank[index] !== null || cover.covered === null || cover.share === 0) continue;
      if (!unions[index]!.reaches(options)) continue;
      foundAtRank[index] = position + 1;
      rules[index] = cover.rule;
      if (!contributors[index]!.includes(position + 1)) contributors[index]!.push(position + 1);
      return { id: evidenceKey(index) };
    }
    // Keyed by rank: a chunk standing for no evidence counts for nothing, and
    // chunks without an id (empty chunk_id) must not look like one repeated chunk.
    return { id: `rank:${position + 1}` };
  });
  const judgments = new Map<string, number>();
  gold.forEach((evidence, index) => judgments.set(evidenceKey(index), evidence.relevance));
  return { items, judgments, foundAtRank, rules, contributors, coverage: unions.map((union) => union.share) };
}

/** 1-based rank at which the chunks so far first cover enough of the evidence, whichever evidence each stands for; null when never. */
export function firstCoveredRank(chunks: readonly RetrievedChunk[] | null, evidence: GoldEvidence, options: EvidenceCoverageOptions = DEFAULT_EVIDENCE_COVERAGE_OPTIONS): number | null {
  return chunks === null ? null : coverEvidence(chunks, evidence, options).coveredAt;
}
