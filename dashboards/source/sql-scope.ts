/**
 * The WHERE clause every panel shares: the dashboard's time range and its
 * service, tenant, dataset and run variables.
 *
 * `$__conditionalAll(cond, $var)` becomes `1=1` when "All" is selected
 * (interop.md §7, a frontend macro), so an unfiltered dashboard does not send
 * an IN list of every value. `${var:sqlstring}` quotes each value and doubles
 * its single quotes. Every column named here exists in metric_values and in
 * case_results (deploy/clickhouse/migrations/0001_core_tables.sql).
 */
export const FILTER_VARIABLES = [
  { name: "service", label: "Service", column: "service_name" },
  { name: "tenant", label: "Tenant", column: "tenant_id" },
  { name: "dataset", label: "Dataset", column: "dataset_id" },
  { name: "run", label: "Run", column: "run_id" },
] as const;

export function variableFilters(): string {
  return FILTER_VARIABLES.map((variable) => `$__conditionalAll(${variable.column} IN (\${${variable.name}:sqlstring}), \${${variable.name}})`).join(" AND ");
}

/** A scope: given the source's time column, the condition rows must meet. */
export type Scope = (timeColumn: string) => string;

/** Dashboards: the panel's time range and the variables. */
export const dashboardScope: Scope = (timeColumn) => `$__timeFilter(${timeColumn}) AND ${variableFilters()}`;

/** Alert rules run on Grafana's backend, without dashboard variables (interop.md §7): the time range only. */
export const alertScope: Scope = (timeColumn) => `$__timeFilter(${timeColumn})`;

/** Quotes a literal for ClickHouse SQL (only our own constants reach here). */
export function sqlString(value: string): string {
  return `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

export function sqlList(values: readonly string[]): string {
  return values.map(sqlString).join(", ");
}
