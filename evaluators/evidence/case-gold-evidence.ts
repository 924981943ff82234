/**
 * The gold evidence a case is scored against — the one place every consumer
 * of gold evidence (metrics, root causes, the release gate's unrecorded
 * retrieval check, the trace page) reads it from.
 *
 * It is the case's `gold_evidence`; or, for an answerable case that names
 * relevant documents only — the simple format's `relevant_document_ids` with
 * no `relevant_chunk_ids` and no `evidence` (collector/wiring/dataset/simple-case.ts
 * keeps them in `metadata.relevant_document_ids` and builds no gold_evidence),
 * the most common labelling of public RAG datasets — one piece per relevant
 * document, the whole document (a `document_id` and nothing finer). The seed
 * defines Recall@K over relevant documents (004 §三.1 "前 K 个检索结果中的相关
 * 文档数 / 所有相关文档数"), and the matcher already reads such a piece at
 * document level (match-evidence.ts rule 2: every chunk of the document
 * matches it; evidence-ranking.ts: the first stands for it, later ones add
 * nothing new), so the ranking metrics score these cases per document.
 *
 * Why derived here, when a case is evaluated, instead of written into
 * gold_evidence when the simple file is read:
 * - a case's content is stored once, and a run whose case of the same id and
 *   version differs is refused (contracts/eval-case-identity.ts, digests in
 *   contracts/eval-case-digest.ts). Earlier releases stored these cases with
 *   `gold_evidence: []`; writing the documents into gold_evidence would change
 *   every such case's content and refuse the re-run of a file that did not
 *   change. Derived, the stored case stays what it was, and the cases those
 *   releases stored are scored too, read back as they are.
 * - the Eval Case contract asks each gold_evidence entry for a section, a
 *   chunk id or a text (contracts/eval-case.ts). A stored case carries no
 *   mark of the format it was written in, so an Eval Case written with an
 *   empty gold_evidence and `metadata.relevant_document_ids` (what the simple
 *   format's reader writes) is read at document level too; the README says so.
 *
 * A document-level piece says which document answers, not which of its
 * chunks or words do: a metric that needs the evidence itself (whether the
 * context or a citation holds it, how much of the prompt it fills) is not
 * applicable to it (`needsEvidenceReason`), never 0. And it is compared with
 * a ranking by the chunks' document ids only: a ranking whose chunks carry no
 * document id cannot be compared with it (`unmatchedDocumentsReason`).
 */
import type { RetrievedChunk } from "../../contracts/case-result.js";
import type { EvalCase, GoldEvidence } from "../../contracts/eval-case.js";

export interface CaseGold {
  /** The pieces of gold evidence, in the case's order (documents in the order the case lists them). */
  evidence: readonly GoldEvidence[];
  /** The pieces are whole documents, read from `metadata.relevant_document_ids` (see the module comment). */
  documentsOnly: boolean;
}

const NO_GOLD: CaseGold = { evidence: [], documentsOnly: false };

/** The case's gold evidence, or its relevant documents as document-level pieces (the module comment says when). */
export function caseGoldEvidence(evalCase: Pick<EvalCase, "gold_evidence" | "answerable" | "metadata"> | null): CaseGold {
  if (evalCase === null) return NO_GOLD;
  if (evalCase.gold_evidence.length > 0) return { evidence: evalCase.gold_evidence, documentsOnly: false };
  // A case expecting a refusal has no gold evidence (the Eval Case's rule): documents it names are not an answer's.
  if (!evalCase.answerable) return NO_GOLD;
  const listed = evalCase.metadata.relevant_document_ids;
  if (!Array.isArray(listed)) return NO_GOLD;
  const documents = [...new Set(listed.filter((item): item is string => typeof item === "string" && item.trim() !== "").map((item) => item.trim()))];
  if (documents.length === 0) return NO_GOLD;
  // Relevance 3, the grade of gold evidence that gives none (contracts/eval-case.ts): each document is direct evidence.
  return { evidence: documents.map((documentId) => ({ document_id: documentId, relevance: 3 })), documentsOnly: true };
}

/** Said where a case has no gold evidence at all. */
export const NO_GOLD_EVIDENCE_REASON = "the case has no gold evidence";

/**
 * Why a metric that needs the evidence itself (its chunk or its text) does not apply to this case's gold: the case
 * names relevant documents only, or has no gold evidence at all. `what` names the metric's question.
 */
export function needsEvidenceReason(gold: CaseGold, what: string): string {
  if (!gold.documentsOnly) return NO_GOLD_EVIDENCE_REASON;
  return `the case names relevant documents only (relevant_document_ids), and ${what} needs the evidence itself: give relevant_chunk_ids or evidence to score it`;
}

/**
 * Null when document-level gold can be compared with the ranking; else why not. Every chunk must carry its
 * document id: a chunk without one could be of a relevant document, so counting it as not relevant would
 * understate recall, MRR and precision, and a relevant document "not retrieved" could be a miss that is not one.
 * Gold that is not document-level is matched as before (by chunk id, section or text) and always compares.
 */
export function unmatchedDocumentsReason(gold: CaseGold, chunks: readonly Pick<RetrievedChunk, "document_id">[], list = "the ranking"): string | null {
  if (!gold.documentsOnly) return null;
  const without = chunks.flatMap((chunk, index) => (chunk.document_id === null || chunk.document_id.trim() === "" ? [index + 1] : []));
  if (without.length === 0) return null;
  const ranks = without.length === chunks.length ? "none of its chunks carries a document id" : `the chunks at rank${without.length === 1 ? "" : "s"} ${without.slice(0, 10).join(", ")}${without.length > 10 ? ` and ${without.length - 10} more` : ""} carry no document id`;
  return `the case names relevant documents only (relevant_document_ids), which are compared with ${list} by document id, and ${ranks}: record each chunk's document id (documentId in traceRetrieve)`;
}
