/**
 * Sample ratio mismatch: are the units assigned to each variant in the
 * proportions the experiment intended? Pearson's chi-square goodness of fit
 * (SciPy `chisquare`), k − 1 degrees of freedom. An SRM means the assignment
 * or the logging is broken, and no difference between the arms can be
 * trusted; the report flags it below p = 0.001, the threshold GrowthBook and
 * Statsig use (a strict one, because the check runs on every look).
 */
import { chiSquareSurvival } from "../../core/statistics/incomplete-gamma.js";

export const SRM_P_VALUE_THRESHOLD = 0.001;

export interface SampleRatioCheck {
  readonly chiSquare: number;
  readonly pValue: number;
  readonly mismatch: boolean;
  readonly expected: number[];
}

export function sampleRatioMismatch(counts: readonly number[], weights: readonly number[]): SampleRatioCheck {
  if (counts.length !== weights.length || counts.length < 2) throw new RangeError("a sample ratio check needs one weight per variant and two variants or more");
  const total = counts.reduce((sum, count) => sum + count, 0);
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0);
  const expected = weights.map((weight) => (total * weight) / weightSum);
  const chiSquare = counts.reduce((sum, count, index) => sum + (count - expected[index]!) ** 2 / expected[index]!, 0);
  const pValue = chiSquareSurvival(chiSquare, counts.length - 1);
  return { chiSquare, pValue, mismatch: pValue < SRM_P_VALUE_THRESHOLD, expected };
}
