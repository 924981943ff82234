/**
 * How the official CMRC 2018 scorer (github.com/ymcui/cmrc2018,
 * `cmrc2018_evaluate.py` v6, `mixed_segmentation(text, rm_punc=True)` and
 * `remove_punctuation`) turns an answer into tokens, reimplemented so
 * `cmrc_f1` and `cmrc_exact_match` give the scorer's numbers.
 *
 * Segmentation: lower-case, strip the ends, drop every character of the
 * scorer's punctuation list (CMRC_PUNCTUATION) — without ending the current
 * run, so "20:30" becomes "2030" and "COVID-19" becomes "covid19"; each
 * character in U+4E00–U+9FA5 is one token; every other run of characters
 * (Latin, digits, spaces, ASCII punctuation, full-width forms, 〇, …) is split
 * by nltk's word tokenizer, so "20.0%" is ["20.0", "%"] and "Beijing." is
 * ["beijing", "."]. Nothing is NFKC-folded: "２０１８" is not "2018" there.
 *
 * Exact-match text: lower-case, strip, drop the punctuation list; spaces and
 * ASCII punctuation other than the list's still count.
 *
 * Differences: the scorer's word tokenizer first splits a run into sentences
 * with nltk's punkt model; this one treats each run as one sentence, which
 * differs only where a run holds ".", "?" or "!" followed by white space and
 * more text (an English sentence inside a Chinese answer).
 */
import { treebankWordTokenize } from "./treebank-word-tokenize.js";

/**
 * The scorer's `sp_char` list, as written. Its "……" entry is two characters and
 * the scorer compares single characters, so an ellipsis is never removed.
 */
export const CMRC_PUNCTUATION: ReadonlySet<string> = new Set([
  "-", ":", "_", "*", "^", "/", "\\", "~", "`", "+", "=",
  "，", "。", "：", "？", "！", "“", "”", "；", "’", "《", "》", "……", "·", "、",
  "「", "」", "（", "）", "－", "～", "『", "』",
]);

/** Python's str.strip() white space. */
const PYTHON_SPACE_AT_ENDS = /^[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/gu;

function isScoredChineseCharacter(character: string): boolean {
  const code = character.codePointAt(0)!;
  return code >= 0x4e00 && code <= 0x9fa5;
}

function prepared(text: string): string {
  return text.toLowerCase().replace(PYTHON_SPACE_AT_ENDS, "");
}

export function cmrcSegments(text: string): string[] {
  const segments: string[] = [];
  let run = "";
  for (const character of prepared(text)) {
    if (CMRC_PUNCTUATION.has(character)) continue;
    if (isScoredChineseCharacter(character)) {
      if (run !== "") segments.push(...treebankWordTokenize(run));
      run = "";
      segments.push(character);
    } else {
      run += character;
    }
  }
  if (run !== "") segments.push(...treebankWordTokenize(run));
  return segments;
}

export function cmrcExactMatchText(text: string): string {
  let result = "";
  for (const character of prepared(text)) if (!CMRC_PUNCTUATION.has(character)) result += character;
  return result;
}
