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
import { overlapCount } from "../text/token-counts.js";

export function tokenBigrams(tokens: readonly string[]): string[] {
  if (tokens.length <= 1) return [...tokens];
  const bigrams: string[] = [];
  for (let index = 1; index < tokens.length; index += 1) bigrams.push(`${tokens[index - 1]} ${tokens[index]}`);
  return bigrams;
}

export function textBigrams(text: string): string[] {
  return tokenBigrams(tokenize(text));
}

/** Null when `text` has no token: there is nothing to look for. */
export function overlapShare(text: string, other: string): number | null {
  return overlapShareOfBigrams(textBigrams(text), textBigrams(other));
}

/** overlapShare from bigrams already taken (textBigrams), for callers that compare one text with many. */
export function overlapShareOfBigrams(wanted: readonly string[], other: readonly string[]): number | null {
  if (wanted.length === 0) return null;
  return overlapCount(wanted, other) / wanted.length;
}
