/**
 * AlertSink on ClickHouse. Transitions go to the `alerts` table (migration
 * 0004): one row per transition, keyed by event_id — a retried or replayed
 * delivery collapses under FINAL. An insert's deduplication token is a hash of
 * its events' payloads (every value of the row but its version, which a retry
 * takes anew): a retried insert of the same events is dropped by the server,
 * whereas one of the same event ids with other values (a transition computed
 * again after a restart) is stored, and its later version read. A token of
 * the event ids alone had the server drop that one too, keeping the earlier
 * values where the in-memory sink keeps the later. The event's `window` is stored as
 * `window_spec` (WINDOW is an SQL keyword); `payload` keeps the event as is.
 * Rule states go to `alert_state` (migration 0006), one row per rule, the
 * latest `updated_at` winning.
 */
import { createHash } from "node:crypto";
import { failure, success, type Result } from "../../core/result.js";
import type { AlertEvent } from "../../collector/10-alert/alert-event.js";
import type { AlertRuleState, AlertSink } from "../ports/alert-sink.js";
import type { SinkFailure } from "../ports/result-sink.js";
import { quoteIdentifier, type ClickHouseConnection } from "./clickhouse-connection.js";
import { RowVersionClock } from "../row-version-clock.js";

interface AlertStateRow {
  rule_id: string;
  state: string;
  alert_id: string;
  fired_at_ms: string | number;
  updated_at_ms: string | number;
}

const describeError = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class ClickHouseAlertSink implements AlertSink {
  private readonly database: string;

  constructor(
    private readonly connection: ClickHouseConnection,
    /**
     * The store's row versions (row-version-clock.ts). One event_id's rows are one transition (its alert, a rule's
     * firing millisecond, and its kind), usually the same event delivered again; but a transition computed again
     * (after a restart whose state was not saved) differs in its time and values, and then the one recorded later
     * is kept, as the in-memory sink keeps it, whatever the clock did meanwhile. Versioned by the clock alone, a clock
     * stepped back kept the earlier.
     */
    private readonly versions: RowVersionClock = new RowVersionClock(),
  ) {
    this.database = quoteIdentifier(connection.database);
  }

  async record(events: readonly AlertEvent[]): Promise<Result<void, SinkFailure>> {
    if (events.length === 0) return success(undefined);
    const version = this.versions.next();
    const hash = createHash("sha256");
    const values = events.map(({ window, ...event }) => {
      const payload = JSON.stringify({ ...event, window });
      hash.update(payload);
      return { ...event, window_spec: window, payload, version };
    });
    try {
      await this.connection.client.insert({
        table: `${this.database}.alerts`,
        values,
        format: "JSONEachRow",
        clickhouse_settings: { date_time_input_format: "best_effort", insert_deduplication_token: hash.digest("hex") },
      });
    } catch (error) {
      return failure({ retriable: true, message: `writing alert events failed: ${describeError(error)}` });
    }
    return success(undefined);
  }

  async saveState(states: readonly AlertRuleState[]): Promise<Result<void, SinkFailure>> {
    if (states.length === 0) return success(undefined);
    try {
      await this.connection.client.insert({
        table: `${this.database}.alert_state`,
        values: states.map((state) => ({
          rule_id: state.ruleId,
          state: state.firing === null ? "ok" : "firing",
          alert_id: state.firing?.alertId ?? "",
          fired_at: state.firing === null ? null : new Date(state.firing.firedAt).toISOString(),
          updated_at: new Date(state.updatedAt).toISOString(),
        })),
        format: "JSONEachRow",
        clickhouse_settings: { date_time_input_format: "best_effort" },
      });
    } catch (error) {
      return failure({ retriable: true, message: `writing alert state failed: ${describeError(error)}` });
    }
    return success(undefined);
  }

  async loadState(): Promise<AlertRuleState[]> {
    const result = await this.connection.client.query({
      query: `SELECT rule_id, state, alert_id, toUnixTimestamp64Milli(fired_at) AS fired_at_ms, toUnixTimestamp64Milli(updated_at) AS updated_at_ms FROM ${this.database}.alert_state FINAL ORDER BY rule_id`,
      format: "JSONEachRow",
    });
    return (await result.json<AlertStateRow>()).map((row) => ({
      ruleId: row.rule_id,
      firing: row.state === "firing" ? { alertId: row.alert_id, firedAt: Number(row.fired_at_ms) } : null,
      updatedAt: Number(row.updated_at_ms),
    }));
  }
}
