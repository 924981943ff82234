/**
 * Retrieval-layer extras of seed 004 §三.5 over the recorded ranking (after
 * rerank, when there was one; the reason then says "after the rerank"). Only gold evidence with relevance >= 1 counts
 * (trec_eval's default relevance level, as in retrieval.ranking).
 *
 * document_hit_at_k: 1 when any of the top K (= 5, the K of `recall_at_k`)
 *   chunks comes from a gold document — the seed's 文档命中率. A chunk belongs
 *   to a gold document by its `document_id`; a chunk without one belongs to it
 *   when it holds that document's evidence within the ranking (alone, or as a
 *   piece of a split evidence: evidence-set-coverage.ts). The chunk hit
 *   (Chunk 命中率) is `hit_at_5` of retrieval.ranking and is not repeated here.
 * first_evidence_rank: 1-based rank of the first chunk holding gold evidence
 *   (首条证据排名); not applicable when none was retrieved. Informational.
 * relevant_chunks: retrieved chunks holding any gold evidence within the
 *   ranking (平均相关 Chunk 数, averaged over a run): enough of it alone, or an
 *   indispensable piece of a split. A piece of evidence found by two chunks
 *   counts twice here, unlike in recall. Informational.
 * cross_document_recall: gold documents with at least one piece of evidence
 *   covered enough by the whole ranking / gold documents (跨文档召回率).
 *   Applies only when the gold evidence spans two documents or more.
 *
 * A case that names relevant documents only (evidence/case-gold-evidence.ts)
 * is scored per document — document_hit_at_k, first_evidence_rank (the rank
 * of the first chunk of a relevant document) and cross_document_recall are
 * questions about documents — except relevant_chunks: which of a document's
 * chunks hold the evidence is not known, so it is not applicable, not a count
 * of every chunk of the document.
 */
import { chunkLabel, type RetrievedChunk } from "../../contracts/case-result.js";
import type { GoldEvidence } from "../../contracts/eval-case.js";
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { caseGoldEvidence, needsEvidenceReason, NO_GOLD_EVIDENCE_REASON, unmatchedDocumentsReason } from "../evidence/case-gold-evidence.js";
import { evidenceCoverageOptions, type EvidenceCoverageOptions } from "../evidence/evidence-coverage-options.js";
import { rankEvidence } from "../evidence/evidence-ranking.js";
import { chunksHoldingEvidence, coverEvidence } from "../evidence/evidence-set-coverage.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { createRankingEvaluator } from "../retrieval/evaluate-ranking.js";
import { invalidRankingOutput, repeatedChunkError } from "./repeated-chunk.js";
import { metricKeys } from "../metric-keys.js";

export const DOCUMENT_HIT_K = 5;

const metrics: MetricDescriptor[] = [
  { name: "document_hit_at_k", description: `1 when a chunk of a gold document is in the top ${DOCUMENT_HIT_K}`, range: [0, 1], direction: "higher_is_better", defaultThreshold: null },
  { name: "first_evidence_rank", description: "rank of the first chunk holding gold evidence", range: null, direction: "informational", defaultThreshold: null },
  { name: "relevant_chunks", description: "retrieved chunks that match any gold evidence", range: null, direction: "informational", defaultThreshold: null },
  { name: "cross_document_recall", description: "gold documents with a matching retrieved chunk / gold documents (gold spanning 2+ documents)", range: [0, 1], direction: "higher_is_better", defaultThreshold: null },
];

const firstRank = createRankingEvaluator({ cutoffs: [] });

/** For each chunk of the ranking: it comes from a gold document (by its document_id, else by holding that document's evidence). */
export function chunksOfGoldDocuments(chunks: readonly RetrievedChunk[], gold: readonly GoldEvidence[], options: EvidenceCoverageOptions): boolean[] {
  const holding = chunksHoldingEvidence(chunks, gold, options);
  return chunks.map((chunk, index) => (chunk.document_id !== null ? gold.some((evidence) => evidence.document_id === chunk.document_id) : holding[index]!));
}

function crossDocumentRecall(chunks: readonly RetrievedChunk[], gold: readonly GoldEvidence[], options: EvidenceCoverageOptions): { value: MetricValue; missing: string[] } {
  const documents = [...new Set(gold.map((evidence) => evidence.document_id))];
  if (documents.length < 2) return { value: notApplicable("the gold evidence comes from a single document"), missing: [] };
  const missing = documents.filter((documentId) => {
    const evidenceOfDocument = gold.filter((evidence) => evidence.document_id === documentId);
    return !evidenceOfDocument.some((evidence) => coverEvidence(chunks, evidence, options).coveredAt !== null);
  });
  return { value: applicable((documents.length - missing.length) / documents.length), missing };
}

/** The metrics this evaluator produces (retrieval layer). */
export const retrievalCoverageMetrics = metricKeys(["document_hit_at_k", "first_evidence_rank", "relevant_chunks", "cross_document_recall"]);

export const retrievalCoverageEvaluator: Evaluator = {
  id: "retrieval.coverage",
  // 2: evidence matched by coverage (evaluators/evidence/text-coverage.ts) instead of containment.
  // 3: evidence given with its document id and its text is matched by its text within the document (match-evidence.ts).
  // 4: a case that names relevant documents only is scored per document (evidence/case-gold-evidence.ts).
  version: "4",
  layer: "retrieval",
  description: "Document hit, first evidence rank, relevant chunk count and cross-document recall of the recorded ranking",
  requires: ["case", "gold_evidence"],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const chunks = caseResult.rag_observation.retrieved_chunks;
    const caseGold = caseGoldEvidence(evalCase);
    const gold = caseGold.evidence.filter((evidence) => evidence.relevance >= 1);
    const missing = !evalCase
      ? "the trace is not linked to an Eval Case"
      : gold.length === 0
        ? caseGold.evidence.length === 0 ? NO_GOLD_EVIDENCE_REASON : "the case has no relevant gold evidence"
        : chunks === null
          ? "the trace recorded no retrieval"
          : unmatchedDocumentsReason(caseGold, chunks);
    if (missing !== null || chunks === null) {
      const value = notApplicable(missing ?? "");
      return { values: Object.fromEntries(metrics.map((metric) => [metric.name, value])), reason: `not applicable: ${missing}`, evidence: [] };
    }
    const repeated = repeatedChunkError(chunks, "retrieved_chunks");
    if (repeated !== null) return invalidRankingOutput(metrics, repeated);
    const options = evidenceCoverageOptions(evalCase);
    const ofGoldDocuments = chunksOfGoldDocuments(chunks, gold, options);
    const holding = chunksHoldingEvidence(chunks, gold, options);
    const documentHits = chunks.slice(0, DOCUMENT_HIT_K).filter((_, index) => ofGoldDocuments[index]);
    const relevant = chunks.filter((_, index) => holding[index]);
    const ranking = rankEvidence(chunks, gold, options);
    const cross = crossDocumentRecall(chunks, gold, options);
    const values: Record<string, MetricValue> = {
      document_hit_at_k: applicable(documentHits.length > 0 ? 1 : 0),
      first_evidence_rank: firstRank.evaluate(ranking.items, ranking.judgments).firstRelevantRank,
      relevant_chunks: caseGold.documentsOnly ? notApplicable(needsEvidenceReason(caseGold, "counting the chunks that hold it")) : applicable(relevant.length),
      cross_document_recall: cross.value,
    };
    // With a rerank these read the reranked list: the reason says so, so it is never read as the retriever's.
    const list = caseResult.rag_observation.pre_rerank_chunks === null ? "" : " after the rerank";
    const firstRankText = values.first_evidence_rank!.applicable ? `; the first at rank ${values.first_evidence_rank!.value}${list}` : "";
    const parts = [
      documentHits.length > 0 ? `a gold document in the top ${DOCUMENT_HIT_K}${list} (${documentHits.map(chunkLabel).join(", ")})` : `no gold document in the top ${DOCUMENT_HIT_K}${list}`,
      caseGold.documentsOnly ? `relevant documents only${firstRankText.replace("; the first", ": the first chunk of one")}` : `${relevant.length} retrieved chunk(s) hold gold evidence${firstRankText}`,
    ];
    if (cross.missing.length > 0) parts.push(`gold documents not retrieved: ${cross.missing.join(", ")}`);
    return { values, reason: parts.join("; "), evidence: relevant.map(chunkLabel) };
  },
};
