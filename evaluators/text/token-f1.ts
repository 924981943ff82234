/**
 * SQuAD-style token F1 of an answer against a reference answer (seed 004 §九.2).
 *
 * Tokens are normalizeText tokens (normalize-text.ts): English words, one token
 * per CJK character, so a Chinese answer gets partial credit instead of SQuAD's
 * whitespace-token 0. Unlike SQuAD's normalisation, English articles are kept.
 *
 * This is NOT the CMRC 2018 official F1: that one scores the longest common
 * substring of its own segments (order and contiguity count, "20.0" is one
 * token, ASCII punctuation is kept) — see cmrc-f1.ts and the `cmrc_f1` metric.
 * Here the tokens are a bag: 京北 against 北京 is 1.
 *
 * precision = overlap / answer tokens, recall = overlap / reference tokens,
 * F1 = 2PR / (P + R), overlap being the multiset intersection.
 *
 * Empty token lists follow the SQuAD v2.0 script (`int(gold == pred)`): both
 * empty → 1 (an empty reference means "no answer" and the answer correctly
 * gave none), exactly one empty → 0. The v1.1 script returned 0 for both
 * empty; v2 is the one that handles unanswerable questions.
 */
import { applicable, type MetricValue } from "../metric-value.js";
import { tokenize } from "./normalize-text.js";
import { overlapCount } from "./token-counts.js";

export function tokenF1(answer: string, reference: string): MetricValue {
  return tokenF1OfTokens(tokenize(answer), tokenize(reference));
}

export function tokenF1OfTokens(answerTokens: readonly string[], referenceTokens: readonly string[]): MetricValue {
  if (answerTokens.length === 0 || referenceTokens.length === 0) return applicable(answerTokens.length === referenceTokens.length ? 1 : 0);
  const overlap = overlapCount(answerTokens, referenceTokens);
  if (overlap === 0) return applicable(0);
  const precision = overlap / answerTokens.length;
  const recall = overlap / referenceTokens.length;
  return applicable((2 * precision * recall) / (precision + recall));
}
