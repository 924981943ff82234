/**
 * Percent agreement: the share of items two raters labelled alike (p_o of
 * cohen-kappa.ts), null when there are no items. Reported beside kappa
 * because kappa alone hides how often they actually agree when one category
 * dominates.
 */
import type { RatingPair } from "./cohen-kappa.js";

export function percentAgreement(pairs: readonly RatingPair[]): number | null {
  if (pairs.length === 0) return null;
  return pairs.filter(([first, second]) => first === second).length / pairs.length;
}
