/**
 * An answer without its inline citation markers, for comparing it with a
 * reference answer: a marker names a source, it states nothing, and a
 * reference answer has none — "…within 7 days [refund-1]." is the reference
 * "…within 7 days." word for word, and its "1" is no number of the answer.
 *
 * Removed: the marker forms answer-sentences.ts reads ([1], [^1], ^1, 【…】,
 * [source: …], a bracketed id with a separator such as [refund-1] or
 * [doc_2]), and any chunk id the trace's citations name, in brackets
 * ([refund1], 【refund1】, [^refund1]) — an id the pipeline cited is a marker
 * whatever its form.
 */
import { removeCitationMarkers } from "./answer-sentences.js";

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function withoutCitationMarkers(answer: string, citedChunkIds: readonly string[] | null): string {
  const ids = [...new Set(citedChunkIds ?? [])].filter((id) => id.trim() !== "");
  let text = answer;
  if (ids.length > 0) {
    const named = new RegExp(`\\[\\^?\\s*(?:${ids.map(escape).join("|")})\\s*\\]|【\\s*(?:${ids.map(escape).join("|")})\\s*】`, "gu");
    text = text.replace(named, " ");
  }
  // "7 days [refund-1]." leaves "7 days ." — the space the marker stood after goes with it.
  return removeCitationMarkers(text).replace(/[ \t]+(?=[.,;:!?。，；：！？、])/gu, "");
}
