/**
 * Dashboards name tables without a database: in Grafana the data source's
 * default database supplies it (the plugin connects with
 * `Auth.Database = defaultDatabase`). The embedded engine has no per-query
 * default database, so the report prefixes the database to every table a
 * FROM or JOIN names. The dashboards write keywords in upper case, so only
 * upper-case FROM and JOIN count (a lower-case "from" in a string is left).
 */
import { quoteIdentifier } from "../store/clickhouse/clickhouse-connection.js";

/** The tables of deploy/clickhouse/migrations that dashboards read. */
export const DASHBOARD_TABLES = ["case_results", "evaluation_results", "metric_values", "metric_rollups", "metric_rollups_hourly", "request_rollups", "session_rollups", "session_rollups_by_session", "session_summaries", "root_cause_rollups", "abstention_rollups", "stage_rollups", "eval_cases", "runs", "collector_health", "human_labels"] as const;

const REFERENCE = new RegExp(`\\b(FROM|JOIN)(\\s+)(${DASHBOARD_TABLES.join("|")})\\b`, "g");

export function qualifyTables(sql: string, database: string): string {
  const name = quoteIdentifier(database);
  return sql.replace(REFERENCE, (_match, keyword: string, space: string, table: string) => `${keyword}${space}${name}.${table}`);
}

/** Table references as `FROM x` / `JOIN x` (without a database): what qualifyTables rewrites. */
export function tableReferences(sql: string): { table: string; final: boolean }[] {
  const references: { table: string; final: boolean }[] = [];
  const pattern = new RegExp(`\\b(?:FROM|JOIN)\\s+(${DASHBOARD_TABLES.join("|")})\\b(\\s+FINAL\\b)?`, "g");
  for (let match = pattern.exec(sql); match !== null; match = pattern.exec(sql)) references.push({ table: match[1]!, final: match[2] !== undefined });
  return references;
}
