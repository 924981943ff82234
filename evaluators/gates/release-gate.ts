/**
 * Checks a run against the rules of a gate file. Every rule is passed, failed,
 * or not available (its metric was not measured); the gate passes only when
 * every rule passed, unless not-available rules are explicitly allowed.
 */
import type { GateRule } from "../../contracts/gate-file.js";
import { withoutHeuristicJudgements } from "../aggregate/without-heuristic-judgements.js";
import { parseThreshold, satisfies } from "../threshold.js";
import { gateMetricValue, type GateContext } from "./gate-metrics.js";

export type GateRuleStatus = "passed" | "failed" | "not_available";

export interface GateRuleResult {
  rule: GateRule;
  status: GateRuleStatus;
  value: number | null;
  reason: string;
}

export interface ReleaseGateResult {
  passed: boolean;
  rules: GateRuleResult[];
  counts: Record<GateRuleStatus, number>;
}

export function checkReleaseGate(rules: readonly GateRule[], context: GateContext, options: { allowNotAvailable?: boolean } = {}): ReleaseGateResult {
  const judged: GateContext = { ...context, cases: withoutHeuristicJudgements(context.cases), baseline: context.baseline === null ? null : withoutHeuristicJudgements(context.baseline) };
  const results = rules.map((rule): GateRuleResult => {
    const threshold = parseThreshold(rule.threshold);
    if (!threshold.ok) return { rule, status: "failed", value: null, reason: threshold.error };
    const value = gateMetricValue(rule.metric, judged);
    if (!value.applicable) {
      const heuristicOnly = gateMetricValue(rule.metric, context).applicable;
      const reason = heuristicOnly ? `${value.reason}: only the heuristic judge scored it, and a heuristic never decides a gate — configure an LLM judge (LOCAL-JUDGE.md)` : value.reason;
      return { rule, status: "not_available", value: null, reason };
    }
    const passed = satisfies(value.value, threshold.value);
    return { rule, status: passed ? "passed" : "failed", value: value.value, reason: `${rule.metric} = ${value.value} ${passed ? "meets" : "misses"} ${rule.threshold}` };
  });
  const counts = { passed: 0, failed: 0, not_available: 0 };
  for (const result of results) counts[result.status] += 1;
  return { passed: counts.failed === 0 && (options.allowNotAvailable === true || counts.not_available === 0), rules: results, counts };
}
