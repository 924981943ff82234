/**
 * The generated Grafana dashboards (dashboards/*.json), read back as what the
 * static report needs to draw the same panels: rows, panel kind, title, unit,
 * per-column overrides and the SQL targets; and the dashboard's variables.
 * Parsed with zod at this boundary; unknown Grafana fields are ignored.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { packageFiles } from "../collector/wiring/config/package-files.js";

export const dashboardsFolder = packageFiles.dashboards;

/** Report order; the files `npm run dashboards` writes. */
export const DASHBOARD_FILE_NAMES = ["rag-quality.json", "failures.json", "runs.json", "collector-health.json"];

const target = z.object({ refId: z.string(), rawSql: z.string(), format: z.number() });

const override = z.object({
  matcher: z.object({ id: z.string(), options: z.unknown() }),
  properties: z.array(z.object({ id: z.string(), value: z.unknown() })),
});

const panel = z.object({
  id: z.number(),
  type: z.string(),
  title: z.string().default(""),
  description: z.string().default(""),
  gridPos: z.object({ w: z.number(), h: z.number() }).optional(),
  targets: z.array(target).default([]),
  options: z.record(z.string(), z.unknown()).default({}),
  fieldConfig: z
    .object({
      defaults: z
        .object({
          unit: z.string().optional(),
          decimals: z.number().optional(),
          displayName: z.string().optional(),
          custom: z.record(z.string(), z.unknown()).default({}),
        })
        .default({ custom: {} }),
      overrides: z.array(override).default([]),
    })
    .default({ defaults: { custom: {} }, overrides: [] }),
});

const variable = z.object({ type: z.string(), name: z.string(), query: z.unknown().optional(), multi: z.boolean().optional(), includeAll: z.boolean().optional() });

const dashboardFile = z.object({
  uid: z.string(),
  title: z.string(),
  description: z.string().default(""),
  templating: z.object({ list: z.array(variable).default([]) }).default({ list: [] }),
  panels: z.array(panel).default([]),
});

export type PanelKind = "stat" | "timeseries" | "table" | "barchart";

export interface ColumnSettings {
  unit?: string;
  decimals?: number;
  link?: { title: string; url: string };
}

export interface ReportPanel {
  id: number;
  kind: PanelKind;
  title: string;
  description: string;
  /** Grid columns of 24. */
  width: number;
  unit: string;
  decimals: number | null;
  columns: Map<string, ColumnSettings>;
  targets: { refId: string; rawSql: string; format: number }[];
  stacked: boolean;
  bars: boolean;
  xField: string | null;
}

export interface ReportRow {
  title: string;
  panels: ReportPanel[];
}

export interface ReportVariable {
  name: string;
  type: string;
  query: string | null;
  multi: boolean;
  includeAll: boolean;
}

export interface ReportDashboard {
  uid: string;
  title: string;
  description: string;
  variables: ReportVariable[];
  rows: ReportRow[];
}

const KINDS = new Set<string>(["stat", "timeseries", "table", "barchart"]);

function toReportPanel(raw: z.infer<typeof panel>): ReportPanel {
  if (!KINDS.has(raw.type)) throw new Error(`panel ${raw.id} "${raw.title}" is a ${raw.type}; the report draws stat, timeseries, table and barchart panels`);
  const columns = new Map<string, ColumnSettings>();
  for (const entry of raw.fieldConfig.overrides) {
    if (entry.matcher.id !== "byName" || typeof entry.matcher.options !== "string") continue;
    const settings: ColumnSettings = {};
    for (const property of entry.properties) {
      if (property.id === "unit" && typeof property.value === "string") settings.unit = property.value;
      if (property.id === "decimals" && typeof property.value === "number") settings.decimals = property.value;
      if (property.id === "links" && Array.isArray(property.value) && property.value[0]) {
        const link = property.value[0] as { title?: unknown; url?: unknown };
        if (typeof link.title === "string" && typeof link.url === "string") settings.link = { title: link.title, url: link.url };
      }
    }
    columns.set(entry.matcher.options, settings);
  }
  const custom = raw.fieldConfig.defaults.custom;
  const stacking = custom.stacking as { mode?: string } | undefined;
  return {
    id: raw.id,
    kind: raw.type as PanelKind,
    title: raw.title,
    description: raw.description,
    width: raw.gridPos?.w ?? 24,
    unit: raw.fieldConfig.defaults.unit ?? "none",
    decimals: raw.fieldConfig.defaults.decimals ?? null,
    columns,
    targets: raw.targets,
    stacked: stacking?.mode === "normal",
    bars: custom.drawStyle === "bars",
    xField: typeof raw.options.xField === "string" ? raw.options.xField : null,
  };
}

export function toReportDashboard(document: unknown): ReportDashboard {
  const parsed = dashboardFile.parse(document);
  const rows: ReportRow[] = [];
  for (const raw of parsed.panels) {
    if (raw.type === "row") {
      rows.push({ title: raw.title, panels: [] });
      continue;
    }
    if (rows.length === 0) rows.push({ title: "", panels: [] });
    rows[rows.length - 1]!.panels.push(toReportPanel(raw));
  }
  return {
    uid: parsed.uid,
    title: parsed.title,
    description: parsed.description,
    variables: parsed.templating.list.map((entry) => ({
      name: entry.name,
      type: entry.type,
      query: typeof entry.query === "string" ? entry.query : null,
      multi: entry.multi ?? false,
      includeAll: entry.includeAll ?? false,
    })),
    rows,
  };
}

export async function readDashboards(folder = dashboardsFolder, names = DASHBOARD_FILE_NAMES): Promise<ReportDashboard[]> {
  const dashboards: ReportDashboard[] = [];
  for (const name of names) dashboards.push(toReportDashboard(JSON.parse(await readFile(path.join(folder, name), "utf8"))));
  return dashboards;
}
