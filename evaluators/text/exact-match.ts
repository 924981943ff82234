/**
 * Exact match of an answer against a reference answer (seed 004 §九.2).
 *
 * normalized (default): equal normalizeText token sequences, so case,
 * full-width forms, punctuation and spacing do not count ("Ｐａｒｉｓ。" equals
 * "paris", "积分，会扣回" equals "积分会扣回"), while English word boundaries
 * still do ("New York" is not "NewYork").
 * raw: plain string equality with nothing stripped — ragas ExactMatch
 * (`reference == response`), for comparing numbers with it.
 *
 * An empty reference (empty after normalisation in normalized mode) is not
 * applicable: there is nothing to match. ragas would score "" == "" as 1.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { tokenize } from "./normalize-text.js";

/** How two texts are compared: after normalizeText, or as given. */
export type TextComparisonMode = "normalized" | "raw";

export interface TextComparisonOptions {
  mode?: TextComparisonMode;
}

export function exactMatch(answer: string, reference: string, options: TextComparisonOptions = {}): MetricValue {
  const raw = options.mode === "raw";
  const expected = raw ? reference : tokenize(reference).join(" ");
  if (expected === "") return notApplicable("the reference is empty");
  const actual = raw ? answer : tokenize(answer).join(" ");
  return applicable(actual === expected ? 1 : 0);
}
