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
import type { GateFileProblem, GateRule } from "../../contracts/gate-file.js";
import { derivedGateMetrics, perCaseFormOf } from "../../evaluators/gates/gate-metrics.js";
import { METRIC } from "../../evaluators/metric-catalog.js";
import { meanOf, NAMED_AGGREGATES, percentileOf, type AggregateMetric } from "./aggregate-metrics.js";
import { levenshteinDistance } from "../../evaluators/text/levenshtein-similarity.js";

/** Gate names that compare a run with its baseline run (seed 004 §十三 `regression`). */
export const RUN_COMPARISON_GATES = new Set(["critical_case_pass_rate", "overall_score_drop"]);

export type GateMetricResolution = { kind: "aggregate"; aggregate: AggregateMetric } | { kind: "release_gate_only"; reason: string };

const UNITS: Record<string, string> = { [METRIC.latency_ms]: "ms", [METRIC.time_to_first_token_ms]: "ms", [METRIC.cost]: "none" };

export function resolveGateMetric(name: string): GateMetricResolution {
  if (RUN_COMPARISON_GATES.has(name)) return { kind: "release_gate_only", reason: `${name} compares a run with its baseline run; it has no value over a window of traffic` };
  const named = NAMED_AGGREGATES.find((aggregate) => aggregate.name === name);
  if (named) return { kind: "aggregate", aggregate: named };
  // The release gate's reading of the name (pNN_, average_ or mean_ of a metric), so both accept the same forms.
  const form = perCaseFormOf(name);
  if (form.percentile !== null) return { kind: "aggregate", aggregate: percentileOf(form.percentile, form.metric, name, UNITS[form.metric] ?? "none") };
  if (form.metric !== name) return { kind: "aggregate", aggregate: meanOf(form.metric, name, UNITS[form.metric] ?? "none", name) };
  return { kind: "aggregate", aggregate: meanOf(name, name, "none") };
}

const STORED_METRICS: ReadonlySet<string> = new Set(Object.values(METRIC));

/**
 * Gate metric names ragscope can give a value: the release gate's derived metrics, the dashboards' named
 * aggregates, a stored metric, or a percentile or mean of one (resolveGateMetric). Any other name — a misspelling —
 * would only ever read "not measured": a gate with --allow-missing passed over it, an alert never fired.
 */
export function isKnownGateMetric(name: string): boolean {
  if (RUN_COMPARISON_GATES.has(name) || name in derivedGateMetrics || STORED_METRICS.has(name)) return true;
  if (NAMED_AGGREGATES.some((aggregate) => aggregate.name === name)) return true;
  const of = perCaseFormOf(name).metric;
  return of !== name && STORED_METRICS.has(of);
}

/** A problem per rule whose metric ragscope cannot give a value, with the closest known names. */
export function unknownGateMetrics(rules: readonly GateRule[]): GateFileProblem[] {
  const known = [...new Set([...Object.keys(derivedGateMetrics), ...NAMED_AGGREGATES.map((aggregate) => aggregate.name), ...STORED_METRICS])];
  return rules
    .filter((rule) => !isKnownGateMetric(rule.metric))
    .map((rule) => {
      const closest = known
        .map((name) => ({ name, distance: editDistance(rule.metric, name) }))
        .filter((candidate) => candidate.distance <= Math.max(2, Math.floor(rule.metric.length / 3)))
        .sort((left, right) => left.distance - right.distance || left.name.localeCompare(right.name))
        .slice(0, 3)
        .map((candidate) => candidate.name);
      return {
        path: `${rule.section}.${rule.metric}`,
        message: `no metric "${rule.metric}": ragscope measures none of that name, so the rule could never be checked${closest.length > 0 ? ` — did you mean ${closest.join(" or ")}?` : ""} (a stored metric, its pNN_ or average_ form, or a derived one such as error_rate, p95_latency_ms, no_answer_accuracy)`,
      };
    });
}

/** Levenshtein distance between two names, by code point (the text metrics' own). */
function editDistance(left: string, right: string): number {
  return levenshteinDistance(Array.from(left), Array.from(right));
}
