/**
 * A blind split's gold data is never shown (seed §二.2: the blind set guards
 * against fitting the evaluation set). The report's panels show evaluator
 * reasons, which quote gold evidence (document and chunk ids, evidence text,
 * reference answers, key points); every text cell that contains a blind
 * case's gold string is replaced — numbers (the scores) stay.
 *
 * Matching is by content, not by which column or panel a cell comes from, so
 * a new panel that shows reasons is covered too: a cell is withheld when it
 * contains a whole gold string, or quotes ("…", “…”, 「…」) a fragment of
 * one — evaluators quote the entities and key points they looked for. Strings shorter than
 * MINIMUM_GOLD_LENGTH are not matched (a two-letter id would blank half the
 * report); replacing a cell that only happens to contain a gold string hides
 * too much, never too little.
 */
import type { EvalCase } from "../contracts/eval-case.js";
import type { DashboardResult } from "./collect-report.js";

export const WITHHELD_CELL = "(withheld: blind-split gold data)";
const MINIMUM_GOLD_LENGTH = 3;
const MINIMUM_FRAGMENT_LENGTH = 2;
const QUOTED = /["“「『]([^"”」』]{1,500})["”」』]/g;

export function blindGoldStrings(cases: readonly EvalCase[]): string[] {
  const strings = new Set<string>();
  const add = (value: string | undefined) => {
    const text = value?.trim();
    if (text !== undefined && text.length >= MINIMUM_GOLD_LENGTH) strings.add(text);
  };
  for (const item of cases) {
    const answers = item.reference_answer === undefined ? [] : Array.isArray(item.reference_answer) ? item.reference_answer : [item.reference_answer];
    for (const answer of answers) add(answer);
    for (const point of item.key_points) add(point);
    for (const evidence of item.gold_evidence) {
      add(evidence.document_id);
      add(evidence.chunk_id);
      add(evidence.section_id);
      add(evidence.text);
    }
  }
  return [...strings];
}

/** The dashboards with every text cell that contains a gold string replaced; the number of cells replaced. */
export function withholdBlindGold(dashboards: readonly DashboardResult[], gold: readonly string[]): { dashboards: DashboardResult[]; withheld: number } {
  if (gold.length === 0) return { dashboards: [...dashboards], withheld: 0 };
  let withheld = 0;
  const quotesGold = (value: string) => [...value.matchAll(QUOTED)].some((match) => {
    const fragment = match[1]!.trim();
    return fragment.length >= MINIMUM_FRAGMENT_LENGTH && gold.some((text) => text.includes(fragment));
  });
  const scrub = (value: number | string | null) => {
    if (typeof value !== "string" || !(gold.some((text) => value.includes(text)) || quotesGold(value))) return value;
    withheld += 1;
    return WITHHELD_CELL;
  };
  const result = dashboards.map((dashboard) => ({
    ...dashboard,
    panels: new Map(
      [...dashboard.panels.entries()].map(([id, panel]) => [
        id,
        { ...panel, frames: panel.frames.map((frame) => ({ ...frame, fields: frame.fields.map((field) => (field.type === "string" ? { ...field, values: field.values.map(scrub) } : field)) })) },
      ]),
    ),
  }));
  return { dashboards: result, withheld };
}
