/**
 * context_redundancy (seed 004 §四.4 上下文冗余度: the same content recalled by
 * several chunks, overlapping adjacent fragments): packed chunks that repeat an
 * earlier packed chunk / packed chunks, in prompt order.
 *
 * A packed chunk repeats an earlier one when
 * 1. it has the same chunk id (the pipeline packed it twice), or
 * 2. its normalised text (compactText) is contained in the earlier chunk's, or
 * 3. at least REDUNDANT_OVERLAP of its token bigrams are in the earlier chunk
 *    (overlapShare, context-text-overlap.ts) — sliding-window neighbours and
 *    near-duplicates across documents.
 * The first of two copies is not redundant; the second is. A chunk whose text
 * the trace did not record is judged by its id only. Lower is better;
 * informational per case.
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { packedChunks, type PackedChunk } from "../evidence/packed-chunks.js";
import { applicable, notApplicable } from "../metric-value.js";
import { compactText } from "../text/normalize-text.js";
import { bigramCountsOf, overlapShareOfCounts, type BigramCounts } from "./context-text-overlap.js";
import { chunkLabel } from "../../contracts/case-result.js";
import { metricKeys } from "../metric-keys.js";

export const REDUNDANT_OVERLAP = 0.8;

const metrics: MetricDescriptor[] = [
  { name: "context_redundancy", description: "packed chunks repeating an earlier packed chunk (same id, contained text, or >= 0.8 bigram overlap) / packed chunks", range: [0, 1], direction: "lower_is_better", defaultThreshold: null },
];

export interface Repetition {
  chunkId: string;
  repeats: string;
  how: "same_id" | "contained" | "overlap";
}

export function findRepetitions(packed: readonly PackedChunk[]): Repetition[] {
  const repetitions: Repetition[] = [];
  const compact = packed.map((chunk) => (chunk.text === null ? "" : compactText(chunk.text)));
  // Each chunk's bigram counts once, not once per pair (overlapShare would tokenise and count both texts of every pair).
  const bigrams = bigramCountsOf(packed.map((chunk) => chunk.text));
  packed.forEach((chunk, index) => {
    for (let earlier = 0; earlier < index; earlier += 1) {
      const previous = packed[earlier]!;
      const how = previous.chunk_id !== null && previous.chunk_id === chunk.chunk_id ? "same_id" : compact[index] !== "" && compact[earlier]!.includes(compact[index]!) ? "contained" : overlaps(bigrams[index]!, bigrams[earlier]!) ? "overlap" : null;
      if (how !== null) {
        repetitions.push({ chunkId: chunkLabel(chunk), repeats: chunkLabel(previous), how });
        return;
      }
    }
  });
  return repetitions;
}

/**
 * overlapShare(chunk text, earlier text) >= REDUNDANT_OVERLAP (context-text-overlap.ts), from the two texts' bigram
 * counts (null: no text recorded; a text without a token overlaps nothing). An earlier text with fewer bigrams than
 * the share needs cannot hold it, so the counts are not compared.
 */
function overlaps(chunk: BigramCounts | null, earlier: BigramCounts | null): boolean {
  if (chunk === null || earlier === null || chunk.total === 0) return false;
  // A quotient, like the share itself, so that the shortcut and the share cannot round differently at the bound.
  if (earlier.total / chunk.total < REDUNDANT_OVERLAP) return false;
  return (overlapShareOfCounts(chunk, earlier) ?? 0) >= REDUNDANT_OVERLAP;
}

/** The metrics this evaluator produces (context layer). */
export const contextRedundancyMetrics = metricKeys(["context_redundancy"]);

export const contextRedundancyEvaluator: Evaluator = {
  id: "context.redundancy",
  version: "1",
  layer: "context",
  description: "Share of packed chunks that repeat an earlier packed chunk",
  requires: [],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult }) {
    const packed = packedChunks(caseResult);
    const missing = packed === null ? "the trace did not record which chunks were packed" : packed.length === 0 ? "the context is empty" : null;
    if (missing !== null || packed === null) return { values: { context_redundancy: notApplicable(missing ?? "") }, reason: `not applicable: ${missing}`, evidence: [] };
    const repetitions = findRepetitions(packed);
    const withoutText = packed.filter((chunk) => chunk.text === null).length;
    const found = repetitions.length === 0 ? "no packed chunk repeats an earlier one" : repetitions.map((repetition) => `${repetition.chunkId} repeats ${repetition.repeats} (${repetition.how.replace("_", " ")})`).join("; ");
    return {
      values: { context_redundancy: applicable(repetitions.length / packed.length) },
      reason: withoutText > 0 ? `${found}; ${withoutText} packed chunk(s) without recorded text judged by id only` : found,
      evidence: repetitions.map((repetition) => repetition.chunkId),
    };
  },
};
