/**
 * Runs a dashboard panel's queries as Grafana would (grafana-macros.ts)
 * through the store's dashboard query surface and returns typed columns, the report's
 * equivalent of Grafana data frames.
 */
import type { DashboardQuerySurface } from "../store/ports/dashboard-query-surface.js";
import { renderPanelSql, type MacroContext, type Variables } from "./grafana-macros.js";
import { qualifyTables } from "./qualify-tables.js";

export type FieldType = "time" | "number" | "string";

export interface Field {
  name: string;
  /** ClickHouse type as reported by the server. */
  clickhouseType: string;
  type: FieldType;
  /** time: epoch milliseconds; number: finite number or null; string: text. */
  values: (number | string | null)[];
}

export interface Frame {
  refId: string;
  fields: Field[];
  rows: number;
}

export function fieldType(clickhouseType: string): FieldType {
  const inner = clickhouseType.replace(/^(?:Nullable|LowCardinality)\((.*)\)$/, "$1").replace(/^(?:Nullable|LowCardinality)\((.*)\)$/, "$1");
  if (/^(DateTime|Date)/.test(inner)) return "time";
  if (/^(U?Int\d+|Float\d+|Decimal|Bool)/.test(inner)) return "number";
  return "string";
}

function convert(value: unknown, type: FieldType): number | string | null {
  if (value === null || value === undefined) return null;
  if (type === "time") {
    const text = String(value);
    const parsed = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(" ", "T")}Z`);
    return Number.isNaN(parsed) ? null : parsed;
  }
  if (type === "number") {
    const number = typeof value === "boolean" ? Number(value) : Number(value);
    return Number.isFinite(number) ? number : null;
  }
  return String(value);
}

/** The SQL the engine receives for one target: Grafana's interpolation and macros, then the database prefix. */
export function executableSql(rawSql: string, database: string, variables: Variables, context: MacroContext): string {
  return qualifyTables(renderPanelSql(rawSql, variables, context), database);
}

export async function runQuery(surface: DashboardQuerySurface, refId: string, sql: string): Promise<Frame> {
  const body = await surface.query(sql);
  const fields: Field[] = body.meta.map((column, index) => {
    const type = fieldType(column.type);
    return { name: column.name, clickhouseType: column.type, type, values: body.data.map((row) => convert(row[index], type)) };
  });
  return { refId, fields, rows: body.data.length };
}
