/**
 * BERTScore-style token matching of the answer against the reference answer
 * (seed 004 §九.2 "BERTScore"): per-token embeddings from the token embeddings
 * endpoint (token-embeddings-client.ts), greedy matching
 * (greedy-token-matching.ts: no idf, no baseline rescaling). With several
 * reference answers the one with the best F1 counts, as BERTScore does.
 *
 * Auxiliary, like answer_embedding_similarity: the outcome is `measured` —
 * numbers, never a pass or a fail. Without an answer or a reference nothing is
 * measured; an endpoint failure, or vectors that cannot be matched, is an
 * `error` result with its reason and null values, never a 0.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import { evaluationResult, type EvaluationResult } from "../../contracts/evaluation-result.js";
import { evaluationResultIdFor } from "../../contracts/ids.js";
import { judgeInputsFor } from "../judge/judge-inputs.js";
import { metricKeys, type MetricLayer } from "../metric-keys.js";
import { greedyTokenMatching, type TokenMatching } from "./greedy-token-matching.js";
import type { TokenEmbeddingsClient } from "./token-embeddings-client.js";

export const tokenMatchingMetrics = metricKeys(["answer_bertscore_precision", "answer_bertscore_recall", "answer_bertscore_f1"]);
export const TOKEN_MATCHING_LAYER: MetricLayer = "generation";
export const TOKEN_MATCHING_EVALUATOR_ID = "embedding.answer_token_matching";
const EVALUATOR_VERSION_PREFIX = "answer_bertscore@1";
const NO_VALUES = { answer_bertscore_precision: null, answer_bertscore_recall: null, answer_bertscore_f1: null };

const round = (value: number) => Math.round(value * 10_000) / 10_000;

export async function tokenMatchingEvaluations(client: TokenEmbeddingsClient, caseResult: CaseResult, evalCase: EvalCase | null, evaluatedAt: string, signal?: AbortSignal): Promise<EvaluationResult[]> {
  const inputs = judgeInputsFor(caseResult, evalCase);
  if (inputs.answer === null || inputs.referenceAnswers.length === 0) return [];
  const evaluatorVersion = `${EVALUATOR_VERSION_PREFIX}+${client.model}`;
  const base = {
    evaluation_result_id: evaluationResultIdFor(caseResult.case_result_id, TOKEN_MATCHING_EVALUATOR_ID, evaluatorVersion),
    case_result_id: caseResult.case_result_id,
    evaluator_id: TOKEN_MATCHING_EVALUATOR_ID,
    evaluator_version: evaluatorVersion,
    evaluated_at: evaluatedAt,
    evidence_refs: [],
  };
  const error = (reason: string) =>
    evaluationResult.parse({ ...base, metric_values: NO_VALUES, outcome: "error", reason, confidence: { value: 0, semantics: "heuristic" }, review_required: true, error_type: "evaluator_error" });

  const texts = [inputs.answer, ...inputs.referenceAnswers];
  const embedded = await client.embedTokens(texts, signal);
  if (!embedded.ok) return [error(`token embeddings endpoint error (${embedded.error.errorType}) from ${client.model} at ${client.url}: ${embedded.error.message}`)];
  const [answerTokens, ...referenceTokens] = embedded.value.tokens;
  // A server with pooling on answers one vector per text: matching it would be a sentence cosine under another name.
  if (embedded.value.tokens.every((tokens) => tokens.length === 1) && texts.some((text) => /\S\s+\S/.test(text))) {
    return [error(`${client.url} returned one vector per text, not one per token: start llama-server with --embeddings --pooling none`)];
  }
  let best: { matching: TokenMatching; referenceTokens: number } | null = null;
  for (const tokens of referenceTokens) {
    const matching = greedyTokenMatching(answerTokens!, tokens);
    if (matching !== null && (best === null || matching.f1 > best.matching.f1)) best = { matching, referenceTokens: tokens.length };
  }
  if (best === null) return [error(`the token embeddings of ${client.model} cannot be matched (no tokens, a zero vector, or vectors of different lengths)`)];
  const { precision, recall, f1 } = best.matching;
  const cached = embedded.value.cachedTexts === texts.length ? " (cached embeddings)" : "";
  return [
    evaluationResult.parse({
      ...base,
      metric_values: { answer_bertscore_precision: precision, answer_bertscore_recall: recall, answer_bertscore_f1: f1 },
      outcome: "measured",
      reason:
        `answer_bertscore_f1 = ${round(f1)} (precision ${round(precision)}, recall ${round(recall)}; greedy matching of ${answerTokens!.length} answer tokens with ${best.referenceTokens} tokens of the best of ${referenceTokens.length} reference answer${referenceTokens.length === 1 ? "" : "s"}, ${client.model}; BERTScore-style: no idf, no baseline rescaling)${cached}: auxiliary, not a verdict`,
      confidence: { value: 0.5, semantics: "heuristic" },
      review_required: false,
      error_type: "none",
    }),
  ];
}
