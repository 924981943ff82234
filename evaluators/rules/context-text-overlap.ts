/**
 * How much of one text another text already holds: the token overlap used by
 * context redundancy, citation coverage and root-cause attribution.
 *
 * overlapShare(text, other) = |bigrams(text) ∩ bigrams(other)| / |bigrams(text)|,
 * with multiset intersection, over normalizeText tokens (text/normalize-text.ts).
 * Bigrams of adjacent tokens, not single tokens: the tokenizer makes every
 * Chinese character a token, and two different passages on one topic share
 * most of their characters ("员工每年享有5天年假" and "员工每年享有10天病假"
 * share 8 of 10 tokens, 0.8, but 5 of 9 bigrams), so a bag of characters would
 * call unrelated chunks near-duplicates. A one-token text is its own single
 * "bigram". The share is asymmetric on purpose: it asks whether `other` holds
 * `text`, not the reverse.
 */
import { tokenize } from "../text/normalize-text.js";
import { countTokens, overlapCount, overlapOfCounts } from "../text/token-counts.js";

export function tokenBigrams(tokens: readonly string[]): string[] {
  if (tokens.length <= 1) return [...tokens];
  const bigrams: string[] = [];
  for (let index = 1; index < tokens.length; index += 1) bigrams.push(`${tokens[index - 1]} ${tokens[index]}`);
  return bigrams;
}

export function textBigrams(text: string): string[] {
  return tokenBigrams(tokenize(text));
}

/** Null when `text` has no token: there is nothing to look for. Comparing one text with many: bigramCountsOf. */
export function overlapShare(text: string, other: string): number | null {
  const wanted = textBigrams(text);
  if (wanted.length === 0) return null;
  return overlapCount(wanted, textBigrams(other)) / wanted.length;
}

/** A text's bigrams as a multiset: overlapShare's two sides, counted once for many comparisons. */
export interface BigramCounts {
  readonly counts: ReadonlyMap<number, number> | ReadonlyMap<string, number>;
  /** Bigrams with repeats: overlapShare's denominator. */
  readonly total: number;
}

/**
 * Distinct tokens up to which a bigram is one small integer (first id × this + second id, below 2^30: V8 hashes it
 * without making a string). Past it the texts' bigrams are counted as strings, as tokenBigrams writes them.
 */
const TOKEN_IDS = 32_768;

/**
 * The bigram counts of several texts that will be compared pairwise (null for a text not recorded). Counting each
 * bigram as a new string cost most of context redundancy's time (hashing ~90 fresh strings a chunk); within one call
 * the tokens get shared ids and a bigram is a number. A one-token text's single "bigram" is the token itself, which
 * no two-token bigram equals (tokens hold no space): it is a negative number here.
 */
export function bigramCountsOf(texts: readonly (string | null)[]): (BigramCounts | null)[] {
  const tokenized = texts.map((text) => (text === null ? null : tokenize(text)));
  const ids = new Map<string, number>();
  for (const tokens of tokenized) for (const token of tokens ?? []) if (!ids.has(token)) ids.set(token, ids.size);
  if (ids.size > TOKEN_IDS) return tokenized.map((tokens) => (tokens === null ? null : { counts: countTokens(tokenBigrams(tokens)), total: bigramTotal(tokens) }));
  return tokenized.map((tokens) => {
    if (tokens === null) return null;
    const counts = new Map<number, number>();
    if (tokens.length === 1) counts.set(-1 - ids.get(tokens[0]!)!, 1);
    let previous = tokens.length > 0 ? ids.get(tokens[0]!)! : 0;
    for (let index = 1; index < tokens.length; index += 1) {
      const current = ids.get(tokens[index]!)!;
      const bigram = previous * TOKEN_IDS + current;
      counts.set(bigram, (counts.get(bigram) ?? 0) + 1);
      previous = current;
    }
    return { counts, total: bigramTotal(tokens) };
  });
}

/** How many bigrams tokenBigrams makes of these tokens. */
function bigramTotal(tokens: readonly string[]): number {
  return tokens.length <= 1 ? tokens.length : tokens.length - 1;
}

/** overlapShare from two texts' counts of one bigramCountsOf call; null when `wanted` has no token. */
export function overlapShareOfCounts(wanted: BigramCounts, other: BigramCounts): number | null {
  if (wanted.total === 0) return null;
  return overlapOfCounts(wanted.counts as ReadonlyMap<unknown, number>, other.counts as ReadonlyMap<unknown, number>) / wanted.total;
}
