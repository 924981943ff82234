/**
 * Fetches what the static report shows: for each generated dashboard, its
 * variables resolved as Grafana would (query variables run their query;
 * filters default to "All", the run pair to the first option of each list,
 * i.e. the latest run and the one before it), then every panel's queries.
 * A textbox variable with no value takes the first value of the same-named
 * column of an earlier table (the failing cases table gives the trace shown).
 */
import type { DashboardQuerySurface } from "../store/ports/dashboard-query-surface.js";
import type { ReportDashboard, ReportPanel } from "./dashboard-files.js";
import { allOf, interpolateTitle, renderPanelSql, type MacroContext, type VariableState } from "./grafana-macros.js";
import { executableSql, runQuery, type Frame } from "./panel-data.js";
import { panelIntervalMs } from "./panel-interval.js";

export interface ReportSelection {
  fromMs: number;
  toMs: number;
  /** Values chosen for variables by name; unset filters are "All". */
  values: Record<string, string[]>;
}

export interface PanelResult {
  panel: ReportPanel;
  frames: Frame[];
  error: string | null;
}

export interface DashboardResult {
  dashboard: ReportDashboard;
  variables: Record<string, VariableState>;
  /** Why the dashboard shows nothing, when it cannot (no runs to compare). */
  skipped: string | null;
  panels: Map<number, PanelResult>;
  /** This dashboard's own time range, when it is not the report's, and why (the collector health board runs to its latest snapshot). */
  range?: { fromMs: number; toMs: number; why: string };
}

/** Points a time series panel may show (Grafana: the panel's width in pixels). */
export const REPORT_MAX_DATA_POINTS = 60;

async function variableOptions(surface: DashboardQuerySurface, query: string, context: MacroContext): Promise<string[]> {
  const frame = await runQuery(surface, "variable", executableSql(query, surface.database, {}, context));
  return (frame.fields[0]?.values ?? []).filter((value): value is string | number => value !== null).map(String);
}

function usesVariable(panel: ReportPanel, name: string): boolean {
  const pattern = new RegExp(`\\$\\{${name}(?::\\w+)?\\}|\\$${name}\\b`);
  return panel.targets.some((target) => pattern.test(target.rawSql));
}

export async function collectDashboard(surface: DashboardQuerySurface, dashboard: ReportDashboard, selection: ReportSelection): Promise<DashboardResult> {
  const context: MacroContext = { fromMs: selection.fromMs, toMs: selection.toMs, intervalMs: panelIntervalMs(selection.fromMs, selection.toMs, REPORT_MAX_DATA_POINTS) };
  const variables: Record<string, VariableState> = {};
  const unset = new Set<string>();
  for (const variable of dashboard.variables) {
    const chosen = selection.values[variable.name];
    if (variable.type !== "query" || variable.query === null) {
      if (chosen && chosen.length > 0) variables[variable.name] = { value: chosen[0]! };
      else unset.add(variable.name);
      continue;
    }
    const options = await variableOptions(surface, variable.query, context);
    if (chosen && chosen.length > 0) variables[variable.name] = { value: variable.multi ? chosen : chosen[0]!, options };
    else if (variable.includeAll) variables[variable.name] = allOf(options);
    else if (options.length > 0) variables[variable.name] = { value: options[0]!, options };
    else unset.add(variable.name);
  }
  const result: DashboardResult = { dashboard, variables, skipped: null, panels: new Map() };
  if (variables.baseline && variables.candidate && variables.baseline.value === variables.candidate.value) {
    result.skipped = `only one offline run is stored (${String(variables.candidate.value)}): there is nothing to compare it with`;
    return result;
  }
  const missing = dashboard.variables.filter((variable) => variable.type === "query" && unset.has(variable.name));
  if (missing.length > 0) {
    result.skipped = `no value for ${missing.map((variable) => variable.name).join(", ")}: nothing stored yet`;
    return result;
  }
  for (const row of dashboard.rows) {
    for (const panel of row.panels) {
      const waiting = [...unset].filter((name) => usesVariable(panel, name));
      if (waiting.length > 0) {
        result.panels.set(panel.id, { panel, frames: [], error: `no value for ${waiting.join(", ")}` });
        continue;
      }
      try {
        const frames: Frame[] = [];
        for (const target of panel.targets) frames.push(await runQuery(surface, target.refId, executableSql(target.rawSql, surface.database, variables, context)));
        result.panels.set(panel.id, { panel, frames, error: null });
        for (const name of [...unset]) {
          const first = frames[0]?.fields.find((field) => field.name === name)?.values[0];
          if (typeof first === "string" && first !== "") {
            variables[name] = { value: first };
            unset.delete(name);
          }
        }
      } catch (error) {
        result.panels.set(panel.id, { panel, frames: [], error: error instanceof Error ? error.message : String(error) });
      }
    }
  }
  return result;
}

/** Row and panel titles may name variables (`Trace $trace_id`). */
export function titleWithVariables(title: string, variables: Record<string, VariableState>): string {
  return interpolateTitle(title, variables);
}
