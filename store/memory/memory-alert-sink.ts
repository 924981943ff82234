/** AlertSink in memory: one event per event_id, one state per rule (the latest `updatedAt` winning). */
import { success, type Result } from "../../core/result.js";
import type { AlertEvent } from "../../collector/10-alert/alert-event.js";
import type { AlertRuleState, AlertSink } from "../ports/alert-sink.js";
import type { SinkFailure } from "../ports/result-sink.js";

export class MemoryAlertSink implements AlertSink {
  private readonly recorded = new Map<string, AlertEvent>();
  private readonly states = new Map<string, AlertRuleState>();

  async record(events: readonly AlertEvent[]): Promise<Result<void, SinkFailure>> {
    for (const event of events) this.recorded.set(event.event_id, structuredClone(event));
    return success(undefined);
  }

  async saveState(states: readonly AlertRuleState[]): Promise<Result<void, SinkFailure>> {
    for (const state of states) {
      const previous = this.states.get(state.ruleId);
      if (previous === undefined || state.updatedAt >= previous.updatedAt) this.states.set(state.ruleId, structuredClone(state));
    }
    return success(undefined);
  }

  async loadState(): Promise<AlertRuleState[]> {
    return [...this.states.values()].sort((first, second) => (first.ruleId < second.ruleId ? -1 : first.ruleId > second.ruleId ? 1 : 0)).map((state) => structuredClone(state));
  }

  events(): AlertEvent[] {
    return [...this.recorded.values()];
  }
}
