/**
 * DashboardQuerySurface on ClickHouse: runs a panel's SQL as Grafana's
 * ClickHouse data source would.
 *
 * With a tenant scope (report --tenant), every table a panel reads is
 * replaced by the same table restricted to the scope — what a row policy on
 * a ClickHouse server does for a Grafana data source's user: each
 * `<database>.<table> FINAL` that qualifyTables (report/qualify-tables.ts)
 * wrote becomes `(SELECT * FROM <database>.<table> FINAL WHERE <scope>) AS
 * <table>`, the tenants a query parameter. A query that names the database
 * any other way is refused rather than run unscoped.
 *
 * Every query runs under a memory bound (query-memory-bound.ts): one that
 * needs more fails alone, with an error naming the setting to change. FINAL
 * collapses within partitions (final-within-partitions.ts), so a time range
 * reads its own granules only.
 */
import type { DashboardQuerySurface, QueryColumns } from "../ports/dashboard-query-surface.js";
import type { TenantScope } from "../ports/tenant-scope.js";
import { quoteIdentifier, type ClickHouseConnection } from "./clickhouse-connection.js";
import { FINAL_WITHIN_PARTITIONS, withStatementSettings } from "./final-within-partitions.js";
import { DEFAULT_QUERY_MEMORY_MB, isMemoryLimitError, memoryBoundSettings, QueryMemoryLimitError } from "./query-memory-bound.js";
import { TenantFilter, type ScopedTable } from "./tenant-filter.js";

const SCOPED_TABLES: readonly ScopedTable[] = ["case_results", "metric_values", "metric_rollups", "metric_rollups_hourly", "request_rollups", "session_rollups", "session_rollups_by_session", "session_summaries", "root_cause_rollups", "abstention_rollups", "stage_rollups", "human_labels", "evaluation_results", "runs", "eval_cases", "collector_health"];

export class ClickHouseDashboardQueries implements DashboardQuerySurface {
  readonly database: string;
  private readonly tenants: TenantFilter;

  constructor(
    private readonly connection: ClickHouseConnection,
    scope: TenantScope = "all",
    /** max_memory_usage of each query, bytes; 0 = no bound. */
    private readonly memoryBytes = DEFAULT_QUERY_MEMORY_MB * 1024 * 1024,
  ) {
    this.database = connection.database;
    this.tenants = new TenantFilter(quoteIdentifier(connection.database), scope);
  }

  describe(): string {
    return this.connection.describe();
  }

  /** The SQL as the engine receives it: unchanged for "all", each table read restricted to the scope otherwise. */
  scopedSql(sql: string): string {
    if (this.tenants.unrestricted) return sql;
    const database = quoteIdentifier(this.database);
    const escaped = database.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const reference = new RegExp(`${escaped}\\.(${SCOPED_TABLES.join("|")})\\s+FINAL\\b`, "g");
    let restricted = 0;
    const rewritten = sql.replace(reference, (_match, table: ScopedTable) => {
      restricted += 1;
      return `(SELECT * FROM ${database}.${table} FINAL WHERE ${this.tenants.on(table)}) AS ${table}`;
    });
    if (restricted !== sql.split(`${database}.`).length - 1) throw new Error(`a panel query reads the database "${this.database}" other than through "<table> FINAL" of ${SCOPED_TABLES.join(", ")}, so it cannot be restricted to the reader's tenants; it was not run`);
    return rewritten;
  }

  async query(sql: string): Promise<QueryColumns> {
    try {
      return await this.run(sql);
    } catch (error) {
      if (this.connection.embedded) await this.discardLeftOverOutput();
      if (this.memoryBytes > 0 && isMemoryLimitError(error)) throw new QueryMemoryLimitError(this.memoryBytes, error);
      throw error;
    }
  }

  /**
   * chDB 3.4 keeps what a failed query's output format had already written
   * (a JSON head with no rows) and hands it out in front of the next query's
   * result on the session, which then does not parse. A throwaway query right
   * after the failure takes it.
   */
  private async discardLeftOverOutput(): Promise<void> {
    try {
      await (await this.connection.client.query({ query: "SELECT 1", format: "TabSeparated" })).text();
    } catch {
      // Nothing left to take, or the engine is gone: the original error is the one to report.
    }
  }

  private async run(sql: string): Promise<QueryColumns> {
    const result = await this.connection.client.query({
      query: withStatementSettings(this.scopedSql(sql), { ...memoryBoundSettings(this.memoryBytes), ...FINAL_WITHIN_PARTITIONS }),
      query_params: this.tenants.parameters,
      format: "JSONCompact",
      // ISO 8601 with a zone: times read the same whatever the engine's time zone.
      // The restricted table keeps the ALIAS and MATERIALIZED columns panels read (migration 0002): `*` includes them only when asked.
      clickhouse_settings: { date_time_output_format: "iso", output_format_json_quote_64bit_integers: 0, ...(this.tenants.unrestricted ? {} : { asterisk_include_alias_columns: 1, asterisk_include_materialized_columns: 1 }) },
    });
    return (await result.json()) as unknown as QueryColumns;
  }
}
