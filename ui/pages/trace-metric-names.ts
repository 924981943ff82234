/**
 * The metric names the traces list can filter on (metric=…&below=…): every
 * metric an evaluator stores (evaluators/metric-catalog.ts) and the judge's
 * own tokens and cost. A name outside them matches no stored value, so the
 * list was empty and looked like no trace was below the bound; it is refused
 * with the closest known names instead (Levenshtein distance, as the gate
 * file's metric names are checked: dashboards/source/gate-metrics.ts).
 */
import { JUDGE_USAGE_METRICS } from "../../evaluators/judge/judge-evaluations.js";
import { METRIC } from "../../evaluators/metric-catalog.js";
import { levenshteinDistance } from "../../evaluators/text/levenshtein-similarity.js";

export const TRACE_METRIC_NAMES: readonly string[] = [...new Set<string>([...Object.values(METRIC), ...JUDGE_USAGE_METRICS])].sort();

const KNOWN: ReadonlySet<string> = new Set(TRACE_METRIC_NAMES);

/** Closest names listed. */
const SUGGESTIONS = 3;

export function isTraceMetricName(name: string): boolean {
  return KNOWN.has(name);
}

/** Up to three known names within a few edits of `name` (at most 2, or a third of its length), closest first. */
export function closestTraceMetricNames(name: string): string[] {
  const points = Array.from(name);
  return TRACE_METRIC_NAMES.map((known) => ({ known, distance: levenshteinDistance(points, Array.from(known)) }))
    .filter((candidate) => candidate.distance <= Math.max(2, Math.floor(points.length / 3)))
    .sort((left, right) => left.distance - right.distance || left.known.localeCompare(right.known))
    .slice(0, SUGGESTIONS)
    .map((candidate) => candidate.known);
}
