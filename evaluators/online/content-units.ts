/**
 * Content units: what "the claim's words are found in the context" compares,
 * for reference-free checks (heuristic groundedness, prompt-injection
 * following).
 *
 * Built on THE tokenizer (text/normalize-text.ts) and its stop words
 * (text/stop-words.ts):
 * 1. the text is normalised and cut at punctuation and spaces into segments;
 * 2. each segment is tokenized; stop words and pure numbers are dropped
 *    (numbers are compared as facts, with their units, not as words);
 * 3. consecutive CJK character tokens of a segment form bigrams ("年假申请" →
 *    年假, 假申, 申请); a CJK character with no CJK neighbour is a unit alone;
 * 4. every other token is a unit; English plurals fold to the singular by
 *    dropping a final "s" (not "ss", words of 4+ letters): "refunds" = "refund".
 *
 * Why bigrams: one Chinese character is one token, and single common
 * characters (可, 以, 用) are found in almost any long context, so a
 * character-level overlap would call nearly every Chinese sentence supported.
 * Two adjacent characters approximate a word without a dictionary. The same
 * transformation is applied to both sides, so a stop character dropped from
 * "未使用的年假" and from the context leaves the same bigram 用年 on both.
 */
import { isCharacterToken, normalizeText, tokenize } from "../text/normalize-text.js";
import { isStopToken } from "../text/stop-words.js";

const NUMBER_TOKEN = /^\p{N}+$/u;

function foldPlural(token: string): string {
  return token.length >= 4 && token.endsWith("s") && !token.endsWith("ss") && /^[a-z]+$/.test(token) ? token.slice(0, -1) : token;
}

/** The units of one segment (normalised text between spaces): its tokens without stop words and numbers, CJK runs as bigrams. */
function segmentUnits(segment: string): string[] {
  const units: string[] = [];
  const tokens = tokenize(segment).filter((token) => !isStopToken(token) && !NUMBER_TOKEN.test(token));
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index]!;
    if (!isCharacterToken(token)) {
      units.push(foldPlural(token));
      continue;
    }
    const previous = tokens[index - 1];
    const next = tokens[index + 1];
    const nextIsCharacter = next !== undefined && isCharacterToken(next);
    if (nextIsCharacter) units.push(token + next);
    else if (previous === undefined || !isCharacterToken(previous)) units.push(token);
  }
  return units;
}

/**
 * A segment's units depend on the segment alone, and a long text repeats its
 * words: a 2,500-character context has ~450 segments and a few dozen distinct
 * ones. Each distinct segment is worked out once per call, not once per
 * occurrence (the tokenizer's memo is global and bounded; under traffic whose
 * texts never recur it churns, and copying and filtering a segment's tokens
 * again cost more than looking the segment up).
 */
function forEachSegment(text: string, visit: (units: readonly string[], firstTime: boolean) => void): void {
  const known = new Map<string, readonly string[]>();
  for (const segment of normalizeText(text).split(" ")) {
    const units = known.get(segment);
    if (units !== undefined) {
      visit(units, false);
      continue;
    }
    const computed = segmentUnits(segment);
    known.set(segment, computed);
    visit(computed, true);
  }
}

/** The content units of a text, in order, with repetitions. */
export function contentUnits(text: string): string[] {
  const units: string[] = [];
  forEachSegment(text, (segment) => {
    for (const unit of segment) units.push(unit);
  });
  return units;
}

/** Distinct units of `text` found in `reference` (a unit set), and the distinct units of `text`. */
export function unitRecall(text: string, reference: ReadonlySet<string>): { found: string[]; missing: string[]; recall: number | null } {
  const distinct = [...new Set(contentUnits(text))];
  if (distinct.length === 0) return { found: [], missing: [], recall: null };
  const found = distinct.filter((unit) => reference.has(unit));
  return { found, missing: distinct.filter((unit) => !reference.has(unit)), recall: found.length / distinct.length };
}

/** The distinct units of a text, in order of first appearance (a repeated segment adds nothing new). */
export function unitSet(text: string): Set<string> {
  const units = new Set<string>();
  forEachSegment(text, (segment, firstTime) => {
    if (firstTime) for (const unit of segment) units.add(unit);
  });
  return units;
}
