/**
 * Ranking metrics of the retrieval stage against gold evidence (seed 004 §三):
 * Hit@K, Recall@K, Precision@K, NDCG@K at K = 1, 3, 5, 10, MRR and MAP, over
 * the ranking the pipeline recorded (after rerank, when there was one: the
 * list the context was packed from). With a rerank the reason gives both
 * ranks ("ranked 3 after the rerank (1 before)"): the retriever's own ranking
 * is measured apart only by rerank_uplift (retrieval-uplift.ts).
 * `recall_at_k` is the seed's name for Recall@5 (its example rubric: "Top5
 * 必须包含…").
 *
 * A ranking that lists a chunk twice is an input error (repeated-chunk.ts).
 *
 * A case that names relevant documents only is scored per document
 * (evidence/case-gold-evidence.ts): a document is found at the rank of its
 * first chunk, and a later chunk of it adds nothing new — trec_eval's reading
 * of a run whose docno at each rank is the chunk's document id, a repeat
 * counted as a non-relevant document (test/data/trec-eval-documents/).
 */
import { chunkLabel } from "../../contracts/case-result.js";
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { caseGoldEvidence, NO_GOLD_EVIDENCE_REASON, unmatchedDocumentsReason } from "../evidence/case-gold-evidence.js";
import { evidenceCoverageOptions } from "../evidence/evidence-coverage-options.js";
import { goldEvidenceLabel } from "../evidence/gold-evidence-label.js";
import { rankEvidence, recallAtCutoff } from "../evidence/evidence-ranking.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { createRankingEvaluator } from "../retrieval/evaluate-ranking.js";
import { invalidRankingOutput, repeatedChunkError } from "./repeated-chunk.js";
import { metricKeys } from "../metric-keys.js";

const CUTOFFS = [1, 3, 5, 10] as const;
const SEED_K = 5;

const unit = (name: string, description: string, defaultThreshold: string | null = null): MetricDescriptor => ({
  name,
  description,
  range: [0, 1],
  direction: "higher_is_better",
  defaultThreshold,
});

const metrics: MetricDescriptor[] = [
  unit("recall_at_k", `gold evidence found in the top ${SEED_K} / all gold evidence`, ">= 1"),
  unit("mrr", "1 / rank of the first chunk holding gold evidence"),
  unit("map", "average precision over the ranking, denominator all gold evidence"),
  ...CUTOFFS.flatMap((k) => [
    unit(`hit_at_${k}`, `1 when any gold evidence is in the top ${k}`),
    unit(`recall_at_${k}`, `gold evidence found in the top ${k} / all gold evidence`),
    unit(`precision_at_${k}`, `chunks holding new gold evidence in the top ${k} / ${k}`),
    unit(`ndcg_at_${k}`, `NDCG@${k} with the evidence grades (0-3) as linear gains`),
  ]),
];

const ranking = createRankingEvaluator({ cutoffs: CUTOFFS });

/** The metrics this evaluator produces (retrieval layer). */
export const retrievalRankingMetrics = metricKeys(["recall_at_k", "mrr", "map", "hit_at_1", "recall_at_1", "precision_at_1", "ndcg_at_1", "hit_at_3", "recall_at_3", "precision_at_3", "ndcg_at_3", "hit_at_5", "recall_at_5", "precision_at_5", "ndcg_at_5", "hit_at_10", "recall_at_10", "precision_at_10", "ndcg_at_10"]);

export const retrievalRankingEvaluator: Evaluator = {
  id: "retrieval.ranking",
  // 2: evidence matched by coverage (evaluators/evidence/text-coverage.ts) instead of containment.
  // 3: recall counts every piece a chunk holds; a fragment of a piece already found is not relevant (evidence-ranking.ts);
  //    evidence given with its document id and its text is matched by its text within the document (match-evidence.ts).
  // 4: a case that names relevant documents only is scored per document (evidence/case-gold-evidence.ts).
  version: "4",
  layer: "retrieval",
  description: "Hit@K, Recall@K, Precision@K, NDCG@K, MRR and MAP of the recorded ranking against the case's gold evidence",
  requires: ["case", "gold_evidence"],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const chunks = caseResult.rag_observation.retrieved_chunks;
    const gold = caseGoldEvidence(evalCase);
    const missing = !evalCase
      ? "the trace is not linked to an Eval Case"
      : gold.evidence.length === 0
        ? NO_GOLD_EVIDENCE_REASON
        : chunks === null
          ? "the trace recorded no retrieval"
          : unmatchedDocumentsReason(gold, chunks);
    if (missing !== null || !evalCase || chunks === null) {
      const value = notApplicable(missing ?? "");
      return { values: Object.fromEntries(metrics.map((metric) => [metric.name, value])), reason: `not applicable: ${missing}`, evidence: [] };
    }
    const repeated = repeatedChunkError(chunks, "retrieved_chunks");
    if (repeated !== null) return invalidRankingOutput(metrics, repeated);
    const evidenceRanking = rankEvidence(chunks, gold.evidence, evidenceCoverageOptions(evalCase));
    const result = ranking.evaluate(evidenceRanking.items, evidenceRanking.judgments);
    const values: Record<string, MetricValue> = { mrr: result.reciprocalRank, map: result.averagePrecision };
    for (const cutoff of result.cutoffs) {
      values[`hit_at_${cutoff.k}`] = cutoff.hit;
      // Read from where each piece was found, not from the entries: a chunk holding two pieces finds both (evidence-ranking.ts).
      values[`recall_at_${cutoff.k}`] = cutoff.recall.applicable ? applicable(recallAtCutoff(evidenceRanking, gold.evidence, cutoff.k)) : cutoff.recall;
      values[`precision_at_${cutoff.k}`] = cutoff.precision;
      values[`ndcg_at_${cutoff.k}`] = cutoff.ndcg;
    }
    values.recall_at_k = values[`recall_at_${SEED_K}`]!;
    const found = evidenceRanking.foundAtRank;
    // With a rerank, the ranks are the reranked list's; the retriever's own ranks are said beside them, so a reason is never read as the retriever's.
    const preRerank = caseResult.rag_observation.pre_rerank_chunks;
    // A first-stage ranking without document ids cannot place document-level gold: its ranks are then not said.
    const foundBefore = preRerank === null || unmatchedDocumentsReason(gold, preRerank) !== null ? null : rankEvidence(preRerank, gold.evidence, evidenceCoverageOptions(evalCase)).foundAtRank;
    const percent = (share: number) => `${Math.floor(share * 100)} %`;
    const whereFound = (index: number): string => {
      const pieces = evidenceRanking.contributors[index]!;
      const how = `matched by ${evidenceRanking.rules[index]}${pieces.length > 1 ? `, split over the chunks at ranks ${pieces.join(", ")}` : ""}`;
      const rankBefore = foundBefore?.[index] ?? null;
      if (found[index] !== null) {
        if (foundBefore === null) return `retrieved at rank ${found[index]} (${how})`;
        return `ranked ${found[index]} after the rerank (${rankBefore === null ? "not in the first-stage ranking" : `${rankBefore} before`}; ${how})`;
      }
      const partly = evidenceRanking.coverage[index]! > 0 ? ` (the ranking covers ${percent(evidenceRanking.coverage[index]!)} of its text)` : "";
      if (foundBefore === null) return `not retrieved${partly}`;
      return `not in the reranked list (${rankBefore === null ? "nor in the first-stage ranking" : `rank ${rankBefore} before the rerank`})${partly}`;
    };
    const described = gold.evidence.map((evidence, index) => `${goldEvidenceLabel(evidence)} ${whereFound(index)}`);
    const foundChunks = [...new Set(found.flatMap((rank, index) => (rank === null ? [] : evidenceRanking.contributors[index]!)))].map((rank) => chunkLabel(chunks[rank - 1]!));
    const heading = gold.documentsOnly ? "relevant documents (the case names documents only; a later chunk of a document found adds nothing)" : "gold evidence";
    return { values, reason: `${heading}: ${described.join("; ")}`, evidence: foundChunks };
  },
};
