/**
 * Exact match of an answer against a reference answer (seed 004 §九.2).
 *
 * normalized (default): equality after normalizeText, so case, full-width
 * forms, punctuation and spacing do not count ("Ｐａｒｉｓ。" equals "paris").
 * raw: plain string equality with nothing stripped — ragas ExactMatch
 * (`reference == response`), for comparing numbers with it.
 *
 * An empty reference (empty after normalisation in normalized mode) is not
 * applicable: there is nothing to match. ragas would score "" == "" as 1.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { normalizeText } from "./normalize-text.js";

/** How two texts are compared: after normalizeText, or as given. */
export type TextComparisonMode = "normalized" | "raw";

export interface TextComparisonOptions {
  mode?: TextComparisonMode;
}

export function exactMatch(answer: string, reference: string, options: TextComparisonOptions = {}): MetricValue {
  const raw = options.mode === "raw";
  const expected = raw ? reference : normalizeText(reference);
  if (expected === "") return notApplicable("the reference is empty");
  const actual = raw ? answer : normalizeText(answer);
  return applicable(actual === expected ? 1 : 0);
}
