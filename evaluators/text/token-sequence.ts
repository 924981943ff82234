/**
 * Contiguous token-sequence search over normalizeText tokens. Searching tokens
 * instead of characters keeps English word boundaries ("art" is not found in
 * "start") while CJK text, one token per character, matches regardless of
 * spacing.
 */
import { tokenize } from "./normalize-text.js";

/** Index of the first occurrence of `needle` in `haystack`, or -1. An empty needle is at 0. */
export function indexOfTokenSequence(haystack: readonly string[], needle: readonly string[]): number {
  const last = haystack.length - needle.length;
  for (let start = 0; start <= last; start += 1) {
    let index = 0;
    while (index < needle.length && haystack[start + index] === needle[index]) index += 1;
    if (index === needle.length) return start;
  }
  return -1;
}

/** True when the tokens of `phrase` occur, in order and adjacent, among the tokens of `text`. */
export function containsPhrase(text: string, phrase: string): boolean {
  const needle = tokenize(phrase);
  return needle.length > 0 && indexOfTokenSequence(tokenize(text), needle) >= 0;
}
