/**
 * Embedding Similarity (seed 004 §九.2): the cosine similarity of the answer's
 * and the reference answer's embeddings, from any OpenAI-compatible
 * embeddings endpoint (embeddings-client.ts). With several acceptable
 * reference answers, the best-matching one counts.
 *
 * An auxiliary metric, as the seed says ("这些指标可以辅助，但不应单独作为 RAG
 * 核心指标"): the outcome is `measured` — a number, never a pass or a fail —
 * and an open answer worded differently from the reference can score low while
 * being right. Without an answer or a reference the metric does not apply
 * (null); an endpoint failure is an `error` result with its reason, never a 0.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import { evaluationResult, type EvaluationResult } from "../../contracts/evaluation-result.js";
import { evaluationResultIdFor } from "../../contracts/ids.js";
import { judgeInputsFor } from "../judge/judge-inputs.js";
import { metricKeys, type MetricLayer } from "../metric-keys.js";
import { cosineSimilarity } from "./cosine-similarity.js";
import type { EmbeddingsClient } from "./embeddings-client.js";

export const embeddingSimilarityMetrics = metricKeys(["answer_embedding_similarity"]);
/** The answer compared with the reference answer: the generation layer (seed 004 §五). */
export const EMBEDDING_SIMILARITY_LAYER: MetricLayer = "generation";
export const EMBEDDING_SIMILARITY_EVALUATOR_ID = "embedding.answer_similarity";
const EVALUATOR_VERSION_PREFIX = "answer_embedding_similarity@1";

export async function embeddingSimilarityEvaluations(client: EmbeddingsClient, caseResult: CaseResult, evalCase: EvalCase | null, evaluatedAt: string, signal?: AbortSignal): Promise<EvaluationResult[]> {
  const inputs = judgeInputsFor(caseResult, evalCase);
  const evaluatorVersion = `${EVALUATOR_VERSION_PREFIX}+${client.model}`;
  const base = {
    evaluation_result_id: evaluationResultIdFor(caseResult.case_result_id, EMBEDDING_SIMILARITY_EVALUATOR_ID, evaluatorVersion),
    case_result_id: caseResult.case_result_id,
    evaluator_id: EMBEDDING_SIMILARITY_EVALUATOR_ID,
    evaluator_version: evaluatorVersion,
    evaluated_at: evaluatedAt,
    evidence_refs: [],
  };
  // Only cases with a reference are measured: an online trace without a case has nothing to compare with.
  if (inputs.answer === null || inputs.referenceAnswers.length === 0) return [];

  const embedded = await client.embed([inputs.answer, ...inputs.referenceAnswers], signal);
  if (!embedded.ok) {
    return [
      evaluationResult.parse({
        ...base,
        metric_values: { answer_embedding_similarity: null },
        outcome: "error",
        reason: `embeddings endpoint error (${embedded.error.errorType}) from ${client.model} at ${client.baseUrl}: ${embedded.error.message}`,
        confidence: { value: 0, semantics: "heuristic" },
        review_required: true,
        error_type: "evaluator_error",
      }),
    ];
  }
  const [answerVector, ...referenceVectors] = embedded.value.vectors;
  const similarities = referenceVectors.map((vector) => cosineSimilarity(answerVector!, vector)).filter((value): value is number => value !== null);
  if (similarities.length === 0) {
    return [
      evaluationResult.parse({
        ...base,
        metric_values: { answer_embedding_similarity: null },
        outcome: "error",
        reason: `the embeddings of ${client.model} cannot be compared (empty, zero or of different lengths)`,
        confidence: { value: 0, semantics: "heuristic" },
        review_required: true,
        error_type: "evaluator_error",
      }),
    ];
  }
  const best = Math.max(...similarities);
  const rounded = Math.round(best * 10_000) / 10_000;
  const cached = embedded.value.cachedTexts === 1 + referenceVectors.length ? " (cached embeddings)" : "";
  return [
    evaluationResult.parse({
      ...base,
      metric_values: { answer_embedding_similarity: best },
      outcome: "measured",
      reason: `answer_embedding_similarity = ${rounded} (cosine with the best of ${referenceVectors.length} reference answer${referenceVectors.length === 1 ? "" : "s"}, ${client.model})${cached}: auxiliary, not a verdict`,
      // A similarity is a measurement of closeness, not of correctness: heuristic semantics.
      confidence: { value: 0.5, semantics: "heuristic" },
      review_required: false,
      error_type: "none",
    }),
  ];
}
