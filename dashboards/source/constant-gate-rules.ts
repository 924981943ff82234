/**
 * Gate rules whose threshold lies outside the values their metric can take, so that the rule's outcome does not
 * depend on the run: `recall_at_5: ">= 1.5"` can never pass (every run blocked, whatever it measured), and
 * `recall_at_5: ">= -0.5"` or `p95_latency_ms: "<= -1"`… passes or fails whatever was measured. Such a rule is
 * almost always a typo (1.5 for 0.95, a sign) and is refused where the gate file is read, naming the range.
 *
 * The range is evaluators/metric-ranges.ts's: the metric's descriptor's, a judged metric's 0..1, and 0 up for a
 * metric that counts or times something. Percentile and mean forms
 * (`p95_…`, `average_…`) take the metric's range. A threshold at the range's edge (">= 0", "<= 1") is kept: it
 * passes any measured value, and is how a gate asks that a metric be measured at all.
 */
import type { GateFileProblem, GateRule } from "../../contracts/gate-file.js";
import { perCaseFormOf } from "../../evaluators/gates/gate-metrics.js";
import { metricRange, type MetricRange } from "../../evaluators/metric-ranges.js";
import { parseThreshold } from "../../evaluators/threshold.js";

/** Whether the rule passes for every value of the range, for none, or depends on the value. */
function outcome(comparator: string, threshold: number, [lowest, highest]: MetricRange): "always" | "never" | "depends" {
  switch (comparator) {
    case ">=":
      return threshold > highest ? "never" : threshold < lowest ? "always" : "depends";
    case ">":
      return threshold >= highest ? "never" : threshold < lowest ? "always" : "depends";
    case "<=":
      return threshold < lowest ? "never" : threshold > highest ? "always" : "depends";
    case "<":
      return threshold <= lowest ? "never" : threshold > highest ? "always" : "depends";
    case "=":
      return threshold < lowest || threshold > highest ? "never" : "depends";
    case "!=":
      return threshold < lowest || threshold > highest ? "always" : "depends";
    default:
      return "depends";
  }
}

/** A problem per rule whose threshold its metric's values can never meet, or always meet. */
export function constantGateRules(rules: readonly GateRule[]): GateFileProblem[] {
  const problems: GateFileProblem[] = [];
  for (const rule of rules) {
    const metric = perCaseFormOf(rule.metric).metric;
    const range = metricRange(metric);
    const threshold = parseThreshold(rule.threshold);
    if (range === undefined || !threshold.ok) continue;
    const result = outcome(threshold.value.comparator, threshold.value.value, range);
    if (result === "depends") continue;
    const values = Number.isFinite(range[1]) ? `from ${range[0]} to ${range[1]}` : `from ${range[0]} up`;
    problems.push({
      path: `${rule.section}.${rule.metric}`,
      message:
        `"${rule.threshold}" ${result === "never" ? "can never be met" : "is met by every value"}: ${metric} takes values ${values}, so the rule would ${result === "never" ? "block every run" : "pass whatever the run measured"}; ` +
        `check the number (0.95 rather than 1.5, a sign)`,
    });
  }
  return problems;
}
