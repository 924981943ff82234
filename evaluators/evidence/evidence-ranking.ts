/**
 * Turns a ranking of chunks into a ranking of gold evidence, so the
 * trec_eval-compatible ranking metrics measure evidence, not chunks.
 *
 * A piece of gold evidence is found at the first rank where the chunks ranked
 * so far cover enough of it together (evidence-set-coverage.ts: the union of
 * the characters each covers, ids first as in match-evidence.ts), whichever
 * other evidence those chunks hold: `foundAtRank`. recall@k is "gold evidence
 * found in the top k / all gold evidence", as the seed defines it, read from
 * it (`recallAtCutoff`): a chunk holding two pieces finds both.
 *
 * The ranking the trec_eval-compatible metrics read has one entry per rank, so
 * there a chunk stands for one evidence at most: of those found at its rank
 * that it covers some of itself and that no higher chunk stands for, the
 * highest-graded (then the first in gold order). A chunk standing for nothing new stands for itself and is not
 * relevant — also a later fragment of a piece already found (a chunk that
 * held it whole, then one sharing a phrase with it): it adds nothing the
 * reader did not have. So a piece found twice counts once, and the judgments
 * hold one entry per gold evidence with its graded relevance (default 3, seed
 * 004 §三.4). MRR, precision and hit read the ranks; MAP and NDCG read the
 * entries, where the second piece a chunk holds has none: they understate a
 * ranking whose chunk holds several pieces, never overstate it.
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
  const standsFor = gold.map(() => false);
  const items: RankedItem[] = chunks.map((chunk, position) => {
    const covers = gold.map((evidence) => coverOfChunk(chunk, evidence));
    covers.forEach((cover, index) => {
      const added = unions[index]!.add(cover);
      if (added > 0 && foundAtRank[index] === null) contributors[index]!.push(position + 1);
    });
    // Every piece the chunks so far cover enough is found here, with this chunk adding to it.
    const foundHere: number[] = [];
    for (let index = 0; index < gold.length; index += 1) {
      const cover = covers[index]!;
      if (foundAtRank[index] !== null || cover.covered === null || cover.share === 0) continue;
      if (!unions[index]!.reaches(options)) continue;
      foundAtRank[index] = position + 1;
      rules[index] = cover.rule;
      if (!contributors[index]!.includes(position + 1)) contributors[index]!.push(position + 1);
      foundHere.push(index);
    }
    // The highest-graded piece it completes: a grade-0 piece ("not related") standing for the chunk would hide a
    // relevant one it also holds from hit, MRR and precision.
    const stood = foundHere.filter((index) => !standsFor[index]).sort((first, second) => gold[second]!.relevance - gold[first]!.relevance || first - second)[0];
    if (stood !== undefined) {
      standsFor[stood] = true;
      return { id: evidenceKey(stood) };
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

/**
 * recall@k read from where each piece was found: gold evidence with a grade above 0 found in the top k / all such
 * evidence (trec_eval's num_rel counts the judgments above 0 as well); 0 when there is none.
 */
export function recallAtCutoff(ranking: Pick<EvidenceRanking, "foundAtRank">, gold: readonly GoldEvidence[], k: number): number {
  const relevant = gold.map((evidence, index) => ({ relevance: evidence.relevance, rank: ranking.foundAtRank[index] ?? null })).filter((entry) => entry.relevance > 0);
  if (relevant.length === 0) return 0;
  return relevant.filter((entry) => entry.rank !== null && entry.rank <= k).length / relevant.length;
}
