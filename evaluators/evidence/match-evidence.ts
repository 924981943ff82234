/**
 * Matching a retrieved chunk to a piece of gold evidence.
 *
 * The procedure, in order (the first rule that can decide, decides):
 * 1. Chunk id: when the gold evidence names a `chunk_id`, the chunk with that
 *    id matches.
 * 2. Ids: when the chunk carries a `document_id` and the evidence has one, they
 *    must be equal. Then, if both carry a `section_id`, they must be equal too;
 *    if both carry a `document_version`, so must those (an expired version is
 *    not the evidence). Equal ids with no section on the evidence side match at
 *    document level. When ids decide "no", text is not consulted: a chunk from
 *    another document that happens to quote the evidence is not the evidence.
 * 3. Text: when the trace carries no ids to compare (document id or section id
 *    missing on either side), the chunk matches when, after normalizeText and
 *    removing spaces, the evidence text contains the chunk text or the chunk
 *    text contains the evidence text (either at least MIN_TEXT_CHARACTERS long).
 * The evidence's `relevance` grade (default 3) is the chunk's grade.
 */
import type { GoldEvidence } from "../../contracts/eval-case.js";
import type { RetrievedChunk } from "../../contracts/case-result.js";
import { compactText } from "../text/normalize-text.js";

/** Shorter fragments match too much by accident ("退款"). */
export const MIN_TEXT_CHARACTERS = 6;

export type MatchRule = "chunk_id" | "ids" | "text";

export interface EvidenceMatch {
  matched: boolean;
  rule: MatchRule | null;
}

type ChunkLike = Pick<RetrievedChunk, "chunk_id" | "document_id" | "section_id" | "document_version" | "text">;

const NO_MATCH_BY_IDS: EvidenceMatch = { matched: false, rule: "ids" };
const NO_MATCH: EvidenceMatch = { matched: false, rule: null };

export function matchEvidence(chunk: ChunkLike, evidence: GoldEvidence): EvidenceMatch {
  if (evidence.chunk_id !== undefined && evidence.chunk_id === chunk.chunk_id) return { matched: true, rule: "chunk_id" };

  if (chunk.document_id !== null && evidence.document_id !== undefined) {
    if (chunk.document_id !== evidence.document_id) return NO_MATCH_BY_IDS;
    if (evidence.document_version !== undefined && chunk.document_version !== null && chunk.document_version !== evidence.document_version) return NO_MATCH_BY_IDS;
    if (evidence.section_id !== undefined && chunk.section_id !== null) {
      return chunk.section_id === evidence.section_id ? { matched: true, rule: "ids" } : NO_MATCH_BY_IDS;
    }
    if (evidence.section_id === undefined && evidence.chunk_id === undefined) return { matched: true, rule: "ids" };
    // The evidence names a section the chunk does not carry: let the text decide.
  }

  return matchByText(chunk.text, evidence.text) ? { matched: true, rule: "text" } : NO_MATCH;
}

export function matchByText(chunkText: string | null | undefined, evidenceText: string | null | undefined): boolean {
  if (!chunkText || !evidenceText) return false;
  const chunk = compactText(chunkText);
  const evidence = compactText(evidenceText);
  if (chunk.length < MIN_TEXT_CHARACTERS || evidence.length < MIN_TEXT_CHARACTERS) return chunk !== "" && chunk === evidence;
  return chunk.includes(evidence) || evidence.includes(chunk);
}

/** Index of the first gold evidence the chunk matches, or -1. */
export function firstMatchingEvidence(chunk: ChunkLike, gold: readonly GoldEvidence[]): number {
  for (let index = 0; index < gold.length; index += 1) if (matchEvidence(chunk, gold[index]!).matched) return index;
  return -1;
}
