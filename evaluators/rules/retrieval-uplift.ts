/**
 * What the rerank added (seed 004 §三.5 "Rerank 前后 NDCG 提升"). Informational:
 * a negative uplift is a finding for root-cause attribution, not a failed case
 * on its own.
 *
 * rerank_uplift: NDCG@10 of `retrieved_chunks` (after the rerank) minus
 *   NDCG@10 of `pre_rerank_chunks` (the first-stage ranking), both against the
 *   case's graded gold evidence. Applies when the trace recorded a rerank.
 *   A case that names relevant documents only is scored per document, as
 *   retrieval.ranking scores it (evidence/case-gold-evidence.ts); both rankings
 *   must then carry their chunks' document ids.
 *
 * The seed's "Query Rewrite 前后召回提升" is not a metric here: it needs the
 * ranking retrieved with the original query, and a trace records one
 * retrieval ranking — the one retrieved with the rewritten query. A metric
 * that could never apply is not registered; it comes back when the SDK
 * records the pre-rewrite ranking.
 */
import type { RetrievedChunk } from "../../contracts/case-result.js";
import type { GoldEvidence } from "../../contracts/eval-case.js";
import { caseGoldEvidence, NO_GOLD_EVIDENCE_REASON, unmatchedDocumentsReason, type CaseGold } from "../evidence/case-gold-evidence.js";
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { DEFAULT_EVIDENCE_COVERAGE_OPTIONS, evidenceCoverageOptions, type EvidenceCoverageOptions } from "../evidence/evidence-coverage-options.js";
import { rankEvidence } from "../evidence/evidence-ranking.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { createRankingEvaluator } from "../retrieval/evaluate-ranking.js";
import { invalidRankingOutput, repeatedChunkError } from "./repeated-chunk.js";
import { metricKeys } from "../metric-keys.js";

export const UPLIFT_CUTOFF = 10;

const metrics: MetricDescriptor[] = [
  { name: "rerank_uplift", description: `NDCG@${UPLIFT_CUTOFF} after the rerank minus NDCG@${UPLIFT_CUTOFF} before it`, range: [-1, 1], direction: "higher_is_better", defaultThreshold: null },
];

const ndcgAtCutoff = createRankingEvaluator({ cutoffs: [UPLIFT_CUTOFF] });

export function ndcgAt10(chunks: readonly RetrievedChunk[], gold: readonly GoldEvidence[], options: EvidenceCoverageOptions = DEFAULT_EVIDENCE_COVERAGE_OPTIONS): MetricValue {
  const ranking = rankEvidence(chunks, gold, options);
  return ndcgAtCutoff.evaluate(ranking.items, ranking.judgments).cutoffs[0]!.ndcg;
}

function rerankUplift(after: readonly RetrievedChunk[] | null, before: readonly RetrievedChunk[] | null, caseGold: CaseGold | null, options: EvidenceCoverageOptions): { value: MetricValue; reason: string } {
  const missing =
    caseGold === null
      ? "the trace is not linked to an Eval Case"
      : caseGold.evidence.length === 0
        ? NO_GOLD_EVIDENCE_REASON
        : before === null || after === null
          ? "the trace recorded no rerank"
          : (unmatchedDocumentsReason(caseGold, after, "the reranked list") ?? unmatchedDocumentsReason(caseGold, before, "the first-stage ranking"));
  if (missing !== null || caseGold === null || before === null || after === null) return { value: notApplicable(missing ?? ""), reason: `rerank uplift not applicable: ${missing}` };
  const gold = caseGold.evidence;
  const ndcgAfter = ndcgAt10(after, gold, options);
  const ndcgBefore = ndcgAt10(before, gold, options);
  if (!ndcgAfter.applicable) return { value: ndcgAfter, reason: `rerank uplift not applicable: ${ndcgAfter.reason}` };
  if (!ndcgBefore.applicable) return { value: ndcgBefore, reason: `rerank uplift not applicable: ${ndcgBefore.reason}` };
  const uplift = ndcgAfter.value - ndcgBefore.value;
  return { value: applicable(uplift), reason: `NDCG@${UPLIFT_CUTOFF} ${ndcgBefore.value.toFixed(4)} before the rerank, ${ndcgAfter.value.toFixed(4)} after` };
}

/** The metrics this evaluator produces (retrieval layer). */
export const retrievalUpliftMetrics = metricKeys(["rerank_uplift"]);

export const retrievalUpliftEvaluator: Evaluator = {
  id: "retrieval.uplift",
  // 2: evidence matched by coverage (evaluators/evidence/text-coverage.ts) instead of containment.
  // 3: evidence given with its document id and its text is matched by its text within the document (match-evidence.ts).
  // 4: a case that names relevant documents only is scored per document (evidence/case-gold-evidence.ts).
  version: "4",
  layer: "retrieval",
  description: "NDCG gained by the rerank",
  requires: ["case", "gold_evidence"],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const observation = caseResult.rag_observation;
    const repeated = repeatedChunkError(observation.retrieved_chunks ?? [], "retrieved_chunks") ?? repeatedChunkError(observation.pre_rerank_chunks ?? [], "pre_rerank_chunks");
    if (repeated !== null) return invalidRankingOutput(metrics, repeated);
    const rerank = rerankUplift(observation.retrieved_chunks, observation.pre_rerank_chunks, evalCase === null ? null : caseGoldEvidence(evalCase), evidenceCoverageOptions(evalCase));
    return { values: { rerank_uplift: rerank.value }, reason: rerank.reason, evidence: [] };
  },
};
