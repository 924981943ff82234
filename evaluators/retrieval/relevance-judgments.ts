/**
 * Inputs shared by the ranked-retrieval metrics, and the rules that decide what an
 * item at a rank counts for. The rules follow trec_eval (see
 * shared/testdata/trec_eval/README.md, "Definitions, checked against the source").
 */

/** One retrieved item. A list of these is in rank order: the order given IS the ranking. */
export interface RankedItem {
  readonly id: string;
}

/**
 * Gold relevance grades by item id (a qrels for one query). A negative grade means
 * "judged as unjudged" (in the pool but not assessed): it is neither relevant nor
 * non-relevant. 0 is non-relevant; >= 1 is relevant at the default level. Grades
 * 0-3 are typical (seed §三.4: 3 direct evidence, 2 strong, 1 weak, 0 none) but any
 * finite number is accepted. A non-finite grade is treated like no judgment.
 */
export type RelevanceJudgments = ReadonlyMap<string, number>;

/** trec_eval's default `-l`: relevant means grade >= 1. */
export const DEFAULT_RELEVANCE_LEVEL = 1;

/**
 * What a metric reports for a query without any relevant judgment.
 * - "zero": trec_eval's number (recall, P, map, ... are 0; ndcg is 0 when the ideal DCG is 0).
 * - "not-applicable": our product's reading: without gold evidence there is nothing to measure.
 */
export type NoRelevantJudgmentsPolicy = "zero" | "not-applicable";

export interface RankingMetricOptions {
  /** Relevant means grade >= relevanceLevel (trec_eval `-l`). nDCG ignores it and uses raw grades. */
  readonly relevanceLevel?: number;
  readonly whenNoRelevantJudgments?: NoRelevantJudgmentsPolicy;
}

/** Counted grade of an item that contributes nothing: not judged, judged-unjudged, or a duplicate. */
export const COUNTS_FOR_NOTHING = -1;

export const NO_RELEVANT_JUDGMENTS_REASON = "no relevant judgments (no gold evidence) for this query";
export const NO_POSITIVE_GRADES_REASON = "no judgment with a grade above 0 (no gold evidence) for this query";

/** A usable judged grade, or COUNTS_FOR_NOTHING for a missing, negative or non-finite one. */
export function usableGrade(grade: number | undefined): number {
  return grade !== undefined && grade >= 0 && Number.isFinite(grade) ? grade : COUNTS_FOR_NOTHING;
}

/** trec_eval counts a judged doc as relevant when rel >= level and rel >= 0 (form_res_rels.c). */
export function isRelevant(countedGrade: number, relevanceLevel: number): boolean {
  return countedGrade >= 0 && countedGrade >= relevanceLevel;
}

/**
 * The grade the item with `id` counts with at its rank.
 *
 * A ranking that repeats an id is refused before it is scored (repeated-ids.ts),
 * as trec_eval refuses it ("duplicate docs"). The bookkeeping below still counts
 * a second occurrence for nothing, so no caller can push recall, precision or
 * nDCG above 1.
 * `seen` collects the ids that already contributed; only contributing ids are added,
 * so the set stays as small as the gold set.
 */
export function countedGrade(
  id: string,
  judgments: RelevanceJudgments,
  relevanceLevel: number,
  seen: Set<string>,
): number {
  const grade = usableGrade(judgments.get(id));
  if (grade === COUNTS_FOR_NOTHING) return COUNTS_FOR_NOTHING;
  // A grade-0 item neither gains nor is relevant (unless the level is <= 0): no bookkeeping needed.
  if (grade === 0 && relevanceLevel > 0) return 0;
  if (seen.has(id)) return COUNTS_FOR_NOTHING;
  seen.add(id);
  return grade;
}

/** trec_eval `num_rel`: every judgment at or above the level, retrieved or not. */
export function relevantJudgmentCount(judgments: RelevanceJudgments, relevanceLevel: number): number {
  let count = 0;
  for (const grade of judgments.values()) {
    if (isRelevant(usableGrade(grade), relevanceLevel)) count += 1;
  }
  return count;
}

export function relevanceLevelOf(options: RankingMetricOptions): number {
  return options.relevanceLevel ?? DEFAULT_RELEVANCE_LEVEL;
}

/** Reason an option set cannot be evaluated, or undefined when it can. */
export function invalidOptionsReason(options: RankingMetricOptions): string | undefined {
  const level = relevanceLevelOf(options);
  if (!Number.isFinite(level)) return `relevance level must be a finite number, got ${level}`;
  return undefined;
}

/** Reason a cutoff k cannot be evaluated, or undefined when it can. */
export function invalidCutoffReason(k: number): string | undefined {
  if (!Number.isSafeInteger(k) || k < 1) return `cutoff k must be a positive integer, got ${k}`;
  return undefined;
}
