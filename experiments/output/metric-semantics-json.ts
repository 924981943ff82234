/**
 * `--output` JSON's `metric_semantics` and `heuristic_metrics`: how each metric
 * of the run's evaluation results is to be read, so a program reading the
 * values learns which are a heuristic's — as every other surface labels them
 * " (heuristic)" (evaluators/metric-catalog.ts METRIC_SEMANTICS).
 *
 * Per metric: the catalog's semantics (`deterministic_rule`, `heuristic`,
 * `judge`), how many values the run has and how many of those are a
 * heuristic's, as each value's result recorded it: answer.abstention reads
 * the trace's own flag (or an answer that refuses in whole) exactly, so those
 * values of its heuristic metrics are not a heuristic's. A judged metric is read per result: its values from the
 * heuristic judge (the embedded default's stand-in when no LLM judge is
 * configured) are heuristic, an LLM judge's are not. A metric the catalog does
 * not know takes its evaluator's declared confidence semantics. A heuristic
 * never decides a gate; the catalog's decide_with / judged_as / rule_in_seed
 * say what does.
 */
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { isHeuristicReading, isMetricName, METRIC_SEMANTICS } from "../../evaluators/metric-catalog.js";

export interface MetricSemanticsDocument {
  semantics: string;
  /** Values of the metric in the run (null values are not counted). */
  values: number;
  /** Of those, values a heuristic produced: a heuristic metric's but those its result read exactly (the trace's abstention flag), the heuristic judge's of a judged one. */
  heuristic_values: number;
  decide_with?: string;
  judged_as?: string;
  rule_in_seed?: string;
}

export function metricSemanticsDocument(results: readonly EvaluationResult[]): { metric_semantics: Record<string, MetricSemanticsDocument>; heuristic_metrics: string[] } {
  const byMetric = new Map<string, MetricSemanticsDocument>();
  for (const result of results) {
    for (const [metric, value] of Object.entries(result.metric_values)) {
      const entry = byMetric.get(metric) ?? initialEntry(metric, result);
      if (value !== null && Number.isFinite(value)) {
        entry.values += 1;
        if (isHeuristicReading(metric, result.confidence.semantics) || result.confidence.semantics === "heuristic") entry.heuristic_values += 1;
      }
      byMetric.set(metric, entry);
    }
  }
  const names = [...byMetric.keys()].sort();
  return {
    metric_semantics: Object.fromEntries(names.map((name) => [name, byMetric.get(name)!])),
    // A heuristic metric none of whose values is the heuristic's reading (every `abstained` the trace's own flag) is
    // not listed; one with no value at all keeps the catalog's word.
    heuristic_metrics: names.filter((name) => {
      const entry = byMetric.get(name)!;
      return entry.heuristic_values > 0 || (entry.semantics === "heuristic" && entry.values === 0);
    }),
  };
}

function initialEntry(metric: string, result: EvaluationResult): MetricSemanticsDocument {
  if (!isMetricName(metric)) return { semantics: result.confidence.semantics, values: 0, heuristic_values: 0 };
  const { semantics, decideWith, judgedAs, ruleInSeed } = METRIC_SEMANTICS[metric];
  return { semantics, values: 0, heuristic_values: 0, ...(decideWith === undefined ? {} : { decide_with: decideWith }), ...(judgedAs === undefined ? {} : { judged_as: judgedAs }), ...(ruleInSeed === undefined ? {} : { rule_in_seed: ruleInSeed }) };
}
