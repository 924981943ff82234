/**
 * Which packed chunk the answer follows: the one sharing the largest share of
 * the answer's token bigrams (context-text-overlap.ts), when that chunk holds
 * no gold evidence in the prompt and follows the answer more than every chunk
 * that does. A text-overlap reading (heuristic): CONTEXT_NOISY reads it as a
 * buried evidence, RERANK_BAD as a rerank that put the distractor above it.
 */
import type { PackedChunk } from "../evidence/packed-chunks.js";
import { evidenceCoverageOptions } from "../evidence/evidence-coverage-options.js";
import { overlapShare } from "../rules/context-text-overlap.js";
import { packedChunksHoldingEvidence } from "../rules/packed-evidence.js";
import type { AttributionFacts } from "./attribution-facts.js";

export interface FollowedDistractor {
  distractor: PackedChunk;
  /** Share of the answer's bigrams the distractor holds. */
  share: number;
  /** The evidence chunk the answer follows most, or null when no packed chunk with text holds evidence. */
  evidence: PackedChunk | null;
  evidenceShare: number;
}

export function followedDistractor(facts: AttributionFacts): FollowedDistractor | null {
  if (facts.packed === null) return null;
  const answer = facts.caseResult.output ?? "";
  const holding = packedChunksHoldingEvidence(
    facts.packed,
    facts.gold.map((trail) => trail.evidence),
    facts.caseResult.rag_observation.context,
    evidenceCoverageOptions(facts.evalCase),
  );
  const scored = facts.packed
    .map((chunk, index) => ({ chunk, share: chunk.text === null ? 0 : (overlapShare(answer, chunk.text) ?? 0), evidence: holding[index]!, hasText: chunk.text !== null }))
    .filter((entry) => entry.hasText);
  const bestDistractor = scored.filter((entry) => !entry.evidence).sort((first, second) => second.share - first.share)[0];
  const bestEvidence = scored.filter((entry) => entry.evidence).sort((first, second) => second.share - first.share)[0];
  if (bestDistractor === undefined || bestDistractor.share === 0 || (bestEvidence !== undefined && bestEvidence.share >= bestDistractor.share)) return null;
  return { distractor: bestDistractor.chunk, share: bestDistractor.share, evidence: bestEvidence?.chunk ?? null, evidenceShare: bestEvidence?.share ?? 0 };
}
