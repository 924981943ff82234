/**
 * How the policy assistant reads text: the lexical terms its retriever and
 * generator match on, and the token counts its context budget and cost use.
 *
 * Both are deliberately simple and deterministic so that a reader can redo
 * every score by hand (examples/README.md walks through one case):
 *
 * - Terms: Chinese is cut into overlapping character bigrams (a run of one
 *   Han character stays a unigram); English and numbers are lower-cased words
 *   with a small stop-word list and a plural "s" stripped. Punctuation splits
 *   runs, so no bigram spans a comma.
 * - Tokens: one per Han character, one per English word or number.
 *   Punctuation and whitespace are free.
 */

/** A run of Han characters, or a run of ASCII letters and digits (with an inner apostrophe). */
const RUN_PATTERN = /\p{Script=Han}+|[a-z0-9]+(?:'[a-z]+)?/gu;
const HAN_PATTERN = /\p{Script=Han}/u;
const TOKEN_PATTERN = /\p{Script=Han}|[A-Za-z0-9]+(?:'[A-Za-z]+)?/gu;

/** English words too common to say anything about relevance. */
const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([
  "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "has", "have",
  "how", "i", "if", "in", "is", "it", "its", "i'm", "me", "my", "of", "on", "or", "our", "the", "their",
  "this", "to", "we", "what", "when", "where", "which", "who", "will", "with", "you", "your",
]);

function normalize(text: string): string {
  // NFKC folds full-width letters and digits (ＡＢ１２) into ASCII ones.
  return text.normalize("NFKC").toLowerCase();
}

function stemEnglish(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/** The terms of a text, in order, with repetitions (BM25 needs term frequencies). */
export function lexicalTerms(text: string): string[] {
  const terms: string[] = [];
  for (const match of normalize(text).matchAll(RUN_PATTERN)) {
    const run = match[0];
    if (HAN_PATTERN.test(run)) {
      const characters = Array.from(run);
      if (characters.length === 1) terms.push(run);
      for (let index = 0; index + 1 < characters.length; index += 1) {
        terms.push(`${characters[index]}${characters[index + 1]}`);
      }
    } else if (!ENGLISH_STOP_WORDS.has(run)) {
      terms.push(stemEnglish(run));
    }
  }
  return terms;
}

/** The distinct terms of a text, in first-seen order. */
export function distinctTerms(text: string): string[] {
  return [...new Set(lexicalTerms(text))];
}

/** Token count: one per Han character, one per English word or number. */
export function countTokens(text: string): number {
  return text.normalize("NFKC").match(TOKEN_PATTERN)?.length ?? 0;
}

/** True when the text contains a Han character (the assistant then answers in Chinese). */
export function containsChinese(text: string): boolean {
  return HAN_PATTERN.test(text);
}
