/**
 * Ranking metrics of the retrieval stage against gold evidence (seed 004 §三):
 * Hit@K, Recall@K, Precision@K, NDCG@K at K = 1, 3, 5, 10, MRR and MAP, over
 * the ranking the pipeline recorded (after rerank, when there was one).
 * `recall_at_k` is the seed's name for Recall@5 (its example rubric: "Top5
 * 必须包含…").
 *
 * A ranking that lists a chunk twice is an input error (repeated-chunk.ts).
 */
import { chunkLabel } from "../../contracts/case-result.js";
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { evidenceCoverageOptions } from "../evidence/evidence-coverage-options.js";
import { rankEvidence } from "../evidence/evidence-ranking.js";
import { notApplicable, type MetricValue } from "../metric-value.js";
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
  version: "2",
  layer: "retrieval",
  description: "Hit@K, Recall@K, Precision@K, NDCG@K, MRR and MAP of the recorded ranking against the case's gold evidence",
  requires: ["case", "gold_evidence"],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const chunks = caseResult.rag_observation.retrieved_chunks;
    const missing = !evalCase
      ? "the trace is not linked to an Eval Case"
      : evalCase.gold_evidence.length === 0
        ? "the case has no gold evidence"
        : chunks === null
          ? "the trace recorded no retrieval"
          : null;
    if (missing !== null || !evalCase || chunks === null) {
      const value = notApplicable(missing ?? "");
      return { values: Object.fromEntries(metrics.map((metric) => [metric.name, value])), reason: `not applicable: ${missing}`, evidence: [] };
    }
    const repeated = repeatedChunkError(chunks, "retrieved_chunks");
    if (repeated !== null) return invalidRankingOutput(metrics, repeated);
    const evidenceRanking = rankEvidence(chunks, evalCase.gold_evidence, evidenceCoverageOptions(evalCase));
    const result = ranking.evaluate(evidenceRanking.items, evidenceRanking.judgments);
    const values: Record<string, MetricValue> = { mrr: result.reciprocalRank, map: result.averagePrecision };
    for (const cutoff of result.cutoffs) {
      values[`hit_at_${cutoff.k}`] = cutoff.hit;
      values[`recall_at_${cutoff.k}`] = cutoff.recall;
      values[`precision_at_${cutoff.k}`] = cutoff.precision;
      values[`ndcg_at_${cutoff.k}`] = cutoff.ndcg;
    }
    values.recall_at_k = values[`recall_at_${SEED_K}`]!;
    const found = evidenceRanking.foundAtRank;
    const percent = (share: number) => `${Math.floor(share * 100)} %`;
    const described = evalCase.gold_evidence.map((evidence, index) => {
      const pieces = evidenceRanking.contributors[index]!;
      const where =
        found[index] === null
          ? evidenceRanking.coverage[index]! > 0
            ? `not retrieved (the ranking covers ${percent(evidenceRanking.coverage[index]!)} of its text)`
            : "not retrieved"
          : pieces.length > 1
            ? `retrieved at rank ${found[index]} (matched by ${evidenceRanking.rules[index]}, split over the chunks at ranks ${pieces.join(", ")})`
            : `retrieved at rank ${found[index]} (matched by ${evidenceRanking.rules[index]})`;
      return `${evidence.document_id}${evidence.section_id ? `/${evidence.section_id}` : ""} ${where}`;
    });
    const foundChunks = [...new Set(found.flatMap((rank, index) => (rank === null ? [] : evidenceRanking.contributors[index]!)))].map((rank) => chunkLabel(chunks[rank - 1]!));
    return { values, reason: `gold evidence: ${described.join("; ")}`, evidence: foundChunks };
  },
};
