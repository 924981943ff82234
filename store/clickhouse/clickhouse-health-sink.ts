/**
 * HealthSink on ClickHouse: `collector_health` (migration 0002). The
 * deduplication token names the instance and snapshot time, so a retried
 * insert of the same snapshot is dropped by the engine.
 */
import { failure, success, type Result } from "../../core/result.js";
import type { HealthRow, HealthSink } from "../ports/health-sink.js";
import type { SinkFailure } from "../ports/result-sink.js";
import { quoteIdentifier, type ClickHouseConnection } from "./clickhouse-connection.js";

export class ClickHouseHealthSink implements HealthSink {
  constructor(private readonly connection: ClickHouseConnection) {}

  async write(rows: readonly HealthRow[]): Promise<Result<void, SinkFailure>> {
    if (rows.length === 0) return success(undefined);
    try {
      await this.connection.client.insert({
        table: `${quoteIdentifier(this.connection.database)}.collector_health`,
        values: [...rows],
        format: "JSONEachRow",
        clickhouse_settings: { date_time_input_format: "best_effort", insert_deduplication_token: [...new Set(rows.map((row) => `${row.instance}:${row.ts}`))].join(",") },
      });
    } catch (error) {
      return failure({ retriable: true, message: `writing collector health failed: ${error instanceof Error ? error.message : String(error)}` });
    }
    return success(undefined);
  }
}
