/**
 * ROUGE-L of an answer against a reference answer (seed 004 §九.2): the longest
 * common subsequence (LCS) of their tokens.
 *
 * precision = LCS / answer tokens, recall = LCS / reference tokens,
 * F = 2PR / (P + R) (0 when P + R = 0) — rouge_score's `rougeL`, the
 * sentence-level LCS over the whole text (not rougeLsum), as ragas' RougeScore
 * uses by default with `fmeasure`.
 *
 * Tokens are normalizeText tokens, not rouge_score's: rouge_score keeps only
 * `[a-z0-9]+` (Chinese scores 0 there) and Porter-stems words; we keep every
 * script (one token per CJK character) and do not stem, so "located" and
 * "locate" differ here. On ragas' published example ("The Eiffel Tower is
 * located in Paris." vs "... India.") both give 6/7 = 0.857142857.
 *
 * Reference without tokens: not applicable. Answer without tokens: 0.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { tokenize } from "./normalize-text.js";

export type RougeMeasure = "fmeasure" | "precision" | "recall";

export interface RougeLOptions {
  /** Which of the three to return; ragas' default is fmeasure. */
  measure?: RougeMeasure;
}

/** Length of the longest common subsequence, in O(|a|·|b|) time and O(|b|) memory. */
export function longestCommonSubsequence(first: readonly string[], second: readonly string[]): number {
  let previous = new Uint32Array(second.length + 1);
  let current = new Uint32Array(second.length + 1);
  for (const token of first) {
    for (let index = 1; index <= second.length; index += 1) {
      current[index] = token === second[index - 1] ? previous[index - 1]! + 1 : Math.max(previous[index]!, current[index - 1]!);
    }
    [previous, current] = [current, previous];
  }
  return previous[second.length]!;
}

export function rougeL(answer: string, reference: string, options: RougeLOptions = {}): MetricValue {
  const referenceTokens = tokenize(reference);
  if (referenceTokens.length === 0) return notApplicable("the reference has no tokens");
  const answerTokens = tokenize(answer);
  if (answerTokens.length === 0) return applicable(0);
  const lcs = longestCommonSubsequence(answerTokens, referenceTokens);
  const precision = lcs / answerTokens.length;
  const recall = lcs / referenceTokens.length;
  switch (options.measure ?? "fmeasure") {
    case "precision":
      return applicable(precision);
    case "recall":
      return applicable(recall);
    case "fmeasure":
      return applicable(precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall));
  }
}
