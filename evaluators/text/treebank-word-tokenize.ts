/**
 * nltk's word tokenizer for one sentence (`NLTKWordTokenizer.tokenize`, the
 * "improved Treebank" rules `nltk.word_tokenize` applies to each sentence, as of
 * nltk 3.10.4), for scoring the way the CMRC 2018 official scorer segments the
 * non-Chinese parts of an answer.
 *
 * What it does, in order: opening quotes become separate tokens; punctuation is
 * split off (the final period, ":" and "," unless a digit follows — so "20.0",
 * "3.5" and "1,000" stay whole —, runs of dots, ; @ # $ % &, dashes
 * U+2012–U+2015, ? ! and *); brackets and "--" are split off; closing quotes
 * and the English clitics ('s 'm 'd 'll 're 've n't, cannot, gonna, ...) are
 * split; the result is split on white space.
 *
 * nltk runs these as Python `re` substitutions, whose classes are Unicode-aware
 * and whose `$` also matches before a final newline; the patterns below spell
 * that out because JavaScript's \w, \d, \s, \b and $ differ.
 *
 * Not included: nltk.word_tokenize first splits the text into sentences with
 * its punkt model (a download), which can split after ". ", "? " or "! ".
 * This tokenizer treats the whole text as one sentence.
 */

/** Python's str.isspace characters (`\s` and `str.split()` in Python 3). */
const SPACE = "[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
/** Python's Unicode `\w`: letters, numbers, underscore. */
const WORD = "[\\p{L}\\p{N}_]";
/** Python's `\b`. */
const BOUNDARY = `(?:(?<=${WORD})(?!${WORD})|(?<!${WORD})(?=${WORD}))`;
/** Python's `$` without MULTILINE: the end, or just before a newline that ends the text. */
const END = "(?=\\n?$)";

type Rule = readonly [RegExp, string];

const rule = (pattern: string, replacement: string, flags = ""): Rule => [new RegExp(pattern, `gu${flags}`), replacement];

const STARTING_QUOTES: readonly Rule[] = [
  rule("([«“‘„]|[`]+)", " $1 "),
  rule('^"', "``"),
  rule("(``)", " $1 "),
  rule(`([ ([{<])("|'{2})`, "$1 `` "),
  rule(`(?<!${WORD})(')(?!(?:re|ve|ll|m|t|s|d|n)${BOUNDARY})(?=${WORD})`, "$1 ", "i"),
];

const PUNCTUATION: readonly Rule[] = [
  rule(`([^.])(\\.)([\\])}>"'»”’ ]*)${SPACE}*${END}`, "$1 $2 $3 "),
  rule("([:,])([^\\p{Nd}])", " $1 $2"),
  rule(`([:,])${END}`, " $1 "),
  rule("\\.{2,}", " $& "),
  rule("[;@#$%&]", " $& "),
  rule("[\\u2012-\\u2015]", " $& "),
  rule(`([^.])(\\.)([\\])}>"']*)${SPACE}*${END}`, "$1 $2$3 "),
  rule("[?!]", " $& "),
  rule("([^'])' ", "$1 ' "),
  rule("[*]", " $& "),
];

const PARENS_BRACKETS: Rule = rule("[\\][(){}<>]", " $& ");
const DOUBLE_DASHES: Rule = rule("--", " -- ");

const ENDING_QUOTES: readonly Rule[] = [
  rule("([»”’])", " $1 "),
  rule("''", " '' "),
  rule('"', " '' "),
  rule(`${SPACE}+`, " "),
  rule("([^' ])('[sS]|'[mM]|'[dD]|') ", "$1 $2 "),
  rule("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "$1 $2 "),
];

/** Robert MacIntyre's contractions, split in two: "cannot" → can not, "gonna" → gon na. */
const CONTRACTIONS: readonly Rule[] = [
  ...["(can)(not)", "(d)('ye)", "(gim)(me)", "(gon)(na)", "(got)(ta)", "(lem)(me)", "(more)('n)"].map((pair) => rule(`${BOUNDARY}${pair}${BOUNDARY}`, " $1 $2 ", "i")),
  rule(`${BOUNDARY}(wan)(na)(?=${SPACE})`, " $1 $2 ", "i"),
  rule(` ('t)(is)${BOUNDARY}`, " $1 $2 ", "i"),
  rule(` ('t)(was)${BOUNDARY}`, " $1 $2 ", "i"),
];

const SPLIT = new RegExp(`${SPACE}+`, "u");

function applyAll(text: string, rules: readonly Rule[]): string {
  let result = text;
  for (const [pattern, replacement] of rules) result = result.replace(pattern, replacement);
  return result;
}

export function treebankWordTokenize(text: string): string[] {
  let result = applyAll(text, STARTING_QUOTES);
  result = applyAll(result, PUNCTUATION);
  result = applyAll(result, [PARENS_BRACKETS, DOUBLE_DASHES]);
  result = applyAll(` ${result} `, ENDING_QUOTES);
  result = applyAll(result, CONTRACTIONS);
  return result.split(SPLIT).filter((token) => token !== "");
}
