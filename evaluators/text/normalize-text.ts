/**
 * The one text normalisation every text comparison in ragscope uses.
 *
 * 1. Unicode NFKC: full-width forms become their ASCII equivalents
 *    (`ＡＢＣ１２３` → `ABC123`, `，` → `,`), compatibility ideographs fold.
 * 2. Lower case (locale-independent).
 * 3. Punctuation and symbols (Unicode categories P and S) become spaces.
 * 4. Runs of white space collapse to one space; the ends are trimmed.
 *
 * Tokens: each CJK ideograph (and kana, hangul syllable) is one token, as the
 * CMRC 2018 and DuReader scripts split Chinese (their scoring differs: see
 * cmrc-f1.ts); a run of letters or digits in any
 * other script is one token, ending where CJK text starts ("VIP会员" → vip, 会,
 * 员; "iPhone15手机" → iphone15, 手, 机). Per-character tokens need no dictionary, are
 * deterministic across Node versions (unlike Intl.Segmenter's ICU data), and
 * give Chinese answers partial credit instead of the 0 a whitespace tokenizer
 * gives them.
 */

import { BoundedMemo } from "./bounded-memo.js";

const PUNCTUATION_OR_SYMBOL = /[\p{P}\p{S}]+/gu;
/**
 * White space to collapse: a run of two or more white-space characters, or
 * one that is not a plain space. A lone space (nearly all white space in a
 * text) is already what it becomes, so it is not matched and not replaced —
 * the same result as replacing every run, without a replacement per word.
 */
const WHITESPACE_TO_COLLAPSE = / \s+|[^\S ]\s*/gu;
/** Han ideographs, Hiragana, Katakana, Hangul syllables: one token per character. */
const CHARACTER_TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/**
 * A CJK character, or a run of letters and digits that stops at the next CJK
 * character: Han ideographs are letters (\p{L}) too, and without the stop
 * "VIP会员" would be the single token "vip会员" instead of vip, 会, 员.
 */
const TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])[\p{L}\p{N}])+/gu;

/** About 8 MB at most for each of the three memos below (2 million two-byte characters). */
const MEMO_CHARACTERS = 2_000_000;
const MEMO_MAX_TEXT_LENGTH = 16_384;
const normalized = new BoundedMemo<string>(MEMO_CHARACTERS, MEMO_MAX_TEXT_LENGTH, (result) => result.length);
/** Tokens are counted at their length plus a few characters for the array slot and string header. */
const tokenized = new BoundedMemo<readonly string[]>(MEMO_CHARACTERS, MEMO_MAX_TEXT_LENGTH, (tokens) => tokens.reduce((sum, token) => sum + token.length + 8, 0));
const compacted = new BoundedMemo<string>(MEMO_CHARACTERS, MEMO_MAX_TEXT_LENGTH, (result) => result.length);

function computeNormalized(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(PUNCTUATION_OR_SYMBOL, " ").replace(WHITESPACE_TO_COLLAPSE, " ").trim();
}

function computeTokens(text: string): readonly string[] {
  return normalizeText(text).match(TOKEN) ?? [];
}

export function normalizeText(text: string): string {
  return normalized.get(text, computeNormalized);
}

/**
 * Normalised text with every space removed: for containment tests across
 * languages. Remembered like the normalisation: a chunk that recurs across
 * traces (a popular document) is compacted once while remembered, and the
 * root-cause steps compact the same chunk texts once per pair they compare.
 * Texts that never recur gain nothing and cost a map entry within the bound.
 */
export function compactText(text: string): string {
  return compacted.get(text, computeCompact);
}

function computeCompact(text: string): string {
  return normalizeText(text).replace(/ /g, "");
}

/** A new array each call (callers may change it); the tokens are remembered (bounded-memo.ts). */
export function tokenize(text: string): string[] {
  return [...tokenized.get(text, computeTokens)];
}

export function isCharacterToken(token: string): boolean {
  return CHARACTER_TOKEN.test(token);
}
