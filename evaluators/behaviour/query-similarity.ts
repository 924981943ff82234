/**
 * When two questions are near-duplicates: the Jaccard similarity of their
 * token sets, |A ∩ B| / |A ∪ B|, after the project's one text normalisation
 * (evaluators/text/normalize-text.ts: NFKC, lower case, punctuation removed;
 * a token is a word, or one CJK character). Word order and punctuation do not
 * matter; "How do refunds work?" and "how do refunds work" are 1.0, "how do
 * refunds work" and "how do returns work" are 3 / 5 = 0.6. A question with no
 * token is nobody's duplicate.
 */
import { tokenize } from "../text/normalize-text.js";

export function querySimilarity(left: string, right: string): number {
  const leftTokens = new Set(tokenize(left));
  const rightTokens = new Set(tokenize(right));
  if (leftTokens.size === 0 || rightTokens.size === 0) return 0;
  let shared = 0;
  for (const token of leftTokens) if (rightTokens.has(token)) shared += 1;
  return shared / (leftTokens.size + rightTokens.size - shared);
}
