/**
 * Sliding-window alert evaluation over sampled metric values (issue 6
 * "Alerts"; DESIGN.md: "alerts that fire on real drops and not on noise").
 *
 * Per rule, a window of the latest samples of its metric — one per Case
 * Result: a replayed or re-evaluated trace replaces its earlier sample, never
 * adds a second — bounded by time (observation time; judge results arrive
 * later than the traces they judge) and/or by count. Then:
 *
 * - below `minSamples` samples nothing changes (nor with a single value that
 *   is not 0 or 1: a t interval needs two);
 * - the window's mean gets a confidence interval (confidence-interval.ts):
 *   Wilson when every value is 0 or 1 (a pass rate), Student-t otherwise —
 *   but Wilson over the values' sum for a rule that holds a share at zero
 *   ("= 0", "<= 0": retrieval's permission_violation_rate, a share of each
 *   request's chunks), where any value above 0 breaks the rule for certain
 *   (zeroToleranceRule);
 * - an alert FIRES when the whole interval is on the wrong side of the
 *   threshold: for ">= 0.92", its upper bound is below 0.92. 3 failures in 20
 *   samples (a pass rate of 0.85, Wilson 95 % interval 0.64–0.95) do not
 *   fire; a stream that dropped to 0.80 does once the interval is below 0.92;
 * - a firing alert RESOLVES when the interval is no longer wholly on the wrong
 *   side AND the mean is back on the right side by the hysteresis margin, a
 *   fraction of the threshold kept within the metric's values
 *   (resolve-target.ts).
 *
 * Each transition is an AlertEvent carrying the trace ids behind it. Time is
 * passed in, so tests and replays control it. A rule on a heuristic metric
 * alerts too (a signal, not a pass), its message labelling the metric
 * " (heuristic)" and saying what decides instead
 * (evaluators/gates/alert-metric-reading.ts: why completeness alerts read the
 * heuristic rather than completeness_judged).
 *
 * A judged metric's window holds an LLM judge's values only: the heuristic
 * judge's measurements (metric-sample.ts `heuristicJudgement`) are kept apart
 * and each event says how many of them the window left out
 * (`heuristic_judgements_left_out`, and its message). Labelling them instead
 * would mix two scales in one mean — the heuristic judge's word overlap and a
 * model's reading, against a threshold written for the model's — so the
 * interval would be neither, and the release gate reads judged metrics
 * without them too (evaluators/aggregate/without-heuristic-judgements.ts).
 * A drop is still seen where a heuristic can see it: the heuristic rule
 * metrics alert, labelled (completeness, heuristic_groundedness…). With the heuristic
 * judge alone a judged rule gets no sample and stays silent; its status
 * counts what it left out.
 *
 * Which alerts are firing outlives the process: the notifier saves each
 * transition's state in the store (store/ports/alert-sink.ts) and a new
 * evaluator is `restore`d from it, so a restart neither fires again an alert
 * that is firing nor forgets it (its resolution keeps the alert_id). The
 * windows are not restored: they fill again from new samples, and until
 * `minSamples` arrive a restored alert keeps its state.
 */
import { formatFixed } from "../../evaluators/format-fixed.js";
import { alertMetricReading } from "../../evaluators/gates/alert-metric-reading.js";
import { metricRange } from "../../evaluators/metric-ranges.js";
import { deterministicId } from "../../contracts/ids.js";
import type { AlertRuleState } from "../../store/ports/alert-sink.js";
import { satisfies, type Threshold } from "../../evaluators/threshold.js";
import type { AlertEvent } from "./alert-event.js";
import { validateAlertRule, type AlertRule } from "./alert-rule.js";
import { meanInterval, wilsonInterval, type Interval } from "./confidence-interval.js";
import { formatAlertNumber } from "./alert-number.js";
import { meanRecovered } from "./resolve-target.js";
import type { MetricSample } from "./metric-sample.js";

interface WindowEntry {
  value: number;
  traceId: string;
  observedAt: number;
}

interface RuleState {
  rule: AlertRule;
  window: Map<string, WindowEntry>;
  /** The heuristic judge's measurements by Case Result, with their observation time: counted, never in the interval. */
  heuristicJudgements: Map<string, number>;
  firing: { alertId: string; firedAt: number } | null;
}

export interface RuleStatus {
  ruleId: string;
  metric: string;
  state: "ok" | "firing";
  sampleCount: number;
  /** The heuristic judge's measurements in the window, left out of the sample. */
  heuristicJudgementsLeftOut: number;
  statistic: "wilson" | "t" | null;
  interval: Interval | null;
}

/**
 * A rule that holds its metric at zero ("= 0", "<= 0"). Over a window of shares (values in [0, 1]: the evaluator's
 * `proportions`) one value above 0 is a certain breach, not noise to discount — the gate file's one-vote vetoes. A
 * Student-t interval would need two values and, over zeros and one 1/3, straddle 0, so the rule would never fire in
 * mixed traffic; the Wilson interval of the values' sum has a lower bound above 0 as soon as one value is above 0 (the
 * sum may be fractional, confidence-interval.ts), and is [0, …] over zeros, so the alert resolves when the window
 * holds none again.
 */
export function zeroToleranceRule(threshold: Threshold): boolean {
  return (threshold.comparator === "=" || threshold.comparator === "<=") && threshold.value === 0;
}

/** Every value in [lower, upper] fails the threshold. */
export function wholeIntervalFails(interval: Pick<Interval, "lower" | "upper">, threshold: Threshold): boolean {
  switch (threshold.comparator) {
    case ">=":
    case ">":
      return !satisfies(interval.upper, threshold);
    case "<=":
    case "<":
      return !satisfies(interval.lower, threshold);
    case "=":
      return !satisfies(interval.lower, { ...threshold, comparator: "<=" }) || !satisfies(interval.upper, { ...threshold, comparator: ">=" });
    case "!=":
      return !satisfies(interval.lower, threshold) && !satisfies(interval.upper, threshold);
  }
}

function describeWindow(rule: AlertRule): string {
  const parts: string[] = [];
  if (rule.windowMs !== null) {
    const units: [number, string][] = [[86_400_000, "d"], [3_600_000, "h"], [60_000, "m"], [1_000, "s"]];
    const [size, unit] = units.find(([ms]) => rule.windowMs! % ms === 0) ?? [1, "ms"];
    parts.push(`${rule.windowMs / size}${unit}`);
  }
  if (rule.windowSamples !== null) parts.push(`last ${rule.windowSamples} samples`);
  return parts.join(", ");
}

/** Up to 4 decimals with printf rounding (ties to even, evaluators/format-fixed.ts), trailing zeros dropped. */
const format = (value: number) => (Number.isInteger(value) ? String(value) : formatFixed(value, 4).replace(/\.?0+$/, ""));

export class AlertEvaluator {
  private readonly states: RuleState[];
  private readonly byMetric = new Map<string, RuleState[]>();

  constructor(rules: readonly AlertRule[]) {
    const ids = new Set<string>();
    for (const rule of rules) {
      const problems = validateAlertRule(rule);
      if (problems.length > 0) throw new Error(problems.join("; "));
      if (ids.has(rule.id)) throw new Error(`alert rule "${rule.id}" is declared twice`);
      ids.add(rule.id);
    }
    this.states = rules.map((rule) => ({ rule, window: new Map(), heuristicJudgements: new Map(), firing: null }));
    for (const state of this.states) {
      const list = this.byMetric.get(state.rule.metric) ?? [];
      list.push(state);
      this.byMetric.set(state.rule.metric, list);
    }
  }

  /**
   * Takes the firing state of each rule as saved by an earlier evaluator.
   * States of rules no longer configured are ignored.
   */
  restore(saved: readonly AlertRuleState[]): void {
    const byId = new Map(this.states.map((state) => [state.rule.id, state]));
    for (const item of saved) {
      const state = byId.get(item.ruleId);
      if (state !== undefined) state.firing = item.firing === null ? null : { ...item.firing };
    }
  }

  /** Adds samples observed at `now` and evaluates the rules of their metrics. */
  observe(samples: readonly MetricSample[], now: number): AlertEvent[] {
    const touched = new Set<RuleState>();
    for (const sample of samples) {
      for (const state of this.byMetric.get(sample.metric) ?? []) {
        // Delete first so a replaced sample moves to the end (most recent); a Case Result is in one map or the other.
        state.window.delete(sample.caseResultId);
        state.heuristicJudgements.delete(sample.caseResultId);
        if (sample.heuristicJudgement) state.heuristicJudgements.set(sample.caseResultId, now);
        else state.window.set(sample.caseResultId, { value: sample.value, traceId: sample.traceId, observedAt: now });
        touched.add(state);
      }
    }
    return [...touched].flatMap((state) => this.evaluateRule(state, now));
  }

  /** Evaluates every rule at `now` (windows slide with time even without new samples). */
  evaluate(now: number): AlertEvent[] {
    return this.states.flatMap((state) => this.evaluateRule(state, now));
  }

  status(now: number): RuleStatus[] {
    return this.states.map((state) => {
      this.prune(state, now);
      const computed = this.compute(state);
      return {
        ruleId: state.rule.id,
        metric: state.rule.metric,
        state: state.firing ? "firing" : "ok",
        sampleCount: state.window.size,
        heuristicJudgementsLeftOut: state.heuristicJudgements.size,
        statistic: computed?.statistic ?? null,
        interval: computed?.interval ?? null,
      };
    });
  }

  private prune(state: RuleState, now: number): void {
    const { windowMs, windowSamples } = state.rule;
    if (windowMs !== null) {
      for (const [key, entry] of state.window) {
        if (entry.observedAt > now - windowMs) break;
        state.window.delete(key);
      }
      for (const [key, observedAt] of state.heuristicJudgements) {
        if (observedAt > now - windowMs) break;
        state.heuristicJudgements.delete(key);
      }
    }
    if (windowSamples !== null) {
      // Each map on its own: a left-out measurement never pushes a sample out of the window.
      for (const map of [state.window, state.heuristicJudgements]) {
        for (const key of map.keys()) {
          if (map.size <= windowSamples) break;
          map.delete(key);
        }
      }
    }
  }

  private compute(state: RuleState): { statistic: "wilson" | "t"; interval: Interval } | null {
    const values = [...state.window.values()].map((entry) => entry.value);
    if (values.length < state.rule.minSamples) return null;
    const proportions = values.every((value) => value >= 0 && value <= 1);
    const binary = values.every((value) => value === 0 || value === 1);
    // Values outside [0, 1] take the t interval whatever the rule, so a zero rule needs no check of its own.
    const wilsonWhenAuto = binary || zeroToleranceRule(state.rule.threshold);
    const statistic = state.rule.statistic === "t" || (state.rule.statistic === "auto" && !wilsonWhenAuto) || !proportions ? "t" : "wilson";
    // min samples may be 1 (a single 0/1 sample has a Wilson interval); one value of any other kind has no t interval.
    if (statistic === "t" && values.length < 2) return null;
    const sum = values.reduce((total, value) => total + value, 0);
    return { statistic, interval: statistic === "wilson" ? wilsonInterval(sum, values.length, state.rule.confidence) : meanInterval(values, state.rule.confidence) };
  }

  private evaluateRule(state: RuleState, now: number): AlertEvent[] {
    this.prune(state, now);
    const computed = this.compute(state);
    if (computed === null) return [];
    const { rule } = state;
    const fails = wholeIntervalFails(computed.interval, rule.threshold);
    if (state.firing === null && fails) {
      const alertId = deterministicId("alert", rule.id, String(now));
      state.firing = { alertId, firedAt: now };
      return [this.event(state, "firing", computed, now)];
    }
    if (state.firing !== null && !fails && meanRecovered(computed.interval.mean, rule.threshold, rule.hysteresis, metricRange(rule.metric))) {
      const event = this.event(state, "resolved", computed, now);
      state.firing = null;
      return [event];
    }
    return [];
  }

  private event(state: RuleState, kind: "firing" | "resolved", computed: { statistic: "wilson" | "t"; interval: Interval }, now: number): AlertEvent {
    const { rule } = state;
    const firing = state.firing!;
    const entries = [...state.window.values()].reverse();
    const failing = entries.filter((entry) => !satisfies(entry.value, rule.threshold));
    const passing = entries.filter((entry) => satisfies(entry.value, rule.threshold));
    const traceIds = [...new Set([...failing, ...passing].map((entry) => entry.traceId))].slice(0, rule.maxTraceIds);
    const { interval, statistic } = computed;
    const percent = `${format(rule.confidence * 100)}%`;
    const reading = alertMetricReading(rule.metric);
    const leftOut = state.heuristicJudgements.size;
    const leftOutNote = leftOut === 0 ? "" : `; ${leftOut} heuristic judge measurement${leftOut === 1 ? "" : "s"} in the window left out (a measurement, never a pass: only an LLM judge's ${rule.metric} is alerted on)`;
    const against = (value: number) => formatAlertNumber(value, rule.threshold.value);
    const summary = `${reading.label} mean ${against(interval.mean)} (${percent} interval ${against(interval.lower)}–${against(interval.upper)}, ${interval.count} samples, window ${describeWindow(rule)})`;
    return {
      event_id: deterministicId("alert_event", firing.alertId, kind),
      alert_id: firing.alertId,
      rule_id: rule.id,
      metric: rule.metric,
      state: kind,
      threshold: rule.threshold.source,
      statistic,
      value: interval.mean,
      lower: interval.lower,
      upper: interval.upper,
      confidence: rule.confidence,
      sample_count: interval.count,
      heuristic_judgements_left_out: leftOut,
      window: describeWindow(rule),
      trace_ids: traceIds,
      at: new Date(now).toISOString(),
      fired_at: new Date(firing.firedAt).toISOString(),
      message: `${kind === "firing" ? `${rule.id} is failing: ${summary} is wholly outside "${rule.threshold.source}"; ${failing.length} of ${interval.count} samples fail it` : `${rule.id} recovered: ${summary} meets "${rule.threshold.source}" again`}${leftOutNote}${reading.note === null ? "" : `. ${reading.note}`}`,
    };
  }
}
