/**
 * CHUNK_BAD (切片破坏语义): the chunking cut the gold evidence apart.
 *
 * On compactText forms (normalised, no spaces), a piece of gold evidence with
 * text is cut when no chunk the trace saw (retrieved, pre-rerank or packed)
 * holds the whole evidence text, and some chunk holds a part of it that
 * starts or ends at a chunk boundary:
 * - the chunk is a strict part of the evidence (at least MIN_TEXT_CHARACTERS), or
 * - the chunk ends with the evidence's beginning, or starts with its end
 *   (an overlap of at least MIN_TEXT_CHARACTERS): the boundary fell inside it.
 * Requiring the boundary inside the evidence tells a split from a paraphrase:
 * a chunk that words the evidence differently is not a cut.
 *
 * The step runs before the retrieval steps (a refinement of the example
 * order): a cut evidence often cannot be matched at all, and would otherwise
 * be reported as a retrieval miss. Without the index the trace only shows the
 * chunks that were retrieved; a whole copy elsewhere in the index is not seen.
 */
import { chunkLabel, type RetrievedChunk } from "../../contracts/case-result.js";
import { MIN_TEXT_CHARACTERS } from "../evidence/match-evidence.js";
import { compactText } from "../text/normalize-text.js";
import { goldLabel } from "./attribution-facts.js";
import type { RootCauseStep } from "./root-cause-step.js";

/** Longest k >= minimum such that `text` ends with the first k characters of `evidence` (k < evidence length). */
function headOverlap(text: string, evidence: string): number {
  for (let length = Math.min(text.length, evidence.length - 1); length >= MIN_TEXT_CHARACTERS; length -= 1) {
    if (text.endsWith(evidence.slice(0, length))) return length;
  }
  return 0;
}

function tailOverlap(text: string, evidence: string): number {
  for (let length = Math.min(text.length, evidence.length - 1); length >= MIN_TEXT_CHARACTERS; length -= 1) {
    if (text.startsWith(evidence.slice(evidence.length - length))) return length;
  }
  return 0;
}

export function cutsEvidence(chunkText: string, evidenceText: string): boolean {
  const chunk = compactText(chunkText);
  const evidence = compactText(evidenceText);
  if (chunk.includes(evidence)) return false;
  if (chunk.length >= MIN_TEXT_CHARACTERS && evidence.includes(chunk)) return true;
  return headOverlap(chunk, evidence) > 0 || tailOverlap(chunk, evidence) > 0;
}

export const chunkBadStep: RootCauseStep = {
  label: "CHUNK_BAD",
  when: "no chunk holds a gold evidence text whole, and a chunk boundary falls inside it (a chunk is a part of it, or overlaps its beginning or end)",
  decide(facts) {
    // A chunk without an id is its own entry: never merged into another.
    const seen = new Map<string | RetrievedChunk, RetrievedChunk>();
    for (const chunk of [...(facts.retrieved ?? []), ...(facts.preRerank ?? []), ...(facts.packed ?? [])]) if (chunk.text !== null && !seen.has(chunk.chunk_id ?? chunk)) seen.set(chunk.chunk_id ?? chunk, chunk);
    const chunks = [...seen.values()];
    const findings: { gold: string; pieces: string[] }[] = [];
    for (const trail of facts.gold) {
      const text = trail.evidence.text;
      if (text === undefined || compactText(text).length < MIN_TEXT_CHARACTERS) continue;
      if (chunks.some((chunk) => compactText(chunk.text!).includes(compactText(text)))) continue;
      const pieces = chunks.filter((chunk) => cutsEvidence(chunk.text!, text)).map(chunkLabel);
      if (pieces.length > 0) findings.push({ gold: goldLabel(trail), pieces });
    }
    if (findings.length === 0) return null;
    return {
      reason: findings.map((finding) => `${finding.gold} is split: no chunk holds it whole, ${finding.pieces.join(", ")} hold(s) a cut piece`).join("; "),
      chunkIds: findings.flatMap((finding) => finding.pieces),
      confidence: "deterministic_rule",
    };
  },
};
