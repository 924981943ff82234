/**
 * context_sufficiency 0–3 (seed 004 §四.3 上下文充分性: 0 完全不足, 1 只能回答
 * 少部分, 2 基本足够但缺少次要信息, 3 完全足够).
 *
 * The seed means a judgement of the context against the question; this is a
 * rule proxy for it, read off the share of gold evidence that reached the
 * context (context_recall of context.coverage, whose matching rule it reuses):
 * 3 when all gold evidence is in the context, 2 when at least two thirds, 1
 * when some, 0 when none. It cannot see evidence the dataset did not list, nor
 * whether a present chunk really answers, so its confidence is "heuristic";
 * a judge metric replaces it where one runs.
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { contextCoverageEvaluator } from "./context-coverage.js";
import { metricKeys } from "../metric-keys.js";

const metrics: MetricDescriptor[] = [
  { name: "context_sufficiency", description: "0-3 rule proxy: 3 all gold evidence in the context, 2 >= 2/3, 1 some, 0 none", range: [0, 3], direction: "higher_is_better", defaultThreshold: null, decideWith: "configure an LLM judge (LOCAL-JUDGE.md) and gate on context_sufficiency_judged, or gate on context_recall (exact, against the gold evidence)" },
];

/** Levels from the share of gold evidence in the context; 2/3 itself is level 2. */
export function sufficiencyLevel(contextRecall: number): number {
  if (contextRecall >= 1) return 3;
  if (contextRecall >= 2 / 3 - 1e-9) return 2;
  if (contextRecall > 0) return 1;
  return 0;
}

/** The metrics this evaluator produces (context layer). */
export const contextSufficiencyMetrics = metricKeys(["context_sufficiency"]);

export const contextSufficiencyEvaluator: Evaluator = {
  id: "context.sufficiency",
  version: "1",
  layer: "context",
  description: "Rule proxy of the seed's 0-3 context sufficiency, from the share of gold evidence in the context",
  requires: ["case", "gold_evidence"],
  costClass: "rule",
  confidence: "heuristic",
  metrics,
  evaluate(input) {
    const coverage = contextCoverageEvaluator.evaluate(input);
    const recall = coverage.values.context_recall;
    if (recall === undefined || !recall.applicable) {
      const reason = recall?.reason ?? "context recall was not computed";
      return { values: { context_sufficiency: notApplicable(reason) }, reason: `not applicable: ${reason}`, evidence: [] };
    }
    const level: MetricValue = applicable(sufficiencyLevel(recall.value));
    return { values: { context_sufficiency: level }, reason: `level ${level.value}: ${coverage.reason} (context recall ${recall.value.toFixed(4).replace(/\.?0+$/, "")})`, evidence: coverage.evidence };
  },
};
