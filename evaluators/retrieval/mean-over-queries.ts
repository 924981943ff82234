/**
 * Averaging a per-query metric over queries, as trec_eval's `all` row does
 * (meas_avg.c: the arithmetic mean over topics). Not-applicable queries (no gold
 * evidence, invalid cutoff) are left out of both the sum and the count, so they
 * neither count as 0 nor turn the mean into NaN.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";

export interface QueryMean {
  /** The mean over the applicable queries; not applicable when there is none. */
  readonly mean: MetricValue;
  /** Queries that went into the mean. */
  readonly queryCount: number;
  /** Queries left out because their value was not applicable. */
  readonly notApplicableCount: number;
}

export function meanOverQueries(values: Iterable<MetricValue>): QueryMean {
  let sum = 0;
  let queryCount = 0;
  let notApplicableCount = 0;
  for (const value of values) {
    if (value.applicable) {
      sum += value.value;
      queryCount += 1;
    } else {
      notApplicableCount += 1;
    }
  }
  return {
    mean: queryCount === 0 ? notApplicable("no query with an applicable value") : applicable(sum / queryCount),
    queryCount,
    notApplicableCount,
  };
}
