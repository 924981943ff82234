/**
 * What a metric name of the gate file (contracts/gate-file.ts) means as an
 * aggregate over recent requests:
 * - a name of NAMED_AGGREGATES (no_answer_accuracy, hallucination_rate,
 *   permission_leak_rate, error_rate, average_cost, …);
 * - `pNN_<metric>`: the nearest-rank NN-th percentile of a stored metric
 *   (p95_latency_ms);
 * - `average_<metric>` / `mean_<metric>`: the mean of a stored metric;
 * - any other name: the mean of the stored metric of that name
 *   (recall_at_5, mrr, faithfulness, citation_accuracy, …).
 * Regression gates compare a run with its baseline and have no meaning over a
 * window of traffic: they are release-gate only.
 */
import { METRIC } from "../../evaluators/metric-catalog.js";
import { meanOf, NAMED_AGGREGATES, percentileOf, type AggregateMetric } from "./aggregate-metrics.js";

/** Gate names that compare a run with its baseline run (seed 004 §十三 `regression`). */
export const RUN_COMPARISON_GATES = new Set(["critical_case_pass_rate", "overall_score_drop"]);

export type GateMetricResolution = { kind: "aggregate"; aggregate: AggregateMetric } | { kind: "release_gate_only"; reason: string };

const UNITS: Record<string, string> = { [METRIC.latency_ms]: "ms", [METRIC.time_to_first_token_ms]: "ms", [METRIC.cost]: "none" };

export function resolveGateMetric(name: string): GateMetricResolution {
  if (RUN_COMPARISON_GATES.has(name)) return { kind: "release_gate_only", reason: `${name} compares a run with its baseline run; it has no value over a window of traffic` };
  const named = NAMED_AGGREGATES.find((aggregate) => aggregate.name === name);
  if (named) return { kind: "aggregate", aggregate: named };
  const percentile = /^p(\d{1,2})_([a-z][a-z0-9_]*)$/.exec(name);
  if (percentile) {
    const [, rank, metric] = percentile as unknown as [string, string, string];
    return { kind: "aggregate", aggregate: percentileOf(Number(rank), metric, name, UNITS[metric] ?? "none") };
  }
  const mean = /^(?:average|mean)_([a-z][a-z0-9_]*)$/.exec(name);
  if (mean) return { kind: "aggregate", aggregate: meanOf(mean[1]!, name, UNITS[mean[1]!] ?? "none", name) };
  return { kind: "aggregate", aggregate: meanOf(name, name, "none") };
}
