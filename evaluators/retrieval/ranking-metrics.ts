/**
 * Ranked-retrieval metrics for one query, one metric per function (seed §三:
 * Recall@K, Hit@K, Precision@K, MRR, NDCG@K, first evidence rank).
 *
 * These follow trec_eval's definitions and, by default, its numbers: a query with
 * no relevant judgment scores 0 (`whenNoRelevantJudgments: "zero"`). Pass
 * "not-applicable" to get our product's reading instead. `evaluateRanking` computes
 * all of them for several cutoffs in one pass; prefer it when more than one metric is
 * needed. Each function here walks the list on its own, so the two implementations
 * check each other in the tests.
 *
 * Nothing here throws on empty input and nothing returns NaN: an invalid cutoff or
 * relevance level, or a ranking that repeats an id (repeated-ids.ts), gives a
 * not-applicable value with the reason.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { discountedGain, gainOf, idealDcg, idealGains } from "./discounted-gain.js";
import {
  NO_POSITIVE_GRADES_REASON,
  NO_RELEVANT_JUDGMENTS_REASON,
  countedGrade,
  invalidCutoffReason,
  invalidOptionsReason,
  isRelevant,
  relevanceLevelOf,
  relevantJudgmentCount,
  type RankedItem,
  type RankingMetricOptions,
  type RelevanceJudgments,
} from "./relevance-judgments.js";
import { findRepeatedId, repeatedIdMessage } from "./repeated-ids.js";

type Items = readonly RankedItem[];

/** trec_eval `success_k` (Hit@K): 1 when a relevant item is in the top k, else 0. */
export function hitAtK(items: Items, judgments: RelevanceJudgments, k: number, options: RankingMetricOptions = {}): MetricValue {
  return withRelevantCount(items, judgments, options, k, (level) =>
    applicable(relevantInTop(items, judgments, level, k) > 0 ? 1 : 0),
  );
}

/** trec_eval `P_k`: relevant in the top k, divided by k even when fewer than k were retrieved. */
export function precisionAtK(items: Items, judgments: RelevanceJudgments, k: number, options: RankingMetricOptions = {}): MetricValue {
  return withRelevantCount(items, judgments, options, k, (level) => applicable(relevantInTop(items, judgments, level, k) / k));
}

/** trec_eval `recall_k`: relevant in the top k, divided by all relevant judgments (num_rel). */
export function recallAtK(items: Items, judgments: RelevanceJudgments, k: number, options: RankingMetricOptions = {}): MetricValue {
  return withRelevantCount(items, judgments, options, k, (level, relevantCount) =>
    applicable(relevantCount === 0 ? 0 : relevantInTop(items, judgments, level, k) / relevantCount),
  );
}

/** trec_eval `Rprec`: precision at rank R, where R is the number of relevant judgments. */
export function rPrecision(items: Items, judgments: RelevanceJudgments, options: RankingMetricOptions = {}): MetricValue {
  return withRelevantCount(items, judgments, options, undefined, (level, relevantCount) =>
    applicable(relevantCount === 0 ? 0 : relevantInTop(items, judgments, level, relevantCount) / relevantCount),
  );
}

/** trec_eval `recip_rank`: 1 / rank of the first relevant item, 0 when none was retrieved. Its mean is MRR. */
export function reciprocalRank(items: Items, judgments: RelevanceJudgments, options: RankingMetricOptions = {}): MetricValue {
  return withRelevantCount(items, judgments, options, undefined, (level) => {
    const rank = firstRelevantRankOrZero(items, judgments, level);
    return applicable(rank === 0 ? 0 : 1 / rank);
  });
}

/**
 * trec_eval `map` for one query: the sum of the precision at each relevant retrieved
 * item, divided by num_rel (ALL relevant judgments, not only the retrieved ones;
 * ragas and deepeval divide by the relevant retrieved, see reference/metric-definitions.md §4).
 */
export function averagePrecision(items: Items, judgments: RelevanceJudgments, options: RankingMetricOptions = {}): MetricValue {
  return withRelevantCount(items, judgments, options, undefined, (level, relevantCount) => {
    if (relevantCount === 0) return applicable(0);
    const seen = new Set<string>();
    let relevantSoFar = 0;
    let sum = 0;
    for (let index = 0; index < items.length; index += 1) {
      if (isRelevant(countedGrade(items[index]!.id, judgments, level, seen), level)) {
        relevantSoFar += 1;
        sum += relevantSoFar / (index + 1);
      }
    }
    return applicable(sum / relevantCount);
  });
}

/** trec_eval `ndcg`: nDCG over the whole ranking, linear gain = grade, ideal from all positive judgments. */
export function ndcg(items: Items, judgments: RelevanceJudgments, options: RankingMetricOptions = {}): MetricValue {
  const invalid = rankingProblem(items, options, undefined);
  if (invalid !== undefined) return notApplicable(invalid);
  return ndcgUpTo(items, judgments, Number.POSITIVE_INFINITY, options);
}

/** trec_eval `ndcg_cut_k`: DCG of the top k over the ideal DCG of the top k. */
export function ndcgAtK(items: Items, judgments: RelevanceJudgments, k: number, options: RankingMetricOptions = {}): MetricValue {
  const invalid = rankingProblem(items, options, k);
  if (invalid !== undefined) return notApplicable(invalid);
  return ndcgUpTo(items, judgments, k, options);
}

/**
 * Rank (1-based) of the first relevant item (seed §三.5 "首条证据排名"). Not
 * applicable when no relevant item was retrieved: there is no rank to report,
 * and the miss already shows in recall and hit.
 */
export function firstRelevantRank(items: Items, judgments: RelevanceJudgments, options: RankingMetricOptions = {}): MetricValue {
  return withRelevantCount(items, judgments, options, undefined, (level) => {
    const rank = firstRelevantRankOrZero(items, judgments, level);
    return rank === 0 ? notApplicable("no relevant item was retrieved") : applicable(rank);
  });
}

/** trec_eval `num_rel_ret`: relevant items anywhere in the ranking (each id counted once). */
export function relevantRetrievedCount(items: Items, judgments: RelevanceJudgments, options: RankingMetricOptions = {}): MetricValue {
  return withRelevantCount(items, judgments, options, undefined, (level) =>
    applicable(relevantInTop(items, judgments, level, items.length)),
  );
}

/** Why the ranking cannot be scored: invalid options, then a repeated id, then an invalid cutoff (evaluateRanking's order). */
function rankingProblem(items: Items, options: RankingMetricOptions, k: number | undefined): string | undefined {
  const invalidOptions = invalidOptionsReason(options);
  if (invalidOptions !== undefined) return invalidOptions;
  const repeated = findRepeatedId(items.map((item) => item.id));
  if (repeated !== null) return repeatedIdMessage(repeated, "the ranking");
  return k === undefined ? undefined : invalidCutoffReason(k);
}

/**
 * Validates the options, the ranking (and the cutoff, when there is one), applies the
 * no-relevant-judgments policy, then computes.
 */
function withRelevantCount(
  items: Items,
  judgments: RelevanceJudgments,
  options: RankingMetricOptions,
  k: number | undefined,
  compute: (relevanceLevel: number, relevantCount: number) => MetricValue,
): MetricValue {
  const invalid = rankingProblem(items, options, k);
  if (invalid !== undefined) return notApplicable(invalid);
  const level = relevanceLevelOf(options);
  const relevantCount = relevantJudgmentCount(judgments, level);
  if (relevantCount === 0 && options.whenNoRelevantJudgments === "not-applicable") {
    return notApplicable(NO_RELEVANT_JUDGMENTS_REASON);
  }
  return compute(level, relevantCount);
}

function relevantInTop(items: Items, judgments: RelevanceJudgments, level: number, k: number): number {
  const seen = new Set<string>();
  const end = Math.min(k, items.length);
  let count = 0;
  for (let index = 0; index < end; index += 1) {
    if (isRelevant(countedGrade(items[index]!.id, judgments, level, seen), level)) count += 1;
  }
  return count;
}

function firstRelevantRankOrZero(items: Items, judgments: RelevanceJudgments, level: number): number {
  const seen = new Set<string>();
  for (let index = 0; index < items.length; index += 1) {
    if (isRelevant(countedGrade(items[index]!.id, judgments, level, seen), level)) return index + 1;
  }
  return 0;
}

/** nDCG up to rank k, for a ranking rankingProblem accepted. */
function ndcgUpTo(items: Items, judgments: RelevanceJudgments, k: number, options: RankingMetricOptions): MetricValue {
  const ideal = idealDcg(idealGains(judgments), k);
  if (ideal === 0) {
    return options.whenNoRelevantJudgments === "not-applicable" ? notApplicable(NO_POSITIVE_GRADES_REASON) : applicable(0);
  }
  // Duplicates are tracked with the relevance level, though gains ignore it: only
  // whether a positive grade was already counted matters here.
  const level = relevanceLevelOf(options);
  const seen = new Set<string>();
  const end = Math.min(k, items.length);
  let dcg = 0;
  for (let index = 0; index < end; index += 1) {
    const gain = gainOf(countedGrade(items[index]!.id, judgments, level, seen));
    if (gain > 0) dcg += discountedGain(gain, index + 1);
  }
  return applicable(dcg / ideal);
}
