/** DashboardQuerySurface on ClickHouse: runs a panel's SQL as Grafana's ClickHouse data source would. */
import type { DashboardQuerySurface, QueryColumns } from "../ports/dashboard-query-surface.js";
import type { ClickHouseConnection } from "./clickhouse-connection.js";

export class ClickHouseDashboardQueries implements DashboardQuerySurface {
  readonly database: string;

  constructor(private readonly connection: ClickHouseConnection) {
    this.database = connection.database;
  }

  describe(): string {
    return this.connection.describe();
  }

  async query(sql: string): Promise<QueryColumns> {
    const result = await this.connection.client.query({
      query: sql,
      format: "JSONCompact",
      // ISO 8601 with a zone: times read the same whatever the engine's time zone.
      clickhouse_settings: { date_time_output_format: "iso", output_format_json_quote_64bit_integers: 0 },
    });
    return (await result.json()) as unknown as QueryColumns;
  }
}
