/**
 * The dataset's mix against the seed's recommendation (004 §二.2): 50%
 * high-frequency real questions, 20% long-tail, 10% multi-hop, 10%
 * unanswerable, 10% adversarial / safety / boundary; and its splits (dev,
 * regression, blind, online-sample).
 *
 * A case's category is `metadata.mix_category` when given, else its
 * `metadata.question_type` (the simple format's question_type), else
 * `answerable: false` (unanswerable) or difficulty Adversarial (adversarial).
 * A case none of these place is "unclassified" and counted as such: it is
 * never guessed into a category. The table says which question types left
 * cases there; the seed's own example type `fact` (§二.1) names what a
 * question asks, not how often it is asked, so it is told to say
 * high_frequency or long_tail in metadata.mix_category.
 *
 * A case's split is `metadata.split`, else `metadata.dataset_role`.
 */
import type { EvalCase } from "../../../contracts/eval-case.js";

export const MIX_CATEGORIES = ["high_frequency", "long_tail", "multi_hop", "unanswerable", "adversarial"] as const;
export type MixCategory = (typeof MIX_CATEGORIES)[number] | "unclassified";

export const RECOMMENDED_MIX: Readonly<Record<(typeof MIX_CATEGORIES)[number], number>> = {
  high_frequency: 0.5,
  long_tail: 0.2,
  multi_hop: 0.1,
  unanswerable: 0.1,
  adversarial: 0.1,
};

export const SPLITS = ["dev", "regression", "blind", "online-sample"] as const;

const aliases: Record<string, MixCategory> = {
  high_frequency: "high_frequency",
  "high-frequency": "high_frequency",
  frequent: "high_frequency",
  long_tail: "long_tail",
  "long-tail": "long_tail",
  multi_hop: "multi_hop",
  "multi-hop": "multi_hop",
  multihop: "multi_hop",
  unanswerable: "unanswerable",
  no_answer: "unanswerable",
  "no-answer": "unanswerable",
  adversarial: "adversarial",
  safety: "adversarial",
  boundary: "adversarial",
};

const normalise = (value: unknown): string | null => (typeof value === "string" && value.trim() !== "" ? value.trim().toLowerCase() : null);

export function mixCategoryOf(evalCase: EvalCase): MixCategory {
  const metadata = evalCase.metadata as Record<string, unknown>;
  for (const value of [metadata.mix_category, metadata.question_type]) {
    const name = normalise(value);
    if (name !== null && aliases[name]) return aliases[name]!;
  }
  if (!evalCase.answerable) return "unanswerable";
  if (evalCase.difficulty === "Adversarial") return "adversarial";
  return "unclassified";
}

/** The case's split (seed §二.2), or null when the case names none. */
export function splitOf(evalCase: EvalCase): string | null {
  const metadata = evalCase.metadata as Record<string, unknown>;
  return normalise(metadata.split) ?? normalise(metadata.dataset_role);
}

export function isBlind(evalCase: EvalCase): boolean {
  return splitOf(evalCase) === "blind";
}

export interface MixRow {
  category: MixCategory;
  cases: number;
  share: number;
  recommended: number | null;
  /** The unclassified row only: its cases by question_type (null: none given), most cases first. */
  questionTypes?: { questionType: string | null; cases: number }[];
}

export interface DatasetMix {
  cases: number;
  rows: MixRow[];
  bySplit: { split: string; cases: number; rows: MixRow[] }[];
  missingSplits: string[];
}

function rowsOf(cases: readonly EvalCase[]): MixRow[] {
  const counts = new Map<MixCategory, number>();
  for (const item of cases) counts.set(mixCategoryOf(item), (counts.get(mixCategoryOf(item)) ?? 0) + 1);
  const categories: MixCategory[] = [...MIX_CATEGORIES, "unclassified"];
  return categories.map((category) => ({
    category,
    cases: counts.get(category) ?? 0,
    share: cases.length === 0 ? 0 : (counts.get(category) ?? 0) / cases.length,
    recommended: category === "unclassified" ? null : RECOMMENDED_MIX[category],
    ...(category === "unclassified" ? { questionTypes: unplacedTypes(cases) } : {}),
  }));
}

function unplacedTypes(cases: readonly EvalCase[]): { questionType: string | null; cases: number }[] {
  const counts = new Map<string | null, number>();
  for (const item of cases) {
    if (mixCategoryOf(item) !== "unclassified") continue;
    const questionType = normalise((item.metadata as Record<string, unknown>).question_type);
    counts.set(questionType, (counts.get(questionType) ?? 0) + 1);
  }
  return [...counts.entries()].map(([questionType, count]) => ({ questionType, cases: count })).sort((left, right) => right.cases - left.cases || String(left.questionType).localeCompare(String(right.questionType)));
}

/** Why the unclassified cases are there, by question type, and what places them. */
function unplacedAdvice(row: MixRow): string {
  const parts = (row.questionTypes ?? []).map(({ questionType, cases }) => {
    if (questionType === null) return `${cases} without question_type`;
    if (questionType === "fact") return `${cases} "fact" (a fact question is high-frequency or long-tail: say which in metadata.mix_category)`;
    return `${cases} "${questionType}" (not a question type of the mix)`;
  });
  return `not placed in a category${parts.length > 0 ? `: ${parts.join("; ")}` : ""} — set metadata.mix_category or question_type to high_frequency, long_tail, multi_hop, unanswerable or adversarial (README "The simple format")`;
}

export function datasetMix(cases: readonly EvalCase[]): DatasetMix {
  const splits = new Map<string, EvalCase[]>();
  for (const item of cases) {
    const split = splitOf(item) ?? "(no split)";
    splits.set(split, [...(splits.get(split) ?? []), item]);
  }
  return {
    cases: cases.length,
    rows: rowsOf(cases),
    bySplit: [...splits.entries()].sort(([left], [right]) => left.localeCompare(right)).map(([split, members]) => ({ split, cases: members.length, rows: rowsOf(members) })),
    missingSplits: SPLITS.filter((split) => !splits.has(split)),
  };
}

const percent = (value: number) => `${(value * 100).toFixed(0)}%`;

export function formatMix(mix: DatasetMix): string[] {
  const table = (rows: MixRow[]) =>
    rows.filter((row) => row.category !== "unclassified" || row.cases > 0).map((row) => {
      const advice = row.recommended === null ? unplacedAdvice(row) : `recommended ${percent(row.recommended)}`;
      return `    ${row.category.padEnd(16)} ${String(row.cases).padStart(5)}  ${percent(row.share).padStart(4)}   ${advice}`;
    });
  const cases = (count: number) => `${count} case${count === 1 ? "" : "s"}`;
  const lines = [`  Mix of ${cases(mix.cases)} (seed 004 §二.2):`, ...table(mix.rows)];
  for (const split of mix.bySplit) lines.push(`  Split ${split.split}: ${cases(split.cases)}`, ...table(split.rows).map((line) => `  ${line}`));
  if (mix.missingSplits.length > 0) lines.push(`  warning: no case in split${mix.missingSplits.length === 1 ? "" : "s"} ${mix.missingSplits.join(", ")} (metadata.split or metadata.dataset_role)`);
  return lines;
}
