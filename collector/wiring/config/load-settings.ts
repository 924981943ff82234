/**
 * Parses every ragscope setting once, at the command line, into one frozen
 * typed object (settings-schema.ts). Precedence, highest first:
 *   flags > values the command fixes > environment > config file > defaults.
 * (A command fixes what it needs, e.g. `ragscope demo` listens on a free port.)
 *
 * Every problem is reported, each naming where the value came from — the flag,
 * the environment variable, or the config file and the key's path in it — and
 * what to write instead. The origin of every value is kept for
 * `ragscope config`.
 */
import { failure, success, type Result } from "../../../core/result.js";
import type { ConfigFile } from "./config-file.js";
import { unknownVariableProblems } from "./known-variables.js";
import { environmentVariables, listSettings, tableSettings, variableOf } from "./setting-sources.js";
import { sectionFields, sectionNames, settingsSchemaFor, type Settings } from "./settings-schema.js";
import { partsOfCommand } from "./command-parts.js";
import { withRelatedOrigins } from "./related-setting.js";

export type SettingOrigin =
  | { kind: "default" }
  | { kind: "file"; file: string }
  | { kind: "environment"; variable: string }
  | { kind: "command"; command: string }
  | { kind: "flag"; flag: string };

export interface SettingsSources {
  /** `process.env` at the command line; tests pass their own. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** A config file already read (config-file.ts). */
  file?: ConfigFile | null;
  /** Values the command itself sets, by setting path (e.g. "receiver.port"). */
  fixed?: Readonly<Record<string, unknown>>;
  /** Which command fixed them, for messages and `ragscope config`; also which combinations are checked (command-parts.ts). */
  command?: string;
  /** Values of flags given, by setting path, with the flag's name. */
  flags?: Readonly<Record<string, { value: unknown; flag: string }>>;
}

export interface ResolvedSettings {
  settings: Readonly<Settings>;
  /** Where each value came from, by setting path (section.field); absent: the default. */
  origins: ReadonlyMap<string, SettingOrigin>;
}

const splitList = (value: string) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** `name=rate` pairs separated by commas: "checkout=1,search=0.05". */
function parseTable(value: string): Record<string, string> | string {
  const table: Record<string, string> = {};
  for (const pair of splitList(value)) {
    const separator = pair.lastIndexOf("=");
    if (separator <= 0) return `"${pair}" is not name=value; write comma-separated pairs such as checkout=1,search=0.05`;
    table[pair.slice(0, separator).trim()] = pair.slice(separator + 1).trim();
  }
  return table;
}

const isMapping = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** `kafka.brokers[1]`: the path of a key inside a config file. */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  return path.map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? String(part) : `.${String(part)}`)).join("");
}

export function describeOrigin(origin: SettingOrigin | undefined, path: string): string {
  if (origin === undefined || origin.kind === "default") return "default";
  if (origin.kind === "flag") return `flag ${origin.flag}`;
  if (origin.kind === "environment") return `environment variable ${origin.variable}`;
  if (origin.kind === "file") return `config file ${origin.file}, key ${path}`;
  return `set by ragscope ${origin.command}`;
}

export function resolveSettings(sources: SettingsSources): Result<ResolvedSettings, string[]> {
  const raw: Record<string, Record<string, unknown>> = {};
  const origins = new Map<string, SettingOrigin>();
  const problems: string[] = [];
  const set = (path: string, value: unknown, origin: SettingOrigin) => {
    const [section, field] = path.split(".") as [string, string];
    raw[section] = { ...(raw[section] ?? {}), [field]: value };
    origins.set(path, origin);
  };

  const file = sources.file ?? null;
  if (file !== null && file.document !== null && file.document !== undefined) {
    if (!isMapping(file.document)) {
      problems.push(`config file ${file.path}: must be a mapping of sections (${sectionNames.join(", ")}), e.g. "kafka:" with "topic: otlp_spans" below it`);
    } else {
      for (const [section, fields] of Object.entries(file.document)) {
        // Unknown sections are reported by the schema (it is strict), with the known ones.
        if (!isMapping(fields)) {
          if (fields === null) continue;
          if ((sectionNames as string[]).includes(section)) problems.push(`config file ${file.path}, key ${section}: must be a mapping of settings, e.g. "${section}:" with one "name: value" per line below it`);
          else raw[section] = fields as Record<string, unknown>;
          continue;
        }
        for (const [field, value] of Object.entries(fields)) set(`${section}.${field}`, value, { kind: "file", file: file.path });
      }
    }
  }
  const environment = sources.environment ?? {};
  for (const [variable, path] of Object.entries(environmentVariables)) {
    const value = environment[variable];
    if (value === undefined || value === "") continue;
    if (tableSettings.has(path)) {
      const table = parseTable(value);
      if (typeof table === "string") problems.push(`environment variable ${variable}: ${table}`);
      else set(path, table, { kind: "environment", variable });
    } else if (listSettings.has(path)) {
      const items = splitList(value);
      // "," or spaces must not quietly become an empty list (for the receiver's tokens: authentication off).
      if (items.length === 0) problems.push(`environment variable ${variable}: holds no value, only separators or spaces ("${value}"); give at least one, or unset it`);
      else set(path, items, { kind: "environment", variable });
    } else set(path, value, { kind: "environment", variable });
  }
  // A RAGSCOPE_* name ragscope does not read is a typo whose setting would silently stay at its default.
  problems.push(...unknownVariableProblems(environment));
  for (const [path, value] of Object.entries(sources.fixed ?? {})) {
    if (value !== undefined) set(path, value, { kind: "command", command: sources.command ?? "(the command)" });
  }
  for (const [path, given] of Object.entries(sources.flags ?? {})) {
    if (given.value === undefined) continue;
    set(path, listSettings.has(path) && typeof given.value === "string" ? splitList(given.value) : given.value, { kind: "flag", flag: given.flag });
  }
  // Every problem at once: a value the loop above refused is left out, and the schema checks the rest,
  // combinations only for the parts the command runs.
  const parsed = settingsSchemaFor(partsOfCommand(sources.command)).safeParse(raw);
  if (!parsed.success || problems.length > 0) return failure([...problems, ...(parsed.error?.issues.map((issue) => describeIssue(issue, origins)) ?? [])]);
  return success({ settings: deepFreeze(parsed.data), origins });
}

/** The settings alone, for callers that do not show origins. */
export function loadSettings(sources: SettingsSources): Result<Readonly<Settings>, string[]> {
  const resolved = resolveSettings(sources);
  return resolved.ok ? success(resolved.value.settings) : resolved;
}

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

function describeIssue(given: Issue, origins: ReadonlyMap<string, SettingOrigin>): string {
  // A combination check names the other setting by where its value came from (related-setting.ts).
  const issue = { ...given, message: withRelatedOrigins(given.message, origins) };
  if (issue.code === "unrecognized_keys") {
    // Only a config file can carry keys the schema does not know.
    const parent = issue.path.length === 0 ? null : formatKeyPath(issue.path);
    const known = parent === null ? sectionNames : sectionFields(String(issue.path[0]));
    const file = [...origins.values()].find((origin) => origin.kind === "file");
    const where = file?.kind === "file" ? `config file ${file.file}` : "settings";
    const keys = (issue.keys ?? []).map((key) => (parent === null ? key : `${parent}.${key}`));
    return `${where}, key ${keys.join(", ")}: unknown ${parent === null ? "section" : "setting"}; the ${parent === null ? "sections" : `settings of ${parent}`} are ${known.join(", ")}`;
  }
  const path = issue.path.slice(0, 2).map(String).join(".");
  const origin = origins.get(path);
  if (origin?.kind === "file") return `config file ${origin.file}, key ${formatKeyPath(issue.path)}: ${issue.message}`;
  // A list item's issue has its index after the setting path: kafka.brokers.1.
  const item = issue.path.length > 2 && typeof issue.path[2] === "number" ? ` (item ${issue.path[2] + 1})` : issue.path.length > 2 ? ` (${String(issue.path[2])})` : "";
  if (origin === undefined || origin.kind === "default") {
    // A combination check on a default value: say how to set it.
    const variable = variableOf(path);
    // Said as not set, with what sets it: "(environment variable X)" read as if X had been set.
    return `${path} (not set${variable ? `; ${variable} sets it` : ""})${item}: ${issue.message}`;
  }
  if (origin.kind === "command") return `${path}${item}: ${issue.message}`;
  return `${describeOrigin(origin, path)}${item}: ${issue.message}`;
}

function deepFreeze<Value>(value: Value): Readonly<Value> {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
