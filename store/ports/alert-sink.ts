/**
 * Where the alert evaluator's transitions and state are kept.
 *
 * `record` keeps each transition (firing, resolved), keyed by its
 * deterministic event_id: a retried or replayed event is kept once.
 * `saveState`/`loadState` keep, per rule, whether an alert is firing and
 * since when, so an evaluator started again on the same store neither fires
 * an alert that is already firing nor forgets one (collector/10-alert/
 * alert-evaluator.ts `restore`). The latest saved state of a rule wins.
 */
import type { Result } from "../../core/result.js";
import type { AlertEvent } from "../../collector/10-alert/alert-event.js";
import type { SinkFailure } from "./result-sink.js";

export interface AlertRuleState {
  ruleId: string;
  /** The firing alert, or null when the rule is ok. */
  firing: { alertId: string; firedAt: number } | null;
  /** When this state was reached (epoch ms): the newer state of a rule replaces the older. */
  updatedAt: number;
}

export interface AlertSink {
  record(events: readonly AlertEvent[]): Promise<Result<void, SinkFailure>>;
  saveState(states: readonly AlertRuleState[]): Promise<Result<void, SinkFailure>>;
  /** The latest state of every rule ever saved, in rule id order. */
  loadState(): Promise<AlertRuleState[]>;
}

/** The state a transition leaves its rule in. */
export function stateAfter(event: AlertEvent): AlertRuleState {
  const at = Date.parse(event.at);
  return { ruleId: event.rule_id, firing: event.state === "firing" ? { alertId: event.alert_id, firedAt: Date.parse(event.fired_at) } : null, updatedAt: at };
}
