/**
 * Checks a run against the rules of a gate file. Every rule is passed, failed,
 * or not available (its metric was not measured); the gate passes only when
 * every rule passed, unless not-available rules are explicitly allowed.
 *
 * A request whose task threw or passed its timeout is a failed case (README),
 * but it has no metric values, so the means a gate checks leave it out: a gate
 * file that bounds neither its error rate nor its timeout rate passed a run
 * where most tasks timed out. Where the file has no rule for one of those
 * rates and the run's rate is above zero, the gate adds a rule holding it at
 * zero (section "implied"), saying how to allow some.
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

/** The section of the rules a gate adds itself (impliedRules). */
export const IMPLIED_SECTION = "implied";

/** The rates of requests that did not complete, which a gate bounds at zero when its file does not bound them. */
const RELIABILITY_RATES = [
  { metric: "error_rate", example: `performance.error_rate: "<= 0.01"` },
  { metric: "timeout_rate", example: `performance.timeout_rate: "<= 0.01"` },
];

function impliedRules(rules: readonly GateRule[], context: GateContext): { rule: GateRule; why: string }[] {
  const named = new Set(rules.map((rule) => rule.metric));
  return RELIABILITY_RATES.filter(({ metric }) => !named.has(metric))
    .filter(({ metric }) => {
      const value = gateMetricValue(metric, context);
      return value.applicable && value.value > 0;
    })
    .map(({ metric, example }) => ({
      rule: { section: IMPLIED_SECTION, metric, threshold: "= 0", window: null, minSamples: null },
      why: `the gate file has no ${metric} rule, and a request that did not complete is a failed case; add one (${example}) to allow some`,
    }));
}

export function checkReleaseGate(rules: readonly GateRule[], context: GateContext, options: { allowNotAvailable?: boolean } = {}): ReleaseGateResult {
  const judged: GateContext = { ...context, cases: withoutHeuristicJudgements(context.cases), baseline: context.baseline === null ? null : withoutHeuristicJudgements(context.baseline) };
  const implied = impliedRules(rules, context);
  const results = [...rules, ...implied.map((item) => item.rule)].map((rule): GateRuleResult => {
    const threshold = parseThreshold(rule.threshold);
    if (!threshold.ok) return { rule, status: "failed", value: null, reason: threshold.error };
    const value = gateMetricValue(rule.metric, judged);
    if (!value.applicable) {
      const heuristicOnly = gateMetricValue(rule.metric, context).applicable;
      const reason = heuristicOnly ? `${value.reason}: only the heuristic judge scored it, and a heuristic never decides a gate — configure an LLM judge (LOCAL-JUDGE.md)` : value.reason;
      return { rule, status: "not_available", value: null, reason };
    }
    const passed = satisfies(value.value, threshold.value);
    const why = implied.find((item) => item.rule === rule)?.why;
    return { rule, status: passed ? "passed" : "failed", value: value.value, reason: `${rule.metric} = ${value.value} ${passed ? "meets" : "misses"} ${rule.threshold}${why ? `: ${why}` : ""}` };
  });
  const counts = { passed: 0, failed: 0, not_available: 0 };
  for (const result of results) counts[result.status] += 1;
  return { passed: counts.failed === 0 && (options.allowNotAvailable === true || counts.not_available === 0), rules: results, counts };
}
