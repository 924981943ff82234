/**
 * Validates dashboard JSON against Grafana's dashboard model as the Grafana
 * Foundation SDK types it (generated from Grafana's own schemas, interop.md
 * §9): the JSON is written into a TypeScript source as object literals that
 * must `satisfies` the SDK's types — the dashboard, each panel's options and
 * custom field config for its panel plugin, and each target against the
 * ClickHouse plugin's SQL query shape — and the TypeScript compiler checks
 * it. Object literals get excess-property checks, so an unknown or
 * misspelled field is an error, as is a wrong type or an enum value Grafana
 * does not know. The source is held in memory; nothing is written.
 */
import path from "node:path";
import ts from "typescript";
import { projectRoot } from "../../../dashboards/source/generated-files.js";

/** Per panel plugin: the SDK module and its types for options and custom field config. */
const PANEL_TYPES: Record<string, { module: string; options: string; custom: string | null }> = {
  timeseries: { module: "timeseries", options: "Options", custom: "FieldConfig" },
  stat: { module: "stat", options: "Options", custom: null },
  table: { module: "table", options: "Options", custom: "FieldConfig" },
  barchart: { module: "barchart", options: "Options", custom: "FieldConfig" },
};

const PRELUDE = `
import type * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import type * as timeseries from "@grafana/grafana-foundation-sdk/timeseries";
import type * as stat from "@grafana/grafana-foundation-sdk/stat";
import type * as table from "@grafana/grafana-foundation-sdk/table";
import type * as barchart from "@grafana/grafana-foundation-sdk/barchart";
import type { ClickHouseTarget } from "./dashboards/source/clickhouse-query.js";

// JSON holds an enum's values, not the enum: a string enum becomes the union
// of its values; builder-only members (functions) are dropped.
type IsAny<T> = 0 extends 1 & T ? true : false;
type Json<T> = IsAny<T> extends true ? any
  : T extends (...args: any[]) => any ? never
  : T extends string ? \`\${T}\`
  : T extends number | boolean | null | undefined ? T
  : T extends readonly (infer Item)[] ? Json<Item>[]
  : T extends object ? { [Key in keyof T as T[Key] extends (...args: any[]) => any ? never : Key]: Json<T[Key]> }
  : T;
`;

export interface TypeCheckProblem {
  where: string;
  message: string;
}

interface PanelJson {
  type?: string;
  title?: string;
  options?: unknown;
  fieldConfig?: { defaults?: { custom?: unknown } };
  targets?: unknown[];
}

function checks(name: string, document: { panels?: PanelJson[] }): string[] {
  const lines = [`// ${name}`, `(${JSON.stringify(document)}) satisfies Json<dashboard.Dashboard>;`];
  (document.panels ?? []).forEach((panel, index) => {
    const where = `${name} panel ${index + 1} "${panel.title ?? ""}"`;
    if (panel.type === "row") return;
    const types = PANEL_TYPES[panel.type ?? ""];
    if (!types) {
      lines.push(`// ${where}\nconst unknownPanelType${index}: "a panel type the report draws" = ${JSON.stringify(panel.type)};`);
      return;
    }
    lines.push(`// ${where}\n(${JSON.stringify(panel.options ?? {})}) satisfies Json<${types.module}.${types.options}>;`);
    if (types.custom) lines.push(`// ${where}\n(${JSON.stringify(panel.fieldConfig?.defaults?.custom ?? {})}) satisfies Json<${types.module}.${types.custom}>;`);
    for (const target of panel.targets ?? []) lines.push(`// ${where}\n(${JSON.stringify(target)}) satisfies Json<ClickHouseTarget>;`);
  });
  return lines;
}

/** Type-checks dashboard documents (parsed JSON) by name; an empty list means they all conform. */
export function typeCheckDashboards(documents: Record<string, unknown>): TypeCheckProblem[] {
  const fileName = path.join(projectRoot, "dashboard-model.check.ts");
  const source = [PRELUDE, ...Object.entries(documents).flatMap(([name, document]) => checks(name, document as { panels?: PanelJson[] }))].join("\n");
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = ((exists) => (file: string) => file === fileName || exists(file))(host.fileExists.bind(host));
  host.readFile = (file) => (file === fileName ? source : readFile(file));
  host.getSourceFile = (file, languageVersion, onError, shouldCreate) => (file === fileName ? ts.createSourceFile(file, source, languageVersion, true) : getSourceFile(file, languageVersion, onError, shouldCreate));
  const program = ts.createProgram([fileName], options, host);
  const checked = program.getSourceFile(fileName)!;
  const lines = source.split("\n");
  return ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file === checked || diagnostic.file === undefined)
    .map((diagnostic) => {
      const line = diagnostic.start === undefined ? 0 : checked.getLineAndCharacterOfPosition(diagnostic.start).line;
      // The comment above each check names the dashboard and panel.
      let label = "";
      for (let index = line; index >= 0 && label === ""; index -= 1) if (lines[index]!.startsWith("// ")) label = lines[index]!.slice(3);
      return { where: label, message: ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n").slice(0, 400) };
    });
}
