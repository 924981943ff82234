/**
 * A blind split's gold data is never shown (seed §二.2: the blind set guards
 * against fitting the evaluation set). The report's panels show evaluator
 * reasons, which quote gold evidence (document and chunk ids, evidence text,
 * reference answers, key points) and, a judge's, the criteria it judged by
 * (expected behaviour, rubric); every text cell that contains a blind
 * case's gold string is replaced — numbers (the scores) stay.
 *
 * Matching is by content, not by which column or panel a cell comes from, so
 * a new panel that shows reasons is covered too: a cell is withheld when it
 * contains a whole gold string, or quotes ("…", “…”, 「…」) a fragment of
 * one — evaluators quote the entities and key points they looked for. Strings shorter than
 * MINIMUM_GOLD_LENGTH are not matched (a two-letter id would blank half the
 * report); replacing a cell that only happens to contain a gold string hides
 * too much, never too little.
 *
 * Except in a row known to belong to a case outside the blind split: its
 * reasons quote that case's own gold and observed data, which may be shown,
 * even where a string coincides with a blind case's (a regression case whose
 * gold document is the blind case's too). A row's case is its `case_id`
 * column, or, for a panel of the one selected trace (the `trace_id`
 * variable), that trace's case as a table listing both columns gives it. A
 * row whose case is unknown (no such column, online traffic without a case)
 * or a blind case is matched by content as above.
 *
 * And in a row known to belong to a blind case, every text cell that is prose
 * (holds whitespace: a reason, a list of evaluations) is withheld whatever it
 * says, as the CLI and the web UI withhold every reason of a blind case: a
 * judge's reason may restate the rubric or expected behaviour it judged by in
 * its own words, which no string match finds. The row's ids, outcome and
 * labels (single words) stay, and are matched by content as above.
 */
import type { EvalCase } from "../contracts/eval-case.js";
import { blindGoldTexts } from "../contracts/blind-gold.js";
import { parseThreshold } from "../evaluators/threshold.js";
import type { DashboardResult, PanelResult } from "./collect-report.js";
import type { Frame } from "./panel-data.js";

export const WITHHELD_CELL = "(withheld: blind-split gold data)";
const MINIMUM_GOLD_LENGTH = 3;
const MINIMUM_FRAGMENT_LENGTH = 2;
/** Text with whitespace inside: a sentence or a list, not an id, outcome or label. */
const PROSE = /\S\s+\S/;
const QUOTED = /["“「『]([^"”」』]{1,500})["”」』]/g;

/**
 * The texts of the blind cases' gold fields (contracts/blind-gold.ts: answers, evidence, key points, the behaviours
 * and rubric rules they are graded by, …) long enough to match. A rubric rule that is a threshold (">= 0.9") is left
 * out: it names no gold, and every gate file writes the same, so matching it would blank each threshold cell.
 */
export function blindGoldStrings(cases: readonly EvalCase[]): string[] {
  const strings = new Set<string>();
  for (const item of cases) {
    for (const value of blindGoldTexts(item)) {
      const text = value.trim();
      if (text.length >= MINIMUM_GOLD_LENGTH && !parseThreshold(text).ok) strings.add(text);
    }
  }
  return [...strings];
}

const CASE_COLUMN = "case_id";
const TRACE_COLUMN = "trace_id";
const USES_TRACE_VARIABLE = /\$\{trace_id(?::\w+)?\}|\$trace_id\b/;

function stringsOf(frame: Frame, column: string): (string | null)[] | null {
  const field = frame.fields.find((candidate) => candidate.name === column);
  return field === undefined ? null : field.values.map((value) => (typeof value === "string" && value !== "" ? value : null));
}

/** The case of each trace a table lists with both its trace_id and case_id. */
function casesOfTraces(dashboards: readonly DashboardResult[]): Map<string, string> {
  const cases = new Map<string, string>();
  for (const dashboard of dashboards) {
    for (const panel of dashboard.panels.values()) {
      for (const frame of panel.frames) {
        const traces = stringsOf(frame, TRACE_COLUMN);
        const caseIds = stringsOf(frame, CASE_COLUMN);
        if (traces === null || caseIds === null) continue;
        traces.forEach((trace, row) => {
          if (trace !== null && caseIds[row] !== null) cases.set(trace, caseIds[row]!);
        });
      }
    }
  }
  return cases;
}

/** The case each row of a frame belongs to, where the report can tell; null where it cannot. */
function rowCases(frame: Frame, panel: PanelResult, dashboard: DashboardResult, caseOfTrace: ReadonlyMap<string, string>): (string | null)[] {
  const listed = stringsOf(frame, CASE_COLUMN);
  if (listed !== null) return listed;
  const selected = dashboard.variables[TRACE_COLUMN]?.value;
  const usesTrace = panel.panel.targets.some((target) => USES_TRACE_VARIABLE.test(target.rawSql));
  const caseId = usesTrace && typeof selected === "string" ? (caseOfTrace.get(selected) ?? null) : null;
  return Array.from({ length: frame.rows }, () => caseId);
}

/**
 * The dashboards with every text cell that contains a blind case's gold
 * string replaced, except in rows of cases outside the blind split; the
 * number of cells replaced.
 */
export function withholdBlindGold(dashboards: readonly DashboardResult[], blindCases: readonly EvalCase[]): { dashboards: DashboardResult[]; withheld: number } {
  if (blindCases.length === 0) return { dashboards: [...dashboards], withheld: 0 };
  const gold = blindGoldStrings(blindCases);
  const blindCaseIds = new Set(blindCases.map((item) => item.case_id));
  const caseOfTrace = casesOfTraces(dashboards);
  let withheld = 0;
  const quotesGold = (value: string) => [...value.matchAll(QUOTED)].some((match) => {
    const fragment = match[1]!.trim();
    return fragment.length >= MINIMUM_FRAGMENT_LENGTH && gold.some((text) => text.includes(fragment));
  });
  const scrub = (value: number | string | null, caseId: string | null) => {
    if (caseId !== null && !blindCaseIds.has(caseId)) return value;
    if (typeof value !== "string") return value;
    const blindProse = caseId !== null && PROSE.test(value.trim());
    if (!blindProse && !(gold.some((text) => value.includes(text)) || quotesGold(value))) return value;
    withheld += 1;
    return WITHHELD_CELL;
  };
  const result = dashboards.map((dashboard) => ({
    ...dashboard,
    panels: new Map(
      [...dashboard.panels.entries()].map(([id, panel]) => [
        id,
        {
          ...panel,
          frames: panel.frames.map((frame) => {
            const cases = rowCases(frame, panel, dashboard, caseOfTrace);
            return { ...frame, fields: frame.fields.map((field) => (field.type === "string" ? { ...field, values: field.values.map((value, row) => scrub(value, cases[row] ?? null)) } : field)) };
          }),
        },
      ]),
    ),
  }));
  return { dashboards: result, withheld };
}
