/**
 * The one splitter of answers into sentences and claims, shared by citation
 * coverage (rules/citation-coverage.ts), the claim-overlap measure
 * (online/heuristic-groundedness.ts), root-cause attribution and the
 * heuristic judge (judge/heuristic-support.ts), so they all cut an answer the
 * same way (seed 004 §五.3: 拆分原子事实 — atomic claims; without a model a
 * sentence, cut again at clause breaks, is the closest cut).
 *
 * Sentences end at 。！？；;!? and … (always), at a "." followed by white
 * space or the end of the text (so "3.5 天", "v1.2" and "e.g." inside a word
 * stay whole), and at line breaks. A citation marker written right after the
 * end mark ("…年假。[1]") belongs to the sentence it follows. List markers at
 * the start of a line ("1.", "-", "•", "（1）", "三、") and pieces without a
 * letter or digit are layout, not sentences.
 *
 * Citation markers: [1], [^1], ^1, 【…】 (【1】, 【来源：员工手册】),
 * [source: …] / [来源: …] / [ref …], and a bracketed id ([doc_2], [chunk-7]).
 * They are kept in a sentence's `text` and `markers` (citation coverage reads
 * them) and removed from its `claim` (a citation number is not a fact the
 * answer states).
 *
 * Claims (answerClaims): each sentence's claim text is cut again at a comma
 * that introduces a further statement (，且 / ，但 / , and / , but …), so
 * "5天年假，且未使用的可折现" is two claims, as a judge splitting atomic facts
 * would make it. Then two kinds of pieces are set aside, not checked:
 * - preambles: a lead-in that announces what follows rather than stating it —
 *   a piece ending with a colon ("Here's a concise summary of the passage:",
 *   "总结如下："), or a lead-in phrase before a colon ("Here is the summary:
 *   …" keeps only what follows the colon);
 * - abstentions: pieces with an abstention phrase (text/abstention-phrases.ts).
 *   Only the piece that abstains is set aside; the answer's other claims are
 *   still claims ("The passage does not say when, but it opened in 1933" keeps
 *   "it opened in 1933").
 */
import { findAbstentionPhrase } from "./abstention-phrases.js";

export interface AnswerSentence {
  /** The sentence as written, citation markers and end mark included. */
  text: string;
  /** The citation markers the sentence carries. */
  markers: string[];
  /** The sentence without citation markers: what it states. */
  claim: string;
  /** True when the sentence only introduces what follows (see above). */
  preamble: boolean;
}

export interface AnswerClaims {
  /** The pieces to check, in order. */
  claims: string[];
  /** Pieces set aside because they say the information is unavailable. */
  abstentions: string[];
  /** Pieces set aside because they only introduce what follows. */
  preambles: string[];
}

const MARKER_SOURCE = String.raw`\[\^?\d{1,3}\]|\^\d{1,3}(?!\d)|【[^】\n]{1,60}】|\[(?:source|sources|ref|cite|来源|出处)[^\]\n]{0,60}\]|\[[A-Za-z][\w.:#/-]{0,40}[_\-:#/.]\w{0,40}\]`;
const MARKER = new RegExp(MARKER_SOURCE, "giu");
const MARKERS_AFTER_END_MARK = new RegExp(String.raw`([。！？；;!?…]|\.(?=[ \t]*(?:${MARKER_SOURCE})))((?:[ \t]*(?:${MARKER_SOURCE}))+)`, "giu");
const SENTENCE_END = /(?<=[。！？；;!?…])|(?<=\.)(?=\s|$)/u;
const LIST_MARKER = /^\s*(?:[-*•·]|\d{1,3}[.)、]|[a-z][.)](?=\s)|[（(]\d{1,2}[)）]|[一二三四五六七八九十]{1,3}、)\s*/iu;
const TRAILING_END_MARKS = /[\s。！？；;!?….]+$/u;
const HAS_CONTENT = /[\p{L}\p{N}]/u;

/** A comma (full- or half-width) followed by a word that adds a statement. */
const CLAUSE_BREAK = /[，,]\s*(?=(?:且|并且|而且|另外|此外|同时|但是|但|不过|and also|and|but|also|however)(?:\s|[^\s]))/iu;

/** Ends with a colon: it announces what comes next. */
const ENDS_WITH_COLON = /[:：]\s*$/u;
/**
 * A lead-in before a colon that states nothing itself. Matched at the start of
 * a piece, up to the first colon.
 */
const LEAD_IN = new RegExp(
  String.raw`^\s*(?:(?:sure|certainly|of course|okay|ok)[,!.]?\s*)?(?:(?:here(?:'s|’s| is| are)|below is|below are)[^:：]{0,80}|in summary|to summarize|to sum up|summary|in short|answer|以下是[^:：]{0,20}|总结(?:如下)?|答案|回答|简而言之|概括(?:如下)?)\s*[:：]\s*`,
  "iu",
);

export function removeCitationMarkers(text: string): string {
  return text.replace(MARKER, " ").replace(/[ \t]{2,}/g, " ").trim();
}

function sentencesOfLine(line: string): AnswerSentence[] {
  const withoutListMarker = line.replace(LIST_MARKER, "");
  const moved = withoutListMarker.replace(MARKERS_AFTER_END_MARK, (_match, endMark: string, markers: string) => `${markers.trim()}${endMark}`);
  const sentences: AnswerSentence[] = [];
  for (const piece of moved.split(SENTENCE_END)) {
    const text = piece.trim();
    const claim = removeCitationMarkers(text).replace(TRAILING_END_MARKS, "").trim();
    if (!HAS_CONTENT.test(claim)) continue;
    // A bare enumerator ("a", "iv", "三") left over from a list line.
    if (/^(?:\d{1,3}|[a-z]|[ivx]{1,4}|[一二三四五六七八九十]{1,3})$/iu.test(claim)) continue;
    sentences.push({ text, markers: text.match(MARKER) ?? [], claim, preamble: ENDS_WITH_COLON.test(claim) });
  }
  return sentences;
}

/** The answer's sentences, in order. */
export function splitSentences(answer: string): AnswerSentence[] {
  return answer.split(/\r?\n+/).flatMap(sentencesOfLine);
}

/** The answer's claims, with the preambles and abstentions set aside. */
export function answerClaims(answer: string): AnswerClaims {
  const result: AnswerClaims = { claims: [], abstentions: [], preambles: [] };
  for (const sentence of splitSentences(answer)) {
    if (sentence.preamble) {
      result.preambles.push(sentence.claim);
      continue;
    }
    let claimText = sentence.claim;
    const leadIn = LEAD_IN.exec(claimText);
    if (leadIn !== null && HAS_CONTENT.test(claimText.slice(leadIn[0].length))) {
      result.preambles.push(leadIn[0].trim());
      claimText = claimText.slice(leadIn[0].length);
    }
    for (const clause of claimText.split(CLAUSE_BREAK)) {
      const piece = clause.replace(TRAILING_END_MARKS, "").trim();
      if (!HAS_CONTENT.test(piece)) continue;
      if (findAbstentionPhrase(piece) !== null) result.abstentions.push(piece);
      else result.claims.push(piece);
    }
  }
  return result;
}

/** The pieces of an answer to check for support (answerClaims().claims). */
export function splitClaims(answer: string): string[] {
  return answerClaims(answer).claims;
}
