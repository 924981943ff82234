/**
 * Completeness (seed 004 §五.4): the fraction of the case's key points the
 * answer covers, Completeness = covered key points / all key points.
 *
 * A key point is covered when either
 * 1. its content tokens (normalizeText tokens without the stop words of
 *    stop-words.ts) are mostly in the answer — token recall, the multiset
 *    overlap / the key point's content tokens, is at least
 *    KEY_POINT_RECALL_THRESHOLD (0.6) — and the answer keeps its negations:
 *    every negation family (stop-words.ts NEGATION_FAMILIES) the key point
 *    uses occurs in the answer too.
 *    0.6 lets a paraphrase drop or change about a third of the wording
 *    ("积分按实际保留金额重新计算" vs "积分会按保留金额重新计算" keeps 11 of 13
 *    characters, recall 0.846) while a key point sharing only a topic word or
 *    two with the answer stays missing. The negation check keeps
 *    "所有订单都可以无条件全额退款" from covering "并非所有订单都可退款": 7 of
 *    its 8 content characters are there, the 非 is not;
 * 2. or the key point states numbers or dates and the answer states all of
 *    them (fact-agreement.ts), so "15天" covers "十五天内可以退货" whose
 *    wording differs.
 * Blank key points are ignored. No key points: not applicable.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { dateIsStated, numberIsStated } from "./fact-agreement.js";
import { extractFacts } from "./fact-mentions.js";
import { tokenize } from "./normalize-text.js";
import { contentTokens, NEGATION_FAMILIES } from "./stop-words.js";
import { overlapCount } from "./token-counts.js";

export const KEY_POINT_RECALL_THRESHOLD = 0.6;

export interface KeyPointVerdict {
  keyPoint: string;
  covered: boolean;
  /** Token recall of the key point's content tokens in the answer. */
  recall: number;
  /** What decided "covered"; null when not covered. */
  rule: "tokens" | "facts" | null;
}

/** Every negation family the key point uses also occurs among the answer's tokens. */
function keepsNegations(keyPointTokens: readonly string[], answerTokens: ReadonlySet<string>): boolean {
  return NEGATION_FAMILIES.every((family) => !keyPointTokens.some((token) => family.has(token)) || [...family].some((token) => answerTokens.has(token)));
}

export interface KeyPointCoverage {
  completeness: MetricValue;
  verdicts: KeyPointVerdict[];
  missing: string[];
}

export function keyPointCoverage(answer: string, keyPoints: readonly string[]): KeyPointCoverage {
  const answerTokens = tokenize(answer);
  const answerTokenSet = new Set(answerTokens);
  const answerFacts = extractFacts(answer);
  const verdicts = keyPoints
    .filter((keyPoint) => tokenize(keyPoint).length > 0)
    .map((keyPoint): KeyPointVerdict => {
      const tokens = contentTokens(tokenize(keyPoint));
      const recall = overlapCount(tokens, answerTokens) / tokens.length;
      if (recall >= KEY_POINT_RECALL_THRESHOLD && keepsNegations(tokens, answerTokenSet)) return { keyPoint, covered: true, recall, rule: "tokens" };
      const facts = extractFacts(keyPoint);
      const hasFacts = facts.numbers.length + facts.dates.length > 0;
      const allStated = facts.numbers.every((mention) => numberIsStated(mention, answerFacts)) && facts.dates.every((mention) => dateIsStated(mention, answerFacts));
      return hasFacts && allStated ? { keyPoint, covered: true, recall, rule: "facts" } : { keyPoint, covered: false, recall, rule: null };
    });
  const completeness = verdicts.length === 0 ? notApplicable("the case has no key points") : applicable(verdicts.filter((verdict) => verdict.covered).length / verdicts.length);
  return { completeness, verdicts, missing: verdicts.filter((verdict) => !verdict.covered).map((verdict) => verdict.keyPoint) };
}
