/**
 * What one retrieved chunk covers of one piece of gold evidence.
 *
 * The procedure, in order (the first rule that can decide, decides):
 * 1. Chunk id: when the gold evidence names a `chunk_id`, the chunk with that
 *    id is the evidence (it covers all of it).
 * 2. Ids: when the chunk carries a `document_id` and the evidence has one, they
 *    must be equal. Then, if both carry a `section_id`, they must be equal too;
 *    if both carry a `document_version`, so must those (an expired version is
 *    not the evidence). Equal ids with no section on the evidence side match at
 *    document level — when the evidence gives no text; with its text, the text
 *    decides which of the document's chunks hold it (rule 3). When ids decide
 *    "yes" the chunk covers all of the evidence; when they decide "no", it
 *    covers nothing and text is not consulted: a chunk from another document
 *    that happens to quote the evidence is not the evidence.
 * 3. Text: when the trace carries no ids to compare (document id or section id
 *    missing on either side), the chunk covers the characters of the evidence
 *    text that its own text holds, by character n-gram coverage
 *    (text-coverage.ts).
 *
 * A chunk supports the evidence on its own when it covers at least the
 * minimum coverage (evidence-coverage-options.ts, default 0.8) of the
 * evidence's characters. A fragment that covers a small share — a news
 * dateline, a heading, a boilerplate sentence shared by many documents — does
 * not count, however long it is. Where the evidence is split across several
 * chunks, evidence-set-coverage.ts sums what they cover together.
 * The evidence's `relevance` grade (default 3) is the chunk's grade.
 */
import type { GoldEvidence } from "../../contracts/eval-case.js";
import type { RetrievedChunk } from "../../contracts/case-result.js";
import { DEFAULT_EVIDENCE_COVERAGE_OPTIONS, type EvidenceCoverageOptions } from "./evidence-coverage-options.js";
import { countCovered, coveredCharacters, prepareText, type PreparedText } from "./text-coverage.js";

/**
 * Used by the root-cause split detector (root-cause/chunk-step.ts): a chunk
 * boundary inside the evidence is told from an accidental overlap by at
 * least this many compact characters.
 */
export const MIN_TEXT_CHARACTERS = 6;

export type MatchRule = "chunk_id" | "ids" | "text";

export type ChunkLike = Pick<RetrievedChunk, "chunk_id" | "document_id" | "section_id" | "document_version" | "text">;

/** What a chunk covers of a piece of evidence. */
export interface ChunkCover {
  /** The rule that decided; null when nothing could be compared. */
  rule: MatchRule | null;
  /**
   * "all" when ids say the chunk is the evidence; one flag per compact
   * character of the evidence text when text decided (shared: read it, never
   * write into it); null when it covers nothing (ids say no, or there is no
   * text to compare).
   */
  covered: "all" | Uint8Array | null;
  /** Covered share of the evidence, 0 to 1. */
  share: number;
}

export interface EvidenceMatch {
  matched: boolean;
  rule: MatchRule | null;
  /** Share of the evidence this chunk covers on its own. */
  coverage: number;
}

const NOTHING_BY_IDS: ChunkCover = { rule: "ids", covered: null, share: 0 };

/** The evidence gives text to compare (something besides white space). */
const hasText = (text: string | null | undefined): boolean => text !== undefined && text !== null && text.trim() !== "";
const NOTHING: ChunkCover = { rule: null, covered: null, share: 0 };

export function coverOfChunk(chunk: ChunkLike, evidence: GoldEvidence): ChunkCover {
  if (evidence.chunk_id !== undefined && evidence.chunk_id === chunk.chunk_id) return { rule: "chunk_id", covered: "all", share: 1 };

  if (chunk.document_id !== null && evidence.document_id !== undefined) {
    if (chunk.document_id !== evidence.document_id) return NOTHING_BY_IDS;
    if (evidence.document_version !== undefined && chunk.document_version !== null && chunk.document_version !== evidence.document_version) return NOTHING_BY_IDS;
    if (evidence.section_id !== undefined && chunk.section_id !== null) {
      return chunk.section_id === evidence.section_id ? { rule: "ids", covered: "all", share: 1 } : NOTHING_BY_IDS;
    }
    // Equal documents and nothing finer on the evidence: the document is the evidence — unless the evidence gives
    // its text, which says which of the document's chunks hold it (the simple format writes every evidence text
    // with its document id): a chunk of the document that does not hold the text is not the evidence.
    if (evidence.section_id === undefined && evidence.chunk_id === undefined && !hasText(evidence.text)) return { rule: "ids", covered: "all", share: 1 };
    // The evidence names a section the chunk does not carry, or gives its text: let the text decide.
  }

  const covered = textCover(chunk.text, evidence.text);
  if (covered === null) return NOTHING;
  return { rule: "text", covered, share: covered.length === 0 ? 0 : countCovered(covered) / covered.length };
}

/**
 * The evidence characters a text covers, or null when either text is missing
 * or empty after normalisation. `shortEvidence` as in coveredCharacters.
 */
export function textCover(chunkText: string | null | undefined, evidenceText: string | null | undefined, shortEvidence: "equal" | "contained" = "equal"): Uint8Array | null {
  if (!chunkText || !evidenceText) return null;
  const evidence = prepareText(evidenceText);
  if (evidence.characters.length === 0) return null;
  if (shortEvidence === "contained") return coveredCharacters(evidence, chunkText, shortEvidence);
  // The evaluators of one trace ask for the same (chunk, evidence) pairs many times over.
  let byChunk = coversByEvidence.get(evidence);
  if (byChunk === undefined) {
    byChunk = new Map();
    coversByEvidence.set(evidence, byChunk);
  }
  let covered = byChunk.get(chunkText);
  if (covered === undefined) {
    covered = coveredCharacters(evidence, chunkText);
    if (byChunk.size >= COVERS_PER_EVIDENCE) byChunk.delete(byChunk.keys().next().value!);
    byChunk.set(chunkText, covered);
  }
  return covered;
}

/**
 * Covers already computed, per prepared evidence text (released with it) and
 * chunk text, at most COVERS_PER_EVIDENCE per evidence (oldest out). Shared:
 * callers never write into a cover.
 */
const coversByEvidence = new WeakMap<PreparedText, Map<string, Uint8Array>>();
const COVERS_PER_EVIDENCE = 128;

/** Does this chunk alone cover enough of the evidence? */
export function matchEvidence(chunk: ChunkLike, evidence: GoldEvidence, options: EvidenceCoverageOptions = DEFAULT_EVIDENCE_COVERAGE_OPTIONS): EvidenceMatch {
  const cover = coverOfChunk(chunk, evidence);
  return { matched: cover.covered !== null && cover.share >= options.minCoverage, rule: cover.rule, coverage: cover.share };
}

/** Does this text alone cover enough of the evidence text? */
export function matchByText(chunkText: string | null | undefined, evidenceText: string | null | undefined, options: EvidenceCoverageOptions = DEFAULT_EVIDENCE_COVERAGE_OPTIONS): boolean {
  const covered = textCover(chunkText, evidenceText);
  return covered !== null && countCovered(covered) / covered.length >= options.minCoverage;
}
