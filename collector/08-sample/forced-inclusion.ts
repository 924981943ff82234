/**
 * Traces that are always judged, whatever the rate (issue 6: "always evaluate
 * traces with errors, negative feedback, abstentions or sensitive-data hits").
 * Read from the Case Result and its rule results, which are written before
 * sampling:
 *
 * error              execution_status failed / timeout, an execution_error, or
 *                    a stage span with status error;
 * negative_feedback  `rag_observation.feedback` when the trace carries it (one
 *                    entry or a list of `{ kind, value }`): a value of
 *                    negative / thumbs_down / down / dislike / bad / 👎 / -1,
 *                    or a negative number, or a kind naming one of those;
 * abstention         `rag_observation.abstained` true, or the rule metric
 *                    `abstained` = 1 (rules/answer-abstention.ts);
 * sensitive_data     the rule metric `sensitive_data_in_answer` = 1
 *                    (evaluators/online/sensitive-data-in-answer.ts);
 * heuristic_review   a heuristic signal against the case: a rule result
 *                    marked review_required (an overlap measure's review
 *                    rule held, e.g. claims without overlap in the context)
 *                    or a case whose verdict is review_required — heuristics
 *                    route traces to the judge, they decide nothing
 *                    (evaluators/case-verdict.ts).
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";

export type ForcedReason = "error" | "negative_feedback" | "abstention" | "sensitive_data" | "heuristic_review";

const NEGATIVE_WORDS = new Set(["negative", "thumbs_down", "thumbs-down", "thumbsdown", "down", "dislike", "bad", "👎", "-1", "unhelpful", "not_helpful"]);

function isNegative(entry: unknown): boolean {
  if (typeof entry === "number") return entry < 0;
  if (typeof entry === "string") return NEGATIVE_WORDS.has(entry.trim().toLowerCase());
  if (entry !== null && typeof entry === "object") {
    const { kind, value, score } = entry as { kind?: unknown; value?: unknown; score?: unknown };
    return isNegative(value) || isNegative(score) || isNegative(kind);
  }
  return false;
}

/** True when the trace carries user feedback and any of it is negative. */
export function hasNegativeFeedback(caseResult: CaseResult): boolean {
  const feedback = (caseResult.rag_observation as { feedback?: unknown }).feedback;
  if (feedback === undefined || feedback === null) return false;
  return Array.isArray(feedback) ? feedback.some(isNegative) : isNegative(feedback);
}

function metricIsOne(results: readonly EvaluationResult[], metric: string): boolean {
  return results.some((result) => result.metric_values[metric] === 1);
}

export function forcedReasons(caseResult: CaseResult, ruleResults: readonly EvaluationResult[]): ForcedReason[] {
  const reasons: ForcedReason[] = [];
  const observation = caseResult.rag_observation;
  const failed = caseResult.execution_status === "failed" || caseResult.execution_status === "timeout" || caseResult.execution_error.type !== "none";
  if (failed || observation.stage_timings.some((timing) => timing.status === "error")) reasons.push("error");
  if (hasNegativeFeedback(caseResult)) reasons.push("negative_feedback");
  if (observation.abstained === true || metricIsOne(ruleResults, "abstained")) reasons.push("abstention");
  if (metricIsOne(ruleResults, "sensitive_data_in_answer")) reasons.push("sensitive_data");
  if (caseResult.quality_status === "review_required" || ruleResults.some((result) => result.review_required && result.outcome !== "error")) reasons.push("heuristic_review");
  return reasons;
}
