/**
 * CMRC 2018's official F1 and exact match of an answer against one reference
 * answer (the official scorer's `calc_f1_score` / `calc_em_score` for one
 * answer; over several references the answer metrics keep the best, as the
 * scorer does).
 *
 * F1 uses the longest common SUBSTRING of the two segment lists
 * (cmrc-segmentation.ts): precision = its length / answer segments, recall =
 * its length / reference segments. So order and contiguity count: 京北 vs 北京
 * is 0.5 here and 1 in SQuAD-style token F1 (token-f1.ts), which counts a bag
 * of tokens. Numbers such as 20.0 and 1,000 are single segments.
 *
 * Exact match compares the texts after lower-casing and removing the scorer's
 * punctuation list, keeping spaces: "北京。" equals "北京", "北 京" does not.
 *
 * Checked against the official scorer on designed Chinese pairs
 * (test/data/cmrc2018/). Where the scorer has no reference text to compare
 * (a reference with no segments, or empty after removing punctuation), it
 * scores 0 (F1) or compares empty strings (EM); here that is not applicable,
 * like the other reference-based metrics.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { cmrcExactMatchText, cmrcSegments } from "./cmrc-segmentation.js";

/** Length of the longest common contiguous run of equal tokens, in O(|a|·|b|) time and O(|b|) memory. */
export function longestCommonSubstring(first: readonly string[], second: readonly string[]): number {
  let previous = new Uint32Array(second.length + 1);
  let current = new Uint32Array(second.length + 1);
  let longest = 0;
  for (const token of first) {
    for (let index = 1; index <= second.length; index += 1) {
      const length = token === second[index - 1] ? previous[index - 1]! + 1 : 0;
      current[index] = length;
      if (length > longest) longest = length;
    }
    [previous, current] = [current, previous];
  }
  return longest;
}

export function cmrcF1(answer: string, reference: string): MetricValue {
  const referenceSegments = cmrcSegments(reference);
  if (referenceSegments.length === 0) return notApplicable("the reference has no tokens");
  const answerSegments = cmrcSegments(answer);
  const common = longestCommonSubstring(referenceSegments, answerSegments);
  if (common === 0) return applicable(0);
  const precision = common / answerSegments.length;
  const recall = common / referenceSegments.length;
  return applicable((2 * precision * recall) / (precision + recall));
}

export function cmrcExactMatch(answer: string, reference: string): MetricValue {
  const expected = cmrcExactMatchText(reference);
  if (expected === "") return notApplicable("the reference is empty");
  return applicable(cmrcExactMatchText(answer) === expected ? 1 : 0);
}
