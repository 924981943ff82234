/**
 * The paired bootstrap confidence interval of a mean difference over cases
 * (candidate − baseline, each case measured in both runs): resample the cases
 * with replacement `resamples` times, take the mean difference of each
 * resample, and read the interval at the (1 − level)/2 and (1 + level)/2
 * quantiles (the percentile method; quantiles interpolated linearly, as
 * NumPy's default and SciPy's `bootstrap(method="percentile")` do). Resamples
 * come from a seeded generator (core/seeded-random.ts): the same seed, the same
 * interval. SciPy draws from NumPy's generator, so the two intervals agree
 * within Monte-Carlo error, not digit for digit.
 */
import { finiteMean, largestMagnitude, withinLargest } from "../../core/finite-mean.js";
import { seededRandom } from "../../core/seeded-random.js";

export interface BootstrapInterval {
  /** Cases measured in both runs. */
  pairs: number;
  meanDifference: number;
  low: number;
  high: number;
  level: number;
  resamples: number;
  seed: number;
}

export interface BootstrapOptions {
  resamples?: number;
  level?: number;
  seed?: number;
}

export const DEFAULT_BOOTSTRAP = { resamples: 10_000, level: 0.95, seed: 20_260_708 } as const;

/** Linear interpolation between order statistics (NumPy's `percentile` default, Hyndman–Fan type 7). */
export function quantile(sortedAscending: readonly number[], probability: number): number {
  const position = (sortedAscending.length - 1) * probability;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  const low = sortedAscending[below]!;
  return low + (sortedAscending[above]! - low) * (position - below);
}

export function pairedBootstrap(candidate: readonly number[], baseline: readonly number[], options: BootstrapOptions = {}): BootstrapInterval | null {
  if (candidate.length !== baseline.length) throw new Error("paired bootstrap: the two runs must list the same cases");
  const pairs = candidate.length;
  if (pairs === 0) return null;
  const resamples = options.resamples ?? DEFAULT_BOOTSTRAP.resamples;
  const level = options.level ?? DEFAULT_BOOTSTRAP.level;
  const seed = options.seed ?? DEFAULT_BOOTSTRAP.seed;
  const differences = candidate.map((value, index) => value - baseline[index]!);
  // A resample's total may go beyond the largest number when the differences are that large (a cost of 1e308 in
  // one run): each drawn difference is then divided by the count before it is added, so every mean is a number.
  // Otherwise the plain total is divided once, so ordinary intervals keep their digits.
  const divideFirst = !Number.isFinite(largestMagnitude(differences) * pairs);
  const terms = divideFirst ? differences.map((value) => value / pairs) : differences;
  const random = seededRandom(seed);
  const means = new Float64Array(resamples);
  for (let resample = 0; resample < resamples; resample += 1) {
    let total = 0;
    for (let draw = 0; draw < pairs; draw += 1) total += terms[Math.floor(random() * pairs)]!;
    means[resample] = divideFirst ? withinLargest(total) : total / pairs;
  }
  const sorted = Array.from(means).sort((left, right) => left - right);
  return {
    pairs,
    meanDifference: finiteMean(differences),
    low: quantile(sorted, (1 - level) / 2),
    high: quantile(sorted, (1 + level) / 2),
    level,
    resamples,
    seed,
  };
}
