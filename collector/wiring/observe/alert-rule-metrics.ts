/**
 * The alert rules' windows on /metrics, for `ragscope serve` and the evaluator
 * of `ragscope evaluate` / `ragscope collect` (the processes that evaluate
 * alert rules): how many of the heuristic judge's measurements each rule's
 * window left out (collector/10-alert/alert-evaluator.ts says why a judged
 * metric alerts on an LLM judge's values only). Without it a judged rule fed
 * by the heuristic judge alone stays silent and nothing says why; the alert
 * events carry the same count, but only once a rule fires or resolves.
 *
 * Read at scrape time from the evaluator (AlertNotifier.status), so it always
 * agrees with the window the next evaluation reads. Every configured rule has
 * its series from the start, at 0 (as the judge's counters); no rules (no
 * gate file, or alerts evaluated elsewhere): no series.
 */
import type { AlertNotifier } from "../../10-alert/alert-notifier.js";
import type { MetricsRegistry } from "./metrics-registry.js";

/** @param alerts the online stage's notifier (OnlineStageParts.alerts); null where no alert rule is evaluated. */
export function registerAlertRuleMetrics(registry: MetricsRegistry, alerts: AlertNotifier | null): void {
  registry.gauge(
    "ragscope_alert_heuristic_judgements_left_out",
    "the heuristic judge's measurements in each alert rule's window, left out of its interval: a judged metric (faithfulness, answer_correctness, ...) alerts on an LLM judge's values only, so a rule fed by the heuristic judge alone never fires",
    () => (alerts?.status() ?? []).map((rule) => ({ labels: { rule_id: rule.ruleId, metric: rule.metric }, value: rule.heuristicJudgementsLeftOut })),
  );
}
