/**
 * What Grafana does to a ClickHouse panel's SQL before the server sees it,
 * so the static report (and the tests) run exactly the dashboards' queries:
 *
 * 1. frontend, `$__conditionalAll(cond, $var)` → `1=1` when the variable's
 *    current value is "All" or empty, else `cond` (interop.md §7; the
 *    plugin's CHDatasource.applyConditionalAll, last occurrence first);
 * 2. frontend, template variables `${var:percentencode}`, as Grafana's format
 *    registry writes them: encodeURIComponent plus `!'()*`, a multi-value as
 *    `{a,b}` encoded whole. "All" without a custom all value stands for every
 *    option. This is the only format the dashboards use in SQL
 *    (dashboards/source/sql-scope.ts says why): a variable in SQL without it,
 *    or with `sqlstring` (which leaves backslashes, so a value can end the
 *    string literal on ClickHouse), is refused as a dashboard mistake;
 * 3. backend, the plugin's macros with the exact expansions of interop.md §7:
 *    `toDateTime(x)` takes Unix seconds (truncated), `fromUnixTimestamp64Milli`
 *    milliseconds, dates are UTC.
 * A `$name` left unknown is a mistake in a dashboard and throws.
 */

export interface VariableState {
  /** Selected values; ["$__all"] when "All" is selected. */
  value: string | string[];
  /** Every option of the variable: what "All" stands for. */
  options?: string[];
}

export type Variables = Readonly<Record<string, VariableState>>;

export const ALL = "$__all";

export function allOf(options: string[]): VariableState {
  return { value: [ALL], options };
}

export interface MacroContext {
  fromMs: number;
  toMs: number;
  /** The panel's interval (Grafana: range / max data points, rounded). */
  intervalMs: number;
}

/** Arguments of a macro call whose "(" is at `open`; null when the parentheses do not close. */
export function macroArguments(text: string, open: number): { args: string[]; end: number } | null {
  let depth = 0;
  let start = open + 1;
  const args: string[] = [];
  for (let index = open; index < text.length; index += 1) {
    const character = text[index];
    if (character === "(") depth += 1;
    else if (character === ")") {
      depth -= 1;
      if (depth === 0) {
        args.push(text.slice(start, index));
        return { args, end: index + 1 };
      }
    } else if (character === "," && depth === 1) {
      args.push(text.slice(start, index));
      start = index + 1;
    }
  }
  return null;
}

function currentValueText(state: VariableState): string {
  return Array.isArray(state.value) ? state.value.join(",") : state.value;
}

/** Step 1: `$__conditionalAll`. */
export function applyConditionalAll(sql: string, variables: Variables): string {
  const macro = "$__conditionalAll(";
  let result = sql;
  let index = result.lastIndexOf(macro);
  while (index !== -1) {
    const parsed = macroArguments(result, index + macro.length - 1);
    if (parsed === null || parsed.args.length !== 2) throw new Error(`$__conditionalAll needs two arguments: ${result.slice(index, index + 80)}`);
    const [condition, variable] = parsed.args as [string, string];
    const name = /\$\{(\w+)\}|\$(\w+)/.exec(variable.trim());
    if (name === null) throw new Error(`$__conditionalAll's second argument must be a variable: ${variable}`);
    // As the plugin: an unknown variable keeps the condition (and fails in step 2).
    const state = variables[name[1] ?? name[2]!];
    const value = state === undefined ? null : currentValueText(state);
    const phrase = value === "" || value === ALL ? "1=1" : condition;
    result = result.slice(0, index) + phrase + result.slice(parsed.end);
    index = result.lastIndexOf(macro);
  }
  return result;
}

function selectedValues(state: VariableState): string | string[] {
  const value = state.value;
  if (Array.isArray(value) && value.includes(ALL)) return state.options ?? [];
  return value;
}

/** Grafana's encodeURIComponentStrict: nothing but `A-Z a-z 0-9 - _ . ~ %` is left. */
export function percentEncode(value: string | string[]): string {
  const text = Array.isArray(value) ? `{${value.join(",")}}` : value;
  return encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

function formatValue(value: string | string[], format: string | undefined, name: string): string {
  if (format === "percentencode") return percentEncode(value);
  throw new Error(
    `$${name}${format === undefined ? "" : `:${format}`} in SQL: a variable's value reaches SQL only as \${${name}:percentencode} inside decodeURLComponent('…'); other formats can break out of a ClickHouse string literal`,
  );
}

/**
 * Variables in a row or panel title, as Grafana writes them there (its `text`
 * format: the values, several joined by " + "). Titles are text for a page,
 * escaped as HTML by the caller, never SQL. An unknown variable stays as written.
 */
export function interpolateTitle(title: string, variables: Variables): string {
  return title.replace(/\$\{(\w+)(?::\w+)?\}|\$(\w+)/g, (match, braced: string | undefined, bare: string | undefined) => {
    const state = variables[(braced ?? bare)!];
    if (state === undefined) return match;
    const value = selectedValues(state);
    return Array.isArray(value) ? value.join(" + ") : value;
  });
}

/** Step 2: template variables. Names starting with `__` are macros, left for step 3. */
export function interpolateVariables(sql: string, variables: Variables): string {
  return sql.replace(/\$\{(\w+)(?::(\w+))?\}|\$(\w+)/g, (match, braced: string | undefined, format: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    if (name.startsWith("__")) return match;
    const state = variables[name];
    if (state === undefined) throw new Error(`the query uses $${name}, which has no value`);
    return formatValue(selectedValues(state), format, name);
  });
}

function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

const DURATION_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400, w: 604_800 };

/** Step 3: the plugin's backend macros. */
export function expandMacros(sql: string, context: MacroContext): string {
  const fromS = Math.floor(context.fromMs / 1000);
  const toS = Math.floor(context.toMs / 1000);
  const intervalS = Math.max(Math.floor(context.intervalMs / 1000), 1);
  const intervalMs = Math.max(Math.floor(context.intervalMs), 1);
  const dates = (column: string) => `${column} >= toDate('${utcDate(context.fromMs)}') AND ${column} <= toDate('${utcDate(context.toMs)}')`;
  const times = (column: string) => `${column} >= toDateTime(${fromS}) AND ${column} <= toDateTime(${toS})`;
  const withArguments: Record<string, (args: string[]) => string> = {
    timeFilter: ([column]) => times(column!),
    timeFilter_ms: ([column]) => `${column} >= fromUnixTimestamp64Milli(${context.fromMs}) AND ${column} <= fromUnixTimestamp64Milli(${context.toMs})`,
    dateFilter: ([column]) => dates(column!),
    dateTimeFilter: ([date, time]) => `(${dates(date!)}) AND (${times(time!)})`,
    dt: ([date, time]) => `(${dates(date!)}) AND (${times(time!)})`,
    timeFrom: ([column]) => `${column} >= toDateTime(${fromS})`,
    timeTo: ([column]) => `${column} <= toDateTime(${toS})`,
    timeInterval: ([column]) => `toStartOfInterval(toDateTime(${column}), INTERVAL ${intervalS} second)`,
    timeInterval_ms: ([column]) => `toStartOfInterval(toDateTime64(${column}, 3), INTERVAL ${intervalMs} millisecond)`,
    timeGroup: ([column, duration]) => {
      const match = /^(\d+)([smhdw])$/.exec(duration!.trim());
      if (!match) throw new Error(`$__timeGroup needs a duration such as 5m, got ${duration}`);
      return `toStartOfInterval(toDateTime(${column}), INTERVAL ${Number(match[1]) * DURATION_SECONDS[match[2]!]!} second)`;
    },
  };
  const constants: Record<string, string> = {
    fromTime: `toDateTime(${fromS})`,
    toTime: `toDateTime(${toS})`,
    fromTime_ms: `fromUnixTimestamp64Milli(${context.fromMs})`,
    toTime_ms: `fromUnixTimestamp64Milli(${context.toMs})`,
    interval_s: String(intervalS),
  };
  let result = "";
  let position = 0;
  const pattern = /\$__(\w+)/g;
  for (let match = pattern.exec(sql); match !== null; match = pattern.exec(sql)) {
    const name = match[1]!;
    result += sql.slice(position, match.index);
    const expand = withArguments[name];
    if (expand) {
      const open = match.index + match[0].length;
      if (sql[open] !== "(") throw new Error(`$__${name} needs arguments in parentheses`);
      const parsed = macroArguments(sql, open);
      if (parsed === null) throw new Error(`$__${name}( is not closed`);
      result += expand(parsed.args.map((argument) => argument.trim()));
      position = parsed.end;
    } else if (constants[name] !== undefined) {
      result += constants[name];
      position = match.index + match[0].length;
    } else throw new Error(`unsupported macro $__${name}`);
    pattern.lastIndex = position;
  }
  return result + sql.slice(position);
}

/** All three steps, in Grafana's order. */
export function renderPanelSql(sql: string, variables: Variables, context: MacroContext): string {
  return expandMacros(interpolateVariables(applyConditionalAll(sql, variables), variables), context);
}
