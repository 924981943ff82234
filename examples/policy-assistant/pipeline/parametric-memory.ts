/**
 * Simulated parametric memory: what the language model "believes" from its
 * training data, regardless of the documents it is given.
 *
 * A real model sometimes answers from a strong prior instead of from its
 * context (knowledge conflict); when asked to cite, it then cites the first
 * source it was shown. This table reproduces that, deterministically: when a
 * question matches every pattern of an entry, the generator answers with the
 * entry's text and cites [1] (pipeline/extractive-generator.ts). The entries
 * are stale or invented policy, so the answers they produce are hallucinations
 * that the faithfulness and citation evaluators must catch.
 *
 * Each entry names the dataset case it was written for (examples/README.md).
 */

export interface MemoryEntry {
  id: string;
  /** The question must match every pattern. */
  patterns: readonly RegExp[];
  answer: string;
  /** Why the model "remembers" this; documentation only. */
  origin: string;
}

export const POLICY_MEMORY: readonly MemoryEntry[] = [
  {
    id: "member_points_clawback",
    patterns: [/积分/u, /扣回/u],
    answer: "积分不会受影响，优惠券也会原路退回",
    origin:
      "Rule of the member-points policy before 2026-07-01 (partial refunds kept the points), plus an invented coupon rule. " +
      "Produces the seed case rag_refund_member_points_001.",
  },
  {
    id: "electronics_warranty_two_years",
    patterns: [/warrant/iu, /electronic/iu],
    answer: "All electronics come with a two-year warranty.",
    origin: "A common retail rule elsewhere; this shop gives one year. Produces rag_warranty_electronics_en_001.",
  },
  {
    id: "price_match_competitors",
    patterns: [/price/iu, /match|competitor/iu],
    answer: "Yes, we match any competitor's price within 14 days of purchase.",
    origin: "Invented: the corpus has no price-match policy. Produces rag_price_match_unanswerable_en_001.",
  },
];

/** The first entry whose patterns all match the question, if any. */
export function recallFromMemory(memory: readonly MemoryEntry[], question: string): MemoryEntry | undefined {
  return memory.find((entry) => entry.patterns.every((pattern) => pattern.test(question)));
}
