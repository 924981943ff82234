/**
 * Records alert events in the `alerts` table (deploy/clickhouse/migrations/
 * 0004_alerts.sql): one row per transition, keyed by event_id — a retried or
 * replayed delivery collapses under FINAL. The event's `window` is stored as
 * `window_spec` (WINDOW is an SQL keyword); `payload` keeps the event as is.
 */
import { failure, success, type Result } from "../../core/result.js";
import type { ClickHouseConnection } from "../sink/clickhouse-connection.js";
import { quoteIdentifier } from "../sink/clickhouse-connection.js";
import type { AlertDelivery, DeliveryFailure } from "./alert-delivery.js";
import type { AlertEvent } from "./alert-event.js";

export class ClickHouseAlertDelivery implements AlertDelivery {
  readonly name = "clickhouse alerts";

  constructor(
    private readonly connection: ClickHouseConnection,
    private readonly now: () => number = Date.now,
  ) {}

  async deliver(events: readonly AlertEvent[]): Promise<Result<void, DeliveryFailure>> {
    if (events.length === 0) return success(undefined);
    const version = this.now();
    try {
      await this.connection.client.insert({
        table: `${quoteIdentifier(this.connection.database)}.alerts`,
        values: events.map(({ window, ...event }) => ({ ...event, window_spec: window, payload: JSON.stringify({ ...event, window }), version })),
        format: "JSONEachRow",
        clickhouse_settings: { date_time_input_format: "best_effort", insert_deduplication_token: events.map((event) => event.event_id).join(",") },
      });
    } catch (error) {
      return failure({ retriable: true, message: `${this.name}: ${error instanceof Error ? error.message : String(error)}` });
    }
    return success(undefined);
  }
}
