/**
 * Nearest-rank percentiles (the definition NIST and the seed's P50/P95/P99
 * dashboards read naturally): the P-th percentile of n values is the value at
 * 1-based rank ceil(P/100 × n) of the ascending order — always one of the
 * observed values, never an interpolation. P95 of 20 values is the 19th;
 * P50 of 4 values is the 2nd. Not applicable for no values.
 */
import { finiteMean } from "../../core/finite-mean.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";

export function nearestRankPercentile(sortedAscending: readonly number[], percentile: number): MetricValue {
  if (!(percentile > 0 && percentile <= 100)) return notApplicable(`percentile must be in (0, 100], got ${percentile}`);
  if (sortedAscending.length === 0) return notApplicable("no values");
  // P · n first, then / 100: for whole P and n the product is exact and the quotient an exact integer
  // whenever the rank is one. (P / 100) · n is not: 0.07 · 100 = 7.000000000000001, which made P7 of 100
  // values the 8th (NumPy's inverted_cdf has the same rounding: test/data/numpy/README.md).
  const rank = Math.ceil((percentile * sortedAscending.length) / 100);
  return applicable(sortedAscending[Math.max(rank, 1) - 1]!);
}

export interface DistributionSummary {
  count: number;
  mean: MetricValue;
  p50: MetricValue;
  p95: MetricValue;
  p99: MetricValue;
  max: MetricValue;
}

export function summarizeDistribution(values: readonly number[]): DistributionSummary {
  const finite = values.filter((value) => Number.isFinite(value));
  const sorted = [...finite].sort((first, second) => first - second);
  const none = notApplicable("no values");
  return {
    count: sorted.length,
    // finiteMean: a time the trace states (time to first token) may be any finite number, and their sum need not be.
    mean: sorted.length === 0 ? none : applicable(finiteMean(sorted)),
    p50: nearestRankPercentile(sorted, 50),
    p95: nearestRankPercentile(sorted, 95),
    p99: nearestRankPercentile(sorted, 99),
    max: sorted.length === 0 ? none : applicable(sorted[sorted.length - 1]!),
  };
}
