/**
 * Gain and discount for nDCG, as trec_eval computes them (m_ndcg.c, m_ndcg_cut.c):
 * the gain is the raw grade (linear, not 2^grade - 1), the discount is
 * log2(rank + 1), and the ideal ranking is built from ALL judged items with a grade
 * above 0, retrieved or not. The relevance level plays no part.
 */
import { usableGrade, type RelevanceJudgments } from "./relevance-judgments.js";

/** Gain of a counted grade: grades <= 0 (and items that count for nothing) add nothing. */
export function gainOf(countedGrade: number): number {
  return countedGrade > 0 ? countedGrade : 0;
}

/** Discounted gain at a 1-based rank. Same arithmetic as trec_eval: gain / log2(rank + 1). */
export function discountedGain(gain: number, rank: number): number {
  return gain / Math.log2(rank + 1);
}

/** Positive grades of the judgments, highest first: the ideal ranking's gains. */
export function idealGains(judgments: RelevanceJudgments): number[] {
  const gains: number[] = [];
  for (const grade of judgments.values()) {
    const usable = usableGrade(grade);
    if (usable > 0) gains.push(usable);
  }
  return gains.sort((left, right) => right - left);
}

/** DCG of the ideal ranking cut at `k` (all of it when k >= gains.length). */
export function idealDcg(gainsHighestFirst: readonly number[], k: number): number {
  const end = Math.min(k, gainsHighestFirst.length);
  let sum = 0;
  for (let index = 0; index < end; index += 1) sum += discountedGain(gainsHighestFirst[index]!, index + 1);
  return sum;
}
