/**
 * A state transition of an alert rule: firing, or resolved. Both are recorded
 * and delivered (issue 6: "firing and resolving are both recorded"). A firing
 * and its resolution share `alert_id`; each transition has its own
 * deterministic `event_id`, so a delivery retried or replayed lands once in
 * the alerts table.
 */
export type AlertState = "firing" | "resolved";

export interface AlertEvent {
  event_id: string;
  alert_id: string;
  rule_id: string;
  metric: string;
  state: AlertState;
  /** The rule's threshold as written (">= 0.92"). */
  threshold: string;
  statistic: "wilson" | "t";
  /** The window's mean and its confidence interval. */
  value: number;
  lower: number;
  upper: number;
  confidence: number;
  sample_count: number;
  /**
   * The heuristic judge's measurements of the metric in the window, left out of the sample (alert-evaluator.ts):
   * a measurement never counts as an LLM judge's value. 0 for every metric no heuristic judge scores.
   */
  heuristic_judgements_left_out: number;
  /** The window as configured, e.g. "15m" or "last 200 samples". */
  window: string;
  /** Traces behind the alert: those failing the threshold first, most recent first. */
  trace_ids: string[];
  /** When this transition happened. */
  at: string;
  /** When the alert started firing. */
  fired_at: string;
  message: string;
}
