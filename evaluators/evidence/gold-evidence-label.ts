/**
 * How a message names one piece of gold evidence: by what tells it from the
 * case's other pieces, the same way in every reason (retrieval.ranking,
 * context.coverage, citation.evidence, the root cause).
 *
 * Why not by its document id: two gold chunks of one document would be named
 * alike, and a reason saying "member-points not retrieved; member-points
 * ranked 2" contradicts itself and hides which piece is missing. So:
 * - a piece with a chunk id is that chunk, with its document (and section):
 *   `chunk points-1 of member-points`;
 * - a piece with a section and no chunk id is the section: `member-points/section_2`;
 * - a piece with only a text is the start of its text: `member-points "Points expire…"`;
 * - a whole document (document-level gold, case-gold-evidence.ts) is the document: `member-points`.
 */
import type { GoldEvidence } from "../../contracts/eval-case.js";

/** Characters of an evidence text a label keeps: enough to tell two passages of a document apart, short enough for one line. */
const TEXT_SHOWN = 40;

export function goldEvidenceLabel(evidence: Pick<GoldEvidence, "document_id" | "section_id" | "chunk_id" | "text">): string {
  const place = `${evidence.document_id}${evidence.section_id ? `/${evidence.section_id}` : ""}`;
  if (evidence.chunk_id) return `chunk ${evidence.chunk_id} of ${place}`;
  if (evidence.section_id) return place;
  const text = (evidence.text ?? "").replace(/\s+/gu, " ").trim();
  if (text === "") return place;
  // By code points, so a cut never splits a character of a non-Latin text.
  const characters = Array.from(text);
  const shown = characters.length > TEXT_SHOWN ? `${characters.slice(0, TEXT_SHOWN).join("").trimEnd()}…` : text;
  return `${place} ${JSON.stringify(shown)}`;
}
