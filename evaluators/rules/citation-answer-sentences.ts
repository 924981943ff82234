/**
 * Answer sentences and their citation markers, for citation coverage and
 * root-cause attribution.
 *
 * Sentences end at 。！？ (always), at . ! ? followed by white space or the end
 * of the text (so "3.5 天" and "v1.2" stay whole), and at line breaks. A
 * citation marker written right after the end mark ("…年假。[1]") belongs to
 * the sentence it follows. Pieces without any token, and bare list
 * enumerators ("1." before "年假为5天", "a)", "三、") are dropped: they claim
 * nothing.
 *
 * Citation markers: [1], [^1] (numbered footnotes), 【…】 (the CJK source
 * bracket, e.g. 【1】 or 【来源：员工手册】) and [source: …] / [来源: …] / [ref …].
 */
import { tokenize } from "../text/normalize-text.js";

export interface AnswerSentence {
  text: string;
  markers: string[];
}

const MARKER_SOURCE = String.raw`\[\^?\d{1,3}\]|【[^】\n]{1,60}】|\[(?:source|sources|ref|cite|来源|出处)[^\]\n]{0,60}\]`;
const MARKER = new RegExp(MARKER_SOURCE, "giu");
const MARKERS_AFTER_END_MARK = new RegExp(String.raw`([。！？.!?])((?:[ \t]*(?:${MARKER_SOURCE}))+)`, "giu");
const SENTENCE_BOUNDARY = /(?<=[。！？])|(?<=[.!?])(?=\s|$)|\r?\n+/u;
const ENUMERATOR = /^\s*(?:\d{1,3}|[a-z]|[ivx]{1,4}|[一二三四五六七八九十]{1,3})\s*[.、)）]?\s*$/iu;

function claimsSomething(sentence: string): boolean {
  const claim = sentence.replace(MARKER, " ");
  return tokenize(claim).length > 0 && !ENUMERATOR.test(claim);
}

export function splitAnswerSentences(answer: string): AnswerSentence[] {
  const moved = answer.replace(MARKERS_AFTER_END_MARK, (_match, endMark: string, markers: string) => `${markers.trim()}${endMark}`);
  return moved
    .split(SENTENCE_BOUNDARY)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== "" && claimsSomething(sentence))
    .map((sentence) => ({ text: sentence, markers: sentence.match(MARKER) ?? [] }));
}

/** The sentence without its markers: what the sentence claims. */
export function claimText(sentence: AnswerSentence): string {
  return sentence.text.replace(MARKER, " ");
}
