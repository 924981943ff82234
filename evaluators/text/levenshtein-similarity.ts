/**
 * Levenshtein similarity: 1 − edit distance / length of the longer text, over
 * Unicode code points with unit costs — ragas' NonLLMStringSimilarity default
 * (rapidfuzz `Levenshtein.normalized_distance`).
 *
 * normalized (default): both texts through normalizeText first.
 * raw: the texts as given; reproduces ragas' published 0.8918918918918919
 * for "The Eiffel Tower is located in India." vs "... Paris." (4 edits, 37
 * code points).
 *
 * An empty reference is not applicable; an empty answer scores 0.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import type { TextComparisonOptions } from "./exact-match.js";
import { normalizeText } from "./normalize-text.js";

/** Edit distance (insert, delete, substitute, each 1) between two code-point arrays. */
export function levenshteinDistance(first: readonly string[], second: readonly string[]): number {
  let previous = Array.from({ length: second.length + 1 }, (_, index) => index);
  let current = new Array<number>(second.length + 1).fill(0);
  for (let row = 1; row <= first.length; row += 1) {
    current[0] = row;
    for (let column = 1; column <= second.length; column += 1) {
      const substitution = previous[column - 1]! + (first[row - 1] === second[column - 1] ? 0 : 1);
      current[column] = Math.min(substitution, previous[column]! + 1, current[column - 1]! + 1);
    }
    [previous, current] = [current, previous];
  }
  return previous[second.length]!;
}

export function levenshteinSimilarity(answer: string, reference: string, options: TextComparisonOptions = {}): MetricValue {
  const raw = options.mode === "raw";
  const referencePoints = Array.from(raw ? reference : normalizeText(reference));
  if (referencePoints.length === 0) return notApplicable("the reference is empty");
  const answerPoints = Array.from(raw ? answer : normalizeText(answer));
  const distance = levenshteinDistance(answerPoints, referencePoints);
  return applicable(1 - distance / Math.max(answerPoints.length, referencePoints.length));
}
