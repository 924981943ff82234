/**
 * Is an expected string present in the answer (ragas StringPresence)?
 *
 * normalized (default): the expected text's tokens occur contiguously among the
 * answer's tokens (token-sequence.ts), so case, width and punctuation do not
 * count and English words are matched whole.
 * raw: `answer.includes(expected)` — ragas' case-sensitive `reference in
 * response`.
 *
 * An empty expected string is not applicable (it is trivially "present").
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import type { TextComparisonOptions } from "./exact-match.js";
import { tokenize } from "./normalize-text.js";
import { indexOfTokenSequence } from "./token-sequence.js";

export function stringPresence(answer: string, expected: string, options: TextComparisonOptions = {}): MetricValue {
  if (options.mode === "raw") {
    if (expected === "") return notApplicable("the expected string is empty");
    return applicable(answer.includes(expected) ? 1 : 0);
  }
  const needle = tokenize(expected);
  if (needle.length === 0) return notApplicable("the expected string is empty after normalisation");
  return applicable(indexOfTokenSequence(tokenize(answer), needle) >= 0 ? 1 : 0);
}
