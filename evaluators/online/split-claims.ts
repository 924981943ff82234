/**
 * Splits an answer into claims, one per sentence, for the heuristic
 * groundedness check (seed 004 §五.3: 拆分原子事实 — atomic claims; without a
 * model a sentence is the closest cut).
 *
 * A sentence ends at 。！？；!?; a line break, an ellipsis (… or ……), or a "."
 * followed by a space or the end of the text — not a "." between digits
 * (3.5 天) or inside an abbreviation without a following space (e.g.). List
 * markers at the start of a line ("1.", "-", "•", "（1）") and citation markers
 * ([1], [doc_2], 【1】, ^1) are removed: they are layout, not content, and a
 * citation number would otherwise read as an unsupported number.
 */

const SENTENCE_END = /(?<=[。！？；!?;…])|(?<=\.)(?=\s|$)|\n+/u;
const CITATION_MARKER = /\[[^\]\n]{1,24}\]|【[^】\n]{1,24}】|\^\d+/gu;
const LIST_MARKER = /^\s*(?:[-*•·]|\d{1,2}[.)、]|[（(]\d{1,2}[)）]|[一二三四五六七八九十]、)\s*/u;

export function removeCitationMarkers(text: string): string {
  return text.replace(CITATION_MARKER, " ");
}

export function splitClaims(answer: string): string[] {
  const claims: string[] = [];
  for (const line of answer.split(/\r?\n/)) {
    const withoutMarker = removeCitationMarkers(line.replace(LIST_MARKER, ""));
    for (const piece of withoutMarker.split(SENTENCE_END)) {
      // The sentence's own end mark is not part of the claim.
      const claim = piece.replace(/[\s。！？；!?;….]+$/u, "").trim();
      // Pieces of punctuation alone ("…", "!") carry nothing to check.
      if (/[\p{L}\p{N}]/u.test(claim)) claims.push(claim);
    }
  }
  return claims;
}
