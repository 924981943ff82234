/**
 * Alert rules: a metric, a threshold in the gate syntax (seed 004 §十三, e.g.
 * `generation.faithfulness: ">= 0.92"`), and how to judge a window of
 * samples: its size (a time span and/or a count of samples), the minimum
 * sample count, the confidence of the interval, the statistic and the
 * hysteresis of resolving.
 *
 * Rules come from the gate file (contracts/gate-file.ts): section.metric is
 * the rule id, `window` and `min_samples` the per-rule options. A gate metric
 * named average_<m> / mean_<m> alerts on the per-trace metric <m>
 * (average_cost → cost). Percentile gates (p50_/p95_/p99_…) are not per-trace
 * means, and dataset-level gate metrics (error_rate, no_answer_accuracy,
 * hallucination_rate, critical_case_pass_rate…) are no metric an evaluator
 * writes per trace, so a window of them would never get a sample and the rule
 * would stay silent: both are left to the Grafana alert rules and reported as
 * skipped.
 */
import type { GateRule } from "../../contracts/gate-file.js";
import { failure, success, type Result } from "../../core/result.js";
import { isMetricName } from "../../evaluators/metric-catalog.js";
import { parseThreshold, type Threshold } from "../../evaluators/threshold.js";

/** wilson: proportion interval (0/1 values); t: Student-t interval of a mean; auto: wilson when every value is 0 or 1, or the rule holds a share at zero (alert-evaluator.ts zeroToleranceRule). */
export type AlertStatistic = "auto" | "wilson" | "t";

export interface AlertRule {
  /** section.metric for gate rules; unique. */
  id: string;
  /** The per-trace metric name in metric_values. */
  metric: string;
  threshold: Threshold;
  /** Samples observed within this many ms; null: no time limit. */
  windowMs: number | null;
  /** At most this many most recent samples; null: no count limit. */
  windowSamples: number | null;
  /**
   * Below this many samples in the window the rule neither fires nor resolves. 1 is allowed: a single 0/1
   * sample has a Wilson interval (one permission leak can page, as the gate file's `= 0` rules ask); values
   * that are not all 0 or 1 still need two for a Student-t interval.
   */
  minSamples: number;
  /** Two-sided confidence of the interval, e.g. 0.95. */
  confidence: number;
  statistic: AlertStatistic;
  /**
   * Resolving needs the window's mean back on the right side by this fraction
   * of the threshold (">= 0.92" with 0.01 resolves at a mean of 0.9292, "<= 2000"
   * at 1980), never past the metric's values (resolve-target.ts), so a mean
   * hovering at the threshold does not flap between firing and resolved.
   */
  hysteresis: number;
  /** Trace ids carried by an alert, at most. */
  maxTraceIds: number;
}

export interface AlertRuleDefaults {
  windowMs: number;
  windowSamples: number | null;
  minSamples: number;
  confidence: number;
  hysteresis: number;
  maxTraceIds: number;
}

export const defaultAlertRuleDefaults: AlertRuleDefaults = { windowMs: 15 * 60_000, windowSamples: null, minSamples: 20, confidence: 0.95, hysteresis: 0.01, maxTraceIds: 20 };

const WINDOW_UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "15m" → 900000. */
export function parseWindow(window: string): Result<number, string> {
  const match = /^([1-9]\d*)(s|m|h|d)$/.exec(window.trim());
  if (!match) return failure(`"${window}" is not a window; write a duration such as 30s, 15m, 1h or 1d`);
  return success(Number(match[1]) * WINDOW_UNIT_MS[match[2]!]!);
}

export function validateAlertRule(rule: AlertRule): string[] {
  const problems: string[] = [];
  if (rule.windowMs === null && rule.windowSamples === null) problems.push(`alert rule ${rule.id}: needs a time window or a sample window`);
  if (rule.windowMs !== null && !(rule.windowMs > 0)) problems.push(`alert rule ${rule.id}: the time window must be positive`);
  if (rule.windowSamples !== null && !(Number.isInteger(rule.windowSamples) && rule.windowSamples >= 2)) problems.push(`alert rule ${rule.id}: the sample window must be a whole number of at least 2`);
  if (!(Number.isInteger(rule.minSamples) && rule.minSamples >= 1)) problems.push(`alert rule ${rule.id}: min samples must be a whole number of at least 1`);
  if (rule.windowSamples !== null && rule.minSamples > rule.windowSamples) problems.push(`alert rule ${rule.id}: min samples (${rule.minSamples}) exceed the sample window (${rule.windowSamples}); the rule could never fire`);
  if (!(rule.confidence > 0 && rule.confidence < 1)) problems.push(`alert rule ${rule.id}: confidence must be between 0 and 1 (e.g. 0.95)`);
  if (!(rule.hysteresis >= 0)) problems.push(`alert rule ${rule.id}: hysteresis must be 0 or more`);
  return problems;
}

export interface SkippedGateRule {
  id: string;
  reason: string;
}

const PERCENTILE = /^p\d{2,3}_/;
const MEAN_PREFIX = /^(?:average|mean|avg)_/;

/** Alert rules from the gate file's rules; the percentile gates are returned as skipped. */
export function alertRulesFromGate(gateRules: readonly GateRule[], defaults: AlertRuleDefaults = defaultAlertRuleDefaults): Result<{ rules: AlertRule[]; skipped: SkippedGateRule[] }, string[]> {
  const rules: AlertRule[] = [];
  const skipped: SkippedGateRule[] = [];
  const problems: string[] = [];
  for (const gate of gateRules) {
    const id = `${gate.section}.${gate.metric}`;
    if (PERCENTILE.test(gate.metric)) {
      skipped.push({ id, reason: "a percentile, not a mean of per-trace values" });
      continue;
    }
    const metric = gate.metric.replace(MEAN_PREFIX, "");
    if (!isMetricName(metric)) {
      skipped.push({ id, reason: "a dataset-level value no evaluator writes per trace" });
      continue;
    }
    const threshold = parseThreshold(gate.threshold);
    if (!threshold.ok) {
      problems.push(`${id}: ${threshold.error}`);
      continue;
    }
    let windowMs = defaults.windowMs;
    if (gate.window !== null) {
      const parsed = parseWindow(gate.window);
      if (!parsed.ok) {
        problems.push(`${id}.window: ${parsed.error}`);
        continue;
      }
      windowMs = parsed.value;
    }
    const rule: AlertRule = {
      id,
      metric,
      threshold: threshold.value,
      windowMs,
      windowSamples: defaults.windowSamples,
      minSamples: gate.minSamples ?? defaults.minSamples,
      confidence: defaults.confidence,
      statistic: "auto",
      hysteresis: defaults.hysteresis,
      maxTraceIds: defaults.maxTraceIds,
    };
    problems.push(...validateAlertRule(rule));
    rules.push(rule);
  }
  return problems.length > 0 ? failure(problems) : success({ rules, skipped });
}
