/**
 * Sentence BLEU of an answer against one reference answer (seed 004 §九.2).
 *
 * BLEU = BP · exp(mean over n = 1..N of log p_n), N = 4, where p_n is the
 * clipped n-gram precision and BP = exp(1 − reference length / answer length)
 * when the answer is shorter, else 1 — sacrebleu's computation, in [0, 1]
 * instead of sacrebleu's [0, 100]:
 * - "exp" smoothing (sacrebleu's default): the k-th order with no matching
 *   n-gram gets p_n = 1 / (2^k · n-grams of that order), so one missing order
 *   does not zero the score;
 * - effective order (as `sacrebleu.sentence_bleu`): orders longer than the
 *   answer are left out of the mean, so a 3-token answer is not 0 by
 *   construction. ragas calls `corpus_bleu`, which leaves them in and scores
 *   such answers 0; ragas also splits texts on ". " into reference streams.
 *
 * Tokenizer:
 * - "ragscope" (default): normalizeText tokens — lower case, no punctuation,
 *   one token per CJK character, so Chinese answers are scored.
 * - "13a": sacrebleu's default tokenizer (tokenize-13a.ts), case-sensitive,
 *   punctuation as tokens; reproduces ragas' published 0.7071067811865478 on
 *   "The Eiffel Tower is located in India." vs "... Paris.". It does not
 *   split Chinese.
 *
 * No match at all: when no n-gram of any order matches (no unigram does),
 * BLEU is 0, as sacrebleu returns it: smoothing only stands in for a missing
 * longer match, so an answer sharing nothing with the reference ("abc" vs
 * "xyz", 苹果 vs 香蕉) never gets credit from it.
 *
 * Checked against sacrebleu 2.6.0 `sentence_bleu` on designed English and
 * Chinese pairs (test/data/sacrebleu/): the "ragscope" tokenizer equals
 * sacrebleu's tokenize="zh" with lowercase=True on texts without punctuation,
 * symbols or full-width forms (which "zh" keeps as tokens and we drop); "13a"
 * equals tokenize="13a".
 *
 * Several references: bleu() takes one. The answer metrics score each
 * reference and keep the best (best-over-references.ts); sacrebleu's
 * multi-reference BLEU instead clips n-grams against all references pooled,
 * which can exceed every single-reference score, so ragscope does not use it.
 *
 * Reference without tokens: not applicable. Answer without tokens: 0.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { tokenize } from "./normalize-text.js";
import { countTokens } from "./token-counts.js";
import { tokenize13a } from "./tokenize-13a.js";

export type BleuTokenizer = "ragscope" | "13a";

export interface BleuOptions {
  tokenizer?: BleuTokenizer;
  /** Highest n-gram order; 4 is BLEU-4. */
  maxOrder?: number;
}

const SEPARATOR = "\u0000";

function ngrams(tokens: readonly string[], order: number): string[] {
  const result: string[] = [];
  for (let start = 0; start + order <= tokens.length; start += 1) result.push(tokens.slice(start, start + order).join(SEPARATOR));
  return result;
}

/** Clipped matches: each answer n-gram counts at most as often as it occurs in the reference. */
function clippedMatches(answerNgrams: string[], referenceNgrams: string[]): number {
  const available = countTokens(referenceNgrams);
  let matches = 0;
  for (const [ngram, count] of countTokens(answerNgrams)) matches += Math.min(count, available.get(ngram) ?? 0);
  return matches;
}

export function bleuOfTokens(answerTokens: readonly string[], referenceTokens: readonly string[], maxOrder = 4): MetricValue {
  if (!Number.isInteger(maxOrder) || maxOrder < 1) throw new RangeError(`BLEU order must be a positive integer, got ${maxOrder}`);
  if (referenceTokens.length === 0) return notApplicable("the reference has no tokens");
  if (answerTokens.length === 0) return applicable(0);
  let logSum = 0;
  let smoothing = 1;
  let effectiveOrder = 0;
  for (let order = 1; order <= maxOrder; order += 1) {
    const total = answerTokens.length - order + 1;
    if (total <= 0) break;
    effectiveOrder = order;
    const correct = clippedMatches(ngrams(answerTokens, order), ngrams(referenceTokens, order));
    // No unigram in common means no n-gram of any order in common: sacrebleu's 0, not a smoothed score.
    if (order === 1 && correct === 0) return applicable(0);
    if (correct === 0) smoothing *= 2;
    logSum += Math.log(correct === 0 ? 1 / (smoothing * total) : correct / total);
  }
  const brevityPenalty = answerTokens.length < referenceTokens.length ? Math.exp(1 - referenceTokens.length / answerTokens.length) : 1;
  return applicable(brevityPenalty * Math.exp(logSum / effectiveOrder));
}

export function bleu(answer: string, reference: string, options: BleuOptions = {}): MetricValue {
  const split = options.tokenizer === "13a" ? tokenize13a : tokenize;
  return bleuOfTokens(split(answer), split(reference), options.maxOrder);
}
