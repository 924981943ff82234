/**
 * The alert rules on /metrics, for `ragscope serve` and the evaluator of
 * `ragscope evaluate` / `ragscope collect` (the processes that evaluate alert
 * rules), so an operator sees which rules are firing, which cannot decide yet,
 * and how near a rule is to its threshold, without reading alert events (they
 * come only when a rule fires or resolves):
 *
 * - `ragscope_alert_rule_state{rule_id,metric,state}`: one series per state,
 *   the current one at 1, the others at 0 (a Prometheus state set, as
 *   kube_pod_status_phase). `firing`: the alert is firing (also one restored
 *   firing after a restart whose window has not refilled: it stays firing
 *   until its window can resolve it). `insufficient_samples`: not firing, and
 *   the window holds too few samples to decide (fewer than min_samples, or a
 *   single value that is not 0 or 1: a t interval needs two), so the rule is
 *   silent for want of data, not because the metric is fine. `ok`: not firing
 *   and the window decides. Without it a silent rule with an empty window
 *   would look like a healthy one.
 * - `ragscope_alert_rule_window_samples`: the samples the window holds now.
 * - `ragscope_alert_rule_window_mean`, `…_window_interval_lower`,
 *   `…_window_interval_upper`: the mean and confidence interval the rule
 *   decides on (collector/10-alert/alert-evaluator.ts). A rule without an
 *   interval has no series: there is no mean, and a 0 would read as one.
 * - `ragscope_alert_heuristic_judgements_left_out`: how many of the heuristic
 *   judge's measurements each rule's window left out (alert-evaluator.ts says
 *   why a judged metric alerts on an LLM judge's values only). Without it a
 *   judged rule fed by the heuristic judge alone stays silent and nothing
 *   says why; the alert events carry the same count, but only once a rule
 *   fires or resolves.
 *
 * Read at scrape time from the evaluator (AlertNotifier.status), so they
 * always agree with the window the next evaluation reads. Every configured
 * rule has its state, sample and left-out series from the start (the samples
 * at 0, as the judge's counters); no rules (no gate file, or alerts evaluated
 * elsewhere): no series.
 */
import type { RuleStatus } from "../../10-alert/alert-evaluator.js";
import type { AlertNotifier } from "../../10-alert/alert-notifier.js";
import type { Interval } from "../../10-alert/confidence-interval.js";
import type { MetricsRegistry, Sample } from "./metrics-registry.js";

const ALERT_RULE_STATES = ["ok", "firing", "insufficient_samples"] as const;
type AlertRuleStateLabel = (typeof ALERT_RULE_STATES)[number];

/** The state /metrics shows: the alert's own state first (a firing alert stays firing), then whether the window decides. */
function alertRuleState(rule: Pick<RuleStatus, "state" | "interval">): AlertRuleStateLabel {
  if (rule.state === "firing") return "firing";
  return rule.interval === null ? "insufficient_samples" : "ok";
}

/** @param alerts the online stage's notifier (OnlineStageParts.alerts); null where no alert rule is evaluated. */
export function registerAlertRuleMetrics(registry: MetricsRegistry, alerts: AlertNotifier | null): void {
  const rules = () => alerts?.status() ?? [];
  const labelsOf = (rule: RuleStatus) => ({ rule_id: rule.ruleId, metric: rule.metric });
  const ofInterval = (read: (interval: Interval) => number) => (): Sample[] =>
    rules().flatMap((rule) => (rule.interval === null ? [] : [{ labels: labelsOf(rule), value: read(rule.interval) }]));

  registry.gauge(
    "ragscope_alert_rule_state",
    "each alert rule's state, 1 for the current one and 0 for the others: firing (the alert is firing), insufficient_samples (not firing, and the window holds fewer samples than min_samples, or a single value that is not 0 or 1: silent for want of data, not because the metric is fine), ok (not firing, the window decides)",
    () =>
      rules().flatMap((rule) => {
        const current = alertRuleState(rule);
        return ALERT_RULE_STATES.map((state) => ({ labels: { ...labelsOf(rule), state }, value: state === current ? 1 : 0 }));
      }),
  );
  registry.gauge(
    "ragscope_alert_rule_window_samples",
    "the samples each alert rule's window holds now, one per evaluated trace (the heuristic judge's measurements of a judged metric are not samples: see ragscope_alert_heuristic_judgements_left_out)",
    () => rules().map((rule) => ({ labels: labelsOf(rule), value: rule.sampleCount })),
  );
  registry.gauge(
    "ragscope_alert_rule_window_mean",
    "the mean of each alert rule's window; no series while the window cannot decide (ragscope_alert_rule_state insufficient_samples)",
    ofInterval((interval) => interval.mean),
  );
  registry.gauge(
    "ragscope_alert_rule_window_interval_lower",
    "the lower bound of the confidence interval of each alert rule's window mean (Wilson for 0/1 values, Student-t otherwise; at RAGSCOPE_ALERT_CONFIDENCE, 0.95 by default): a rule fires when the whole interval is on the wrong side of its threshold; no series while the window cannot decide",
    ofInterval((interval) => interval.lower),
  );
  registry.gauge(
    "ragscope_alert_rule_window_interval_upper",
    "the upper bound of the confidence interval of each alert rule's window mean (see ragscope_alert_rule_window_interval_lower); no series while the window cannot decide",
    ofInterval((interval) => interval.upper),
  );
  registry.gauge(
    "ragscope_alert_heuristic_judgements_left_out",
    "the heuristic judge's measurements in each alert rule's window, left out of its interval: a judged metric (faithfulness, answer_correctness, ...) alerts on an LLM judge's values only, so a rule fed by the heuristic judge alone never fires",
    () => rules().map((rule) => ({ labels: labelsOf(rule), value: rule.heuristicJudgementsLeftOut })),
  );
}
