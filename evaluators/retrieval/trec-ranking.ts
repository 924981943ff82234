/**
 * trec_eval's way of turning a scored run into a ranking, for reproducing
 * trec_eval numbers only. Trace rankings are NOT re-sorted: there the order the
 * pipeline recorded is the ranking.
 *
 * trec_eval ignores the run's rank column and sorts by score descending, breaking
 * ties by docno DESCENDING in strcmp (byte) order (form_res_rels.c comp_sim_docno;
 * shared/testdata/trec_eval/README.md "Ranking and tie-breaking"). `-M n` keeps the
 * top n after that sort.
 */
import type { RankedItem } from "./relevance-judgments.js";

export interface ScoredItem extends RankedItem {
  readonly score: number;
}

export interface TrecRankingOptions {
  /** trec_eval `-M`: keep only the first n after sorting. */
  readonly truncateTo?: number;
}

/**
 * A new array of the results in trec_eval's rank order. A NaN score (which
 * trec_eval's comparison leaves unordered) ranks after every number, so the sort
 * stays a total order.
 */
export function rankLikeTrecEval<Item extends ScoredItem>(results: readonly Item[], options: TrecRankingOptions = {}): Item[] {
  const ranked = [...results].sort(compareLikeTrecEval);
  if (options.truncateTo === undefined) return ranked;
  if (!Number.isSafeInteger(options.truncateTo) || options.truncateTo < 0) {
    throw new RangeError(`truncateTo must be a non-negative integer, got ${options.truncateTo}`);
  }
  return ranked.slice(0, options.truncateTo);
}

function compareLikeTrecEval(left: ScoredItem, right: ScoredItem): number {
  if (left.score > right.score) return -1;
  if (left.score < right.score) return 1;
  const leftIsNaN = Number.isNaN(left.score);
  if (leftIsNaN !== Number.isNaN(right.score)) return leftIsNaN ? 1 : -1;
  return compareByteOrder(right.id, left.id);
}

/**
 * strcmp order of the UTF-8 encodings, without encoding. UTF-8 byte order is code
 * point order; UTF-16 code unit order (JavaScript's `<`) differs from it only when
 * a surrogate (U+D800-U+DFFF, part of a code point above U+FFFF) meets a unit in
 * U+E000-U+FFFF. Shifting those two ranges restores code point order.
 */
export function compareByteOrder(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index += 1) {
    const leftUnit = left.charCodeAt(index);
    const rightUnit = right.charCodeAt(index);
    if (leftUnit !== rightUnit) return codePointOrderKey(leftUnit) - codePointOrderKey(rightUnit);
  }
  return left.length - right.length;
}

function codePointOrderKey(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}
