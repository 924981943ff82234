/**
 * /api/runs/compare's answer: the run comparison as the page shows it. A metric whose interval is withheld (too few
 * cases measured in both runs: experiments/compare/compare-runs.ts intervalWithheldReason) has no `low` and `high`
 * (null) beside the reason, as the page and `ragscope eval` print the reason instead of the interval: the bootstrap
 * still computed one, and a client reading it would take a certainty the runs do not have.
 */
import type { MetricComparison, RunComparison } from "../../experiments/compare/compare-runs.js";

export type MetricComparisonJson = Omit<MetricComparison, "interval"> & { interval: Omit<MetricComparison["interval"], "low" | "high"> & { low: number | null; high: number | null } };

export function runComparisonJson(comparison: RunComparison): Omit<RunComparison, "metrics"> & { metrics: MetricComparisonJson[] } {
  return { ...comparison, metrics: comparison.metrics.map((metric) => (metric.intervalWithheld === null ? metric : { ...metric, interval: { ...metric.interval, low: null, high: null } })) };
}
