/**
 * Confidence intervals for the mean of a window of metric values, so that an
 * alert fires only when the whole interval is on the wrong side of the
 * threshold (issue 6: "a few unlucky samples do not page anyone").
 *
 * - Wilson score interval (Wilson 1927) for proportions — values that are all
 *   0 or 1, a pass rate. Unlike the normal ("Wald") interval it stays inside
 *   [0, 1] and is not degenerate at 0 or n successes:
 *     centre = (p + z²/2n) / (1 + z²/n)
 *     half   = z · sqrt(p(1−p)/n + z²/4n²) / (1 + z²/n)
 * - Student's t interval for means of continuous values:
 *     mean ± t(1−α/2, n−1) · s / sqrt(n),   s the sample standard deviation.
 *
 * Quantiles come from core/statistics/ (normal: Acklam's approximation; t:
 * bisection on the incomplete beta function), shared with the experiment
 * statistics.
 */

import { finiteMean, LARGEST_SQUARABLE, largestMagnitude, withinLargest } from "../../core/finite-mean.js";
import { normalQuantile } from "../../core/statistics/normal-distribution.js";
import { studentTQuantile } from "../../core/statistics/student-t-distribution.js";

export interface Interval {
  lower: number;
  upper: number;
  mean: number;
  count: number;
}

/** Two-sided Wilson score interval of a proportion (`successes` may be fractional: the sum of values in [0, 1]). */
export function wilsonInterval(successes: number, count: number, confidence: number): Interval {
  if (count < 1) throw new RangeError("an interval needs at least one sample");
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const proportion = successes / count;
  const z2 = z * z;
  const denominator = 1 + z2 / count;
  const centre = (proportion + z2 / (2 * count)) / denominator;
  const half = (z * Math.sqrt((proportion * (1 - proportion)) / count + z2 / (4 * count * count))) / denominator;
  // At 0 or n successes the bound is exactly 0 or 1; rounding must not move it.
  const lower = successes <= 0 ? 0 : Math.max(0, centre - half);
  const upper = successes >= count ? 1 : Math.min(1, centre + half);
  return { lower, upper, mean: proportion, count };
}

/** Two-sided Student-t interval of a mean; needs two values or more. */
export function meanInterval(values: readonly number[], confidence: number): Interval {
  const count = values.length;
  if (count < 2) throw new RangeError("a t interval needs at least two samples");
  const mean = finiteMean(values);
  // A metric may hold any finite value (a cost of 1e200), and a variance squares them: beyond ~1e150 the square is
  // Infinity, the interval (-Infinity, Infinity), and no alert ever fires. The spread is then taken of the values
  // divided by a power of two (exact) and multiplied back; ordinary values are divided by 1, keeping their digits.
  const scale = scaleFor(values);
  const scaledMean = mean / scale;
  const variance = values.reduce((total, value) => total + (value / scale - scaledMean) ** 2, 0) / (count - 1);
  const half = studentTQuantile(1 - (1 - confidence) / 2, count - 1) * Math.sqrt(variance / count) * scale;
  return { lower: withinLargest(mean - half), upper: withinLargest(mean + half), mean, count };
}

function scaleFor(values: readonly number[]): number {
  const largest = largestMagnitude(values);
  // A power of two about the largest value, so the values divided by it are at most ~2. Math.log2 rounds
  // Number.MAX_VALUE up to 1024, and 2 ** 1024 is Infinity: 2 ** 1023 is the largest power of two there is.
  return largest > LARGEST_SQUARABLE ? Math.min(2 ** Math.floor(Math.log2(largest)), 2 ** 1023) : 1;
}
