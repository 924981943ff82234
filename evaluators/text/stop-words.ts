/**
 * Function words left out when checking whether a key point is covered
 * (key-point-coverage.ts): they carry no content, and a per-character Chinese
 * tokenizer makes them frequent enough to inflate overlap.
 *
 * Chinese (single characters, as normalizeText tokenizes Han text):
 *   的 地 得 了 着 过 和 与 及 或 是 在 也 都 就 而 并 把 被 之 其 吗 呢 吧 啊
 * English: articles, be-verbs, common prepositions, conjunctions and pronouns —
 *   the list below.
 * Negations (不 没 无 非 未 别, no, not, never, without) are deliberately NOT
 * stop words: "会扣回" and "不会扣回" must not look alike.
 */

export const CHINESE_STOP_CHARACTERS: ReadonlySet<string> = new Set([
  "的", "地", "得", "了", "着", "过", "和", "与", "及", "或", "是", "在", "也", "都", "就", "而", "并", "把", "被", "之", "其", "吗", "呢", "吧", "啊",
]);

export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([
  "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "by", "from", "as", "into", "about",
  "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did",
  "it", "its", "this", "that", "these", "those", "there", "their", "they", "them", "he", "she", "his", "her", "we", "our", "you", "your", "i", "me", "my",
  "will", "would", "shall", "should", "can", "could", "may", "might", "must", "has", "have", "had",
]);

export function isStopToken(token: string): boolean {
  return CHINESE_STOP_CHARACTERS.has(token) || ENGLISH_STOP_WORDS.has(token);
}

/** The tokens that carry content; all of them when every token is a stop word. */
export function contentTokens(tokens: readonly string[]): string[] {
  const content = tokens.filter((token) => !isStopToken(token));
  return content.length > 0 ? content : [...tokens];
}

/**
 * Negation words by family, for the polarity check of key-point-coverage.ts.
 * 无 is its own family: it mostly sits in fixed words (无需, 无条件, 无理由)
 * that do not negate a neighbouring statement the way 不 / 非 do. "t" is what
 * normalizeText leaves of "n't" ("isn't" → isn, t).
 */
export const NEGATION_FAMILIES: readonly ReadonlySet<string>[] = [
  new Set(["不", "没", "非", "未", "别", "勿", "莫", "否"]),
  new Set(["无"]),
  new Set(["not", "no", "never", "none", "nor", "without", "cannot", "t"]),
];
