/**
 * The values each stored metric can take: its descriptor's `range` (evaluator.ts), [0, 1] for a judged metric
 * (every rubric counts verdicts or scales an ordinal score to 0..1: judge/rubrics/), and [0, ∞) for a metric without
 * one whose name says it counts or times something (`…_ms`, `…_tokens`, `…_count`, `cost`). Undefined for a metric
 * whose values have no known bounds (an embedding similarity's).
 *
 * Read where a threshold meets the metric: a gate rule no value can decide (dashboards/source/constant-gate-rules.ts)
 * and an alert's resolve target, which a margin past the threshold could put beyond the values
 * (collector/10-alert/resolve-target.ts).
 */
import { createDefaultRegistry } from "./default-registry.js";
import { JUDGE_METRICS } from "./judge/judge.js";

export type MetricRange = readonly [number, number];

const NEVER_NEGATIVE = /(_ms|_tokens|_count|^cost)$/;

let ranges: Map<string, MetricRange> | undefined;

function allRanges(): Map<string, MetricRange> {
  const found = new Map<string, MetricRange>();
  for (const evaluator of createDefaultRegistry().list()) {
    for (const metric of evaluator.metrics) {
      if (metric.range !== null) found.set(metric.name, metric.range);
      else if (NEVER_NEGATIVE.test(metric.name)) found.set(metric.name, [0, Number.POSITIVE_INFINITY]);
    }
  }
  for (const metric of JUDGE_METRICS) found.set(metric, [0, 1]);
  return found;
}

/** The range of `metric`'s values, or undefined when it has none known. */
export function metricRange(metric: string): MetricRange | undefined {
  ranges ??= allRanges();
  return ranges.get(metric);
}
