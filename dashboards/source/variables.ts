/**
 * Dashboard variables. Lists come from case_results (one row per request,
 * much smaller than metric_values) within the dashboard's time range; empty
 * values (online traffic has no run, an unknown tenant is "") are left out of
 * the list and still included by "All".
 */
import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import { CLICKHOUSE_DATASOURCE } from "./datasource.js";
import { FILTER_VARIABLES } from "./sql-scope.js";

function queryVariable(name: string, label: string, sql: string): dashboard.QueryVariableBuilder {
  return new dashboard.QueryVariableBuilder(name)
    .label(label)
    .datasource({ ...CLICKHOUSE_DATASOURCE })
    .query(sql)
    .definition(sql)
    .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
    .sort(dashboard.VariableSort.Disabled);
}

/** service, tenant, dataset, run: multi-value, "All" by default. */
export function filterVariables(): dashboard.QueryVariableBuilder[] {
  return FILTER_VARIABLES.map((variable) =>
    queryVariable(
      variable.name,
      variable.label,
      `SELECT ${variable.column} FROM case_results FINAL WHERE $__timeFilter(started_at) AND ${variable.column} != '' GROUP BY ${variable.column} ORDER BY max(started_at) DESC`,
    )
      .multi(true)
      .includeAll(true)
      .current({ text: "All", value: "$__all" }),
  );
}

/**
 * The two offline runs to compare. Not bound to the time range: a baseline
 * may be weeks old. The candidate list starts with the latest run, the
 * baseline list with the one before it, so the default compares the last two.
 */
export function runPairVariables(): dashboard.QueryVariableBuilder[] {
  const runs = "SELECT run_id FROM case_results FINAL WHERE run_id != '' GROUP BY run_id";
  return [
    queryVariable("baseline", "Baseline run", `${runs} ORDER BY min(started_at) = (SELECT max(first_started) FROM (SELECT min(started_at) AS first_started FROM case_results FINAL WHERE run_id != '' GROUP BY run_id)), min(started_at) DESC`).refresh(dashboard.VariableRefresh.OnDashboardLoad),
    queryVariable("candidate", "Candidate run", `${runs} ORDER BY min(started_at) DESC`).refresh(dashboard.VariableRefresh.OnDashboardLoad),
  ];
}

/** The trace shown in the Failures dashboard's trace row; the failing cases table links here. */
export function traceVariable(): dashboard.TextBoxVariableBuilder {
  return new dashboard.TextBoxVariableBuilder("trace_id").label("Trace id").defaultValue("");
}
