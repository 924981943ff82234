/**
 * All ranked-retrieval metrics of one query at several cutoffs, in one pass over
 * the ranking plus one sort of the ideal gains.
 *
 * This is the entry point for evaluating many rankings (the target is 100,000
 * lists of 100 items): `createRankingEvaluator` validates and sorts the cutoffs once
 * and keeps its scratch buffers between calls, so a call allocates little beyond
 * its result. It is synchronous, so reusing the buffers is safe.
 *
 * No gold evidence: by default a metric whose denominator is the relevant
 * judgments (P, recall, hit, RR, AP, R-precision) is NOT APPLICABLE when the query
 * has no relevant judgment, and nDCG is not applicable when no judgment has a grade
 * above 0. A query without gold says nothing about the retriever, and a 0 would
 * drag the averages down. trec_eval reports 0 instead; pass
 * `whenNoRelevantJudgments: "zero"` to reproduce it.
 *
 * An id that occurs twice in one ranking is an input error (repeated-ids.ts):
 * every metric is not applicable and `inputError` says which id, where, and
 * how to fix it. trec_eval refuses such a run too.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { discountedGain, gainOf } from "./discounted-gain.js";
import { findRepeatedId, repeatedIdMessage } from "./repeated-ids.js";
import {
  NO_POSITIVE_GRADES_REASON,
  NO_RELEVANT_JUDGMENTS_REASON,
  countedGrade,
  invalidCutoffReason,
  invalidOptionsReason,
  isRelevant,
  relevanceLevelOf,
  usableGrade,
  type NoRelevantJudgmentsPolicy,
  type RankedItem,
  type RelevanceJudgments,
} from "./relevance-judgments.js";

/** Seed §三.1 lists Recall@1/3/5/10 as the usual cutoffs. */
export const DEFAULT_CUTOFFS: readonly number[] = [1, 3, 5, 10];

export interface RankingEvaluationOptions {
  /** Cutoffs k for P, recall, hit and nDCG@k, reported in this order. Default DEFAULT_CUTOFFS. */
  readonly cutoffs?: readonly number[];
  /** Relevant means grade >= relevanceLevel (default 1). nDCG uses raw grades and ignores it. */
  readonly relevanceLevel?: number;
  /** Default "not-applicable" (see the module comment); "zero" reproduces trec_eval. */
  readonly whenNoRelevantJudgments?: NoRelevantJudgmentsPolicy;
}

export interface CutoffEvaluation {
  readonly k: number;
  readonly precision: MetricValue;
  readonly recall: MetricValue;
  readonly hit: MetricValue;
  readonly ndcg: MetricValue;
}

export interface RankingEvaluation {
  /** trec_eval num_ret: items in the ranking, duplicates included. */
  readonly retrievedCount: number;
  /** trec_eval num_rel: relevant judgments, retrieved or not. */
  readonly relevantCount: number;
  /** trec_eval num_rel_ret: relevant items retrieved, each id counted once. */
  readonly relevantRetrievedCount: number;
  readonly firstRelevantRank: MetricValue;
  readonly reciprocalRank: MetricValue;
  readonly averagePrecision: MetricValue;
  readonly rPrecision: MetricValue;
  readonly ndcg: MetricValue;
  readonly cutoffs: readonly CutoffEvaluation[];
  /** Why the ranking could not be scored (an id repeated), or null. */
  readonly inputError: string | null;
}

export interface RankingEvaluator {
  evaluate(items: readonly RankedItem[], judgments: RelevanceJudgments): RankingEvaluation;
}

export function evaluateRanking(
  items: readonly RankedItem[],
  judgments: RelevanceJudgments,
  options: RankingEvaluationOptions = {},
): RankingEvaluation {
  return createRankingEvaluator(options).evaluate(items, judgments);
}

export function createRankingEvaluator(options: RankingEvaluationOptions = {}): RankingEvaluator {
  const requested = options.cutoffs ?? DEFAULT_CUTOFFS;
  const policy = options.whenNoRelevantJudgments ?? "not-applicable";
  const optionsProblem = invalidOptionsReason(options);
  if (optionsProblem !== undefined) return invalidEvaluator(requested, optionsProblem);
  const level = relevanceLevelOf(options);

  // Valid cutoffs, ascending and distinct, so the pass can meet them in rank order.
  const sortedCutoffs = [...new Set(requested.filter((k) => invalidCutoffReason(k) === undefined))].sort((a, b) => a - b);
  const slotOfRequested = requested.map((k) => sortedCutoffs.indexOf(k));
  const relevantAtCutoff = new Float64Array(sortedCutoffs.length);
  const dcgAtCutoff = new Float64Array(sortedCutoffs.length);
  const idealDcgAtCutoff = new Float64Array(sortedCutoffs.length);
  const seen = new Set<string>();
  const firstRankOfId = new Map<string, number>();
  const ids: string[] = [];
  let gains = new Float64Array(64);

  function evaluate(items: readonly RankedItem[], judgments: RelevanceJudgments): RankingEvaluation {
    ids.length = 0;
    for (const item of items) ids.push(item.id);
    const repeated = findRepeatedId(ids, firstRankOfId);
    if (repeated !== null) return unscorable(requested, items.length, repeatedIdMessage(repeated, "the ranking"));

    // Judgments: num_rel and the ideal gains (all positive grades, retrieved or not).
    let relevantCount = 0;
    let gainCount = 0;
    if (gains.length < judgments.size) gains = new Float64Array(Math.max(judgments.size, gains.length * 2));
    for (const grade of judgments.values()) {
      const usable = usableGrade(grade);
      if (isRelevant(usable, level)) relevantCount += 1;
      if (usable > 0) gains[gainCount++] = usable;
    }
    const idealGainsAscending = gains.subarray(0, gainCount).sort();

    // Ideal DCG, recorded at each cutoff; the full sum is the ideal of the uncut nDCG.
    let idealSum = 0;
    let slot = 0;
    for (let index = 0; index < gainCount; index += 1) {
      const rank = index + 1;
      idealSum += discountedGain(idealGainsAscending[gainCount - rank]!, rank);
      while (slot < sortedCutoffs.length && sortedCutoffs[slot] === rank) idealDcgAtCutoff[slot++] = idealSum;
    }
    while (slot < sortedCutoffs.length) idealDcgAtCutoff[slot++] = idealSum;

    // The one pass over the ranking.
    seen.clear();
    let relevantSoFar = 0;
    let precisionSum = 0;
    let dcg = 0;
    let firstRank = 0;
    let relevantAtR = 0;
    slot = 0;
    for (let index = 0; index < items.length; index += 1) {
      const rank = index + 1;
      const grade = countedGrade(items[index]!.id, judgments, level, seen);
      if (grade >= 0) {
        if (isRelevant(grade, level)) {
          relevantSoFar += 1;
          precisionSum += relevantSoFar / rank;
          if (firstRank === 0) firstRank = rank;
        }
        const gain = gainOf(grade);
        if (gain > 0) dcg += discountedGain(gain, rank);
      }
      if (rank === relevantCount) relevantAtR = relevantSoFar;
      while (slot < sortedCutoffs.length && sortedCutoffs[slot] === rank) {
        relevantAtCutoff[slot] = relevantSoFar;
        dcgAtCutoff[slot++] = dcg;
      }
    }
    // Cutoffs (and R) past the end of the ranking see everything retrieved.
    while (slot < sortedCutoffs.length) {
      relevantAtCutoff[slot] = relevantSoFar;
      dcgAtCutoff[slot++] = dcg;
    }
    if (relevantCount > items.length) relevantAtR = relevantSoFar;

    const noGold = relevantCount === 0 && policy === "not-applicable";
    const noGains = idealSum === 0 && policy === "not-applicable";
    const gold = (value: number): MetricValue => (noGold ? NO_GOLD : applicable(value));
    const graded = (numerator: number, ideal: number): MetricValue =>
      noGains ? NO_GAINS : applicable(ideal > 0 ? numerator / ideal : 0);

    const cutoffs = requested.map((k, position): CutoffEvaluation => {
      const cutoffSlot = slotOfRequested[position]!;
      if (cutoffSlot < 0) return invalidCutoff(k);
      const relevantInTop = relevantAtCutoff[cutoffSlot]!;
      return {
        k,
        precision: gold(relevantInTop / k),
        recall: gold(relevantCount === 0 ? 0 : relevantInTop / relevantCount),
        hit: gold(relevantInTop > 0 ? 1 : 0),
        ndcg: graded(dcgAtCutoff[cutoffSlot]!, idealDcgAtCutoff[cutoffSlot]!),
      };
    });

    return {
      retrievedCount: items.length,
      relevantCount,
      relevantRetrievedCount: relevantSoFar,
      firstRelevantRank: noGold ? NO_GOLD : firstRank === 0 ? NOTHING_RELEVANT_RETRIEVED : applicable(firstRank),
      reciprocalRank: gold(firstRank === 0 ? 0 : 1 / firstRank),
      averagePrecision: gold(relevantCount === 0 ? 0 : precisionSum / relevantCount),
      rPrecision: gold(relevantCount === 0 ? 0 : relevantAtR / relevantCount),
      ndcg: graded(dcg, idealSum),
      cutoffs,
      inputError: null,
    };
  }

  return { evaluate };
}

const NO_GOLD = notApplicable(NO_RELEVANT_JUDGMENTS_REASON);
const NO_GAINS = notApplicable(NO_POSITIVE_GRADES_REASON);
const NOTHING_RELEVANT_RETRIEVED = notApplicable("no relevant item was retrieved");

function invalidCutoff(k: number): CutoffEvaluation {
  const value = notApplicable(invalidCutoffReason(k)!);
  return { k, precision: value, recall: value, hit: value, ndcg: value };
}

/** Options that cannot be evaluated make every metric not applicable, with the reason. */
function invalidEvaluator(requested: readonly number[], reason: string): RankingEvaluator {
  return { evaluate: (items) => ({ ...unscorable(requested, items.length, reason), inputError: null }) };
}

/** Every metric not applicable with `reason`; the reason is also the input error. */
function unscorable(requested: readonly number[], retrievedCount: number, reason: string): RankingEvaluation {
  const value = notApplicable(reason);
  return {
    retrievedCount,
    relevantCount: 0,
    relevantRetrievedCount: 0,
    firstRelevantRank: value,
    reciprocalRank: value,
    averagePrecision: value,
    rPrecision: value,
    ndcg: value,
    cutoffs: requested.map((k) => ({ k, precision: value, recall: value, hit: value, ndcg: value })),
    inputError: reason,
  };
}
