/**
 * Checks a run against the rules of a gate file. Every rule is passed, failed,
 * or not available (its metric was not measured, or only a heuristic measured
 * it: the heuristic judge, or a heuristic rule — metric-catalog.ts); the gate passes only when
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
import type { EvaluatedCase } from "../aggregate/evaluated-case.js";
import { erroredEvaluationsOf, erroredFixHint, erroredOnCases, formatErrorCounts } from "../aggregate/errored-evaluations.js";
import { meanOfMetric } from "../aggregate/metric-mean.js";
import { withoutHeuristicJudgements } from "../aggregate/without-heuristic-judgements.js";
import { JUDGING_ON_A_COLLECTOR, judgeDidNotScore, judgedMetricMissingReason } from "../aggregate/judged-metric-missing.js";
import { isMetricName, METRIC_SEMANTICS } from "../metric-catalog.js";
import { parseThreshold, satisfies } from "../threshold.js";
import { gateMetricValue, measuredMetricOf, measureGateMetric, type GateContext } from "./gate-metrics.js";
import { casesWithoutRecordedRetrieval, describeUnrecordedRetrieval } from "./unrecorded-retrieval.js";

export { erroredEvaluationsOf, formatErrorCounts };

export type GateRuleStatus = "passed" | "failed" | "not_available" | "error";

export interface GateRuleResult {
  rule: GateRule;
  status: GateRuleStatus;
  value: number | null;
  reason: string;
  /** Status error: the errored evaluations of the rule's metric, by error type (`http_error`, `timeout`, …). */
  errors?: Record<string, number>;
  /**
   * How a rule that decided read heuristics: a rule on a heuristic metric that decided anyway says why — the seed
   * defines the metric as a rule metric, or the rule read the LLM judge's metric asking the same question
   * (completeness_judged); a derived metric that left heuristic readings out says how many and how to have them read
   * exactly (no_answer_accuracy). Printed beside the rule.
   */
  basis?: string;
}

export interface ReleaseGateResult {
  passed: boolean;
  /**
   * No rule failed, but a rule could not be measured because its evaluations
   * errored: the gate could not decide (exit 2), whatever --allow-missing says.
   */
  undecided: boolean;
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

/** What a rule reads: a gate name and its per-case metric, and why it may when its metric is a heuristic's. */
type RuleReading = { ok: true; name: string; measured: string; basis?: string } | { ok: false; reason: string };

/**
 * A rule on a heuristic metric (metric-catalog.ts METRIC_SEMANTICS) is not available to the gate, as the heuristic
 * judge's scores are not (without-heuristic-judgements.ts): a heuristic is a reason to look, never a pass
 * (case-verdict.ts), and a gate that passes is one. It reads instead the judged metric asking the same question
 * (judgedAs: completeness → completeness_judged) when an LLM judge scored it, and decides on a heuristic the seed
 * defines as a rule metric (ruleInSeed); the reading says so. Other metrics are read as named.
 */
function readingOf(name: string, context: GateContext): RuleReading {
  const measured = measuredMetricOf(name);
  if (!isMetricName(measured) || METRIC_SEMANTICS[measured].semantics !== "heuristic") return { ok: true, name, measured };
  const entry = METRIC_SEMANTICS[measured];
  if (entry.ruleInSeed !== undefined) return { ok: true, name, measured, basis: `${measured} is a heuristic match the seed defines as a rule metric, ${entry.ruleInSeed}, so it decides` };
  if (entry.judgedAs !== undefined && name.endsWith(measured)) {
    // p90_completeness reads p90_completeness_judged: the same form of the judged metric.
    const judgedName = `${name.slice(0, name.length - measured.length)}${entry.judgedAs}`;
    if (gateMetricValue(judgedName, context).applicable || erroredEvaluationsOf(context.cases, entry.judgedAs).cases > 0) {
      return { ok: true, name: judgedName, measured: entry.judgedAs, basis: `${measured} is a heuristic; read as ${entry.judgedAs}, an LLM judge's` };
    }
  }
  const value = gateMetricValue(name, context);
  const measurement = value.applicable ? `${name} = ${value.value} was measured by` : `${name} would be measured by`;
  // A language-model judge that ran and left the judged form without a value: "configure an LLM judge" would be wrong.
  const judgeRan = entry.judgedAs === undefined ? null : judgeDidNotScore(entry.judgedAs, context.cases);
  const instead = judgeRan !== null ? `it reads ${entry.judgedAs} when an LLM judge scores it, and ${judgeRan}` : (entry.decideWith ?? "it stays a measurement: review the cases it flags (the review queue); no exact rule or LLM judge measures it");
  const onCollector = judgeRan === null && entry.decideWith?.includes("configure an LLM judge") === true ? `; ${JUDGING_ON_A_COLLECTOR}` : "";
  return { ok: false, reason: `${measurement} a heuristic (${entry.evaluatorId}), and a heuristic never decides a gate — ${instead}${onCollector}` };
}

export function checkReleaseGate(rules: readonly GateRule[], context: GateContext, options: { allowNotAvailable?: boolean } = {}): ReleaseGateResult {
  const judged: GateContext = { ...context, cases: withoutHeuristicJudgements(context.cases), baseline: context.baseline === null ? null : withoutHeuristicJudgements(context.baseline) };
  const implied = impliedRules(rules, context);
  const results = [...rules, ...implied.map((item) => item.rule)].map((rule): GateRuleResult => {
    const threshold = parseThreshold(rule.threshold);
    if (!threshold.ok) return { rule, status: "failed", value: null, reason: threshold.error };
    const reading = readingOf(rule.metric, judged);
    if (!reading.ok) return { rule, status: "not_available", value: null, reason: reading.reason };
    const { measured } = reading;
    const { value, note, errors: derivedErrors, bestCase, partOfRun } = measureGateMetric(reading.name, judged);
    // An errored evaluation is no measurement, and the rest's value cannot stand for the run: a grader that fails on
    // exactly the worst answers (a judge declining the wrong one) would leave only the good ones to average.
    const errored = erroredEvaluationsOf(judged.cases, measured);
    if (errored.cases > 0) {
      const valued = meanOfMetric(judged.cases, measured).caseCount;
      const reason = `${measured} could not be measured on every case: its evaluation ${erroredOnCases(errored, valued)}; a grader error is never a pass, and --allow-missing does not cover it${erroredFixHint(errored.byJudge)}`;
      return { rule, status: "error", value: null, reason, errors: errored.byType };
    }
    // A derived metric read from per-case metrics that errored (composite_score: a term's judge errored on some case).
    if (derivedErrors !== null) return { rule, status: "error", value: null, reason: derivedErrors.reason, errors: derivedErrors.byType };
    if (!value.applicable) {
      const withHeuristics = gateMetricValue(reading.name, context);
      const heuristicOnly = withHeuristics.applicable;
      const judged = isMetricName(measured) && METRIC_SEMANTICS[measured].semantics === "judge";
      // Read with the heuristic judgements too, a derived metric's own reason tells "only the heuristic judge scored
      // it" from "no judge scored it" (composite_score: of each missing term), which the judged cases cannot.
      const reason = heuristicOnly || judged ? judgedMetricMissingReason(value.reason, heuristicOnly, measured, context.cases) : withHeuristics.reason;
      return { rule, status: "not_available", value: null, reason };
    }
    // Cases whose trace recorded no retrieval, on a rule that reads it: not measured, so the mean over the rest may
    // fail the run but never pass it (unrecorded-retrieval.ts).
    const unrecorded = casesWithoutRecordedRetrieval(judged.cases, measured);
    const coverage = unrecorded.length === 0 ? (partOfRun ?? null) : describeUnrecordedRetrieval(unrecorded, meanOfMetric(judged.cases, measured).caseCount);
    // A derived metric that left heuristic readings out says so (no_answer_accuracy: abstentions only a heuristic read).
    const basis = [reading.basis, note, coverage].filter((part): part is string => part !== undefined && part !== null).join("; ") || undefined;
    const passed = satisfies(value.value, threshold.value);
    if (passed && coverage !== null) {
      // A part of the run named by its measurement says itself how to measure the rest.
      const record = unrecorded.length > 0 ? "record the retrieval of every case (traceRetrieve), or give" : "give";
      return { rule, status: "not_available", value: null, reason: `${rule.metric} = ${value.value} would meet ${rule.threshold}, but it is ${coverage}: a value over part of the run is not its value — ${record} --allow-missing to pass without this rule` };
    }
    // A bound that misses only for the heuristic readings placed against quality (refusal-rates.ts) shows no failure:
    // read in their favour the run may meet the rule. Not measured, as a value over part of the run is.
    if (!passed && bestCase !== undefined && (bestCase === null || satisfies(bestCase, threshold.value))) {
      const best = bestCase === null ? "with them read in its favour no case would be left to count" : `read in its favour it is ${bestCase}, which meets ${rule.threshold}`;
      return { rule, status: "not_available", value: null, reason: `${rule.metric} = ${value.value} misses ${rule.threshold} only as a bound (${basis}); ${best} — have the abstentions read exactly, or give --allow-missing to pass without this rule` };
    }
    const why = implied.find((item) => item.rule === rule)?.why;
    const reason = `${rule.metric} = ${value.value} ${passed ? "meets" : "misses"} ${rule.threshold}${why ? `: ${why}` : ""}${basis === undefined ? "" : ` (${basis})`}`;
    return { rule, status: passed ? "passed" : "failed", value: value.value, reason, ...(basis === undefined ? {} : { basis }) };
  });
  const counts = { passed: 0, failed: 0, not_available: 0, error: 0 };
  for (const result of results) counts[result.status] += 1;
  const undecided = counts.failed === 0 && counts.error > 0;
  return { passed: counts.failed === 0 && counts.error === 0 && (options.allowNotAvailable === true || counts.not_available === 0), undecided, rules: results, counts };
}

/** How a gate rule's status is printed, by `gate` and `eval`. */
export const GATE_RULE_SYMBOL = { passed: "PASS", failed: "FAIL", not_available: "N/A ", error: "ERROR" } as const;

/**
 * PASSED, BLOCKED or UNDECIDED (a rule's evaluations errored and none failed), with the rule counts. A gate blocked
 * with no failed rule says why: a first run of `eval` reads "0 failed … BLOCKED" and otherwise looks like a bug.
 */
export function gateHeadline(result: ReleaseGateResult): string {
  const word = result.passed ? "PASSED" : result.undecided ? "UNDECIDED" : "BLOCKED";
  const why = result.undecided
    ? " (could not decide: an errored evaluation is never a pass)"
    : !result.passed && result.counts.failed === 0 && result.counts.not_available > 0
      ? ` (no rule failed; the ${result.counts.not_available} not measured block it: a rule the run cannot show it meets is not a pass — measure them as their reasons say, or let them pass with --allow-missing)`
      : result.passed && result.counts.not_available > 0
        ? // Passed with rules nothing measured: the headline says they were let through, not met, as the JUnit file does.
          ` (the ${result.counts.not_available} not measured were allowed by --allow-missing: not shown to meet their thresholds)`
        : "";
  return `${word} — ${result.counts.passed} passed, ${result.counts.failed} failed, ${result.counts.not_available} not measured, ${result.counts.error} errored${why}`;
}
