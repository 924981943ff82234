/**
 * What the static report needs to run the generated dashboards' panel
 * queries as Grafana would: the dashboards are written in ClickHouse SQL, so
 * only the ClickHouse adapter implements this surface. Columns come back with
 * the engine's type names; times as ISO 8601 with a zone, 64-bit integers as
 * numbers.
 */
export interface QueryColumns {
  meta: { name: string; type: string }[];
  data: unknown[][];
}

export interface DashboardQuerySurface {
  /** Database the unqualified table names of a panel query refer to. */
  readonly database: string;
  describe(): string;
  query(sql: string): Promise<QueryColumns>;
}
