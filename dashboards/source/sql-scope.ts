/**
 * The WHERE clause every panel shares: the dashboard's time range and its
 * service, tenant, dataset and run variables.
 *
 * `$__conditionalAll(cond, $var)` becomes `1=1` when "All" is selected
 * (interop.md §7, a frontend macro), so an unfiltered dashboard does not send
 * an IN list of every value. Every column named here exists in metric_values
 * and in case_results (deploy/clickhouse/migrations/0001_core_tables.sql).
 *
 * Variable values reach SQL only percent-encoded. A value can come from a URL
 * (`var-run=…`) or from the store (variables list stored run ids), so it is
 * untrusted. Grafana's `sqlstring` format doubles `'` but leaves `\`, and
 * ClickHouse reads `\'` inside a string literal as an escaped quote: a value
 * such as `\' OR 1=1 --` breaks out of the literal. `percentencode`
 * (encodeURIComponent plus `!'()*`) leaves only `A-Z a-z 0-9 - _ . ~ %`, which
 * can end nothing inside `'…'`; ClickHouse's decodeURLComponent restores the
 * value exactly. A multi-value variable is encoded as `{a,b}` and split on
 * commas (identifiers hold no commas: contracts/identifiers.ts). No `$` may
 * appear in a condition: the plugin splices `$__conditionalAll` with
 * String.replace, which reads `$'` and `$&` as patterns.
 */
export const FILTER_VARIABLES = [
  { name: "service", label: "Service", column: "service_name" },
  { name: "tenant", label: "Tenant", column: "tenant_id" },
  { name: "dataset", label: "Dataset", column: "dataset_id" },
  { name: "run", label: "Run", column: "run_id" },
] as const;

/** The value of a single-value variable as an SQL expression, whatever it holds. */
export function variableValue(name: string): string {
  return `decodeURLComponent('\${${name}:percentencode}')`;
}

/** The values of a multi-value variable as an SQL Array(String) expression, whatever they hold. */
export function variableValues(name: string): string {
  return `splitByChar(',', replaceRegexpAll(decodeURLComponent('\${${name}:percentencode}'), '[{}]', ''))`;
}

export function variableFilters(): string {
  return FILTER_VARIABLES.map((variable) => `$__conditionalAll(has(${variableValues(variable.name)}, ${variable.column}), \${${variable.name}})`).join(" AND ");
}

/** A scope: given the source's time column, the condition rows must meet. */
export type Scope = (timeColumn: string) => string;

/** Dashboards: the panel's time range and the variables. */
export const dashboardScope: Scope = (timeColumn) => `$__timeFilter(${timeColumn}) AND ${variableFilters()}`;

/**
 * Dashboards' range panels: whole hours of the metric rollups where the range holds them, the sessions inside the
 * range from their summaries (aggregate-metrics.ts RangeReading). `$__timeFilter` includes both ends, as overlaps does.
 */
export const dashboardHours = {
  inRange: (timeColumn: string) => `$__timeFilter(${timeColumn})`,
  filters: variableFilters(),
  overlaps: (firstColumn: string, lastColumn: string) => `${firstColumn} <= $__toTime AND ${lastColumn} >= $__fromTime`,
};

/** Dashboards' panels over time: whole hours where the range holds them and the buckets are whole hours. */
export const dashboardHoursOverTime = { ...dashboardHours, bucketSeconds: "$__interval_s" };

/** Alert rules run on Grafana's backend, without dashboard variables (interop.md §7): the time range only. */
export const alertScope: Scope = (timeColumn) => `$__timeFilter(${timeColumn})`;

/** Quotes a literal for ClickHouse SQL (only our own constants reach here). */
export function sqlString(value: string): string {
  return `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

export function sqlList(values: readonly string[]): string {
  return values.map(sqlString).join(", ");
}
