/**
 * A case's quality verdict from all its Evaluation Results — rules first,
 * judge results when they arrive later — and its one primary root cause.
 *
 * - failed: a rule, or an LLM judge, failed the case;
 * - review_required: an evaluator errored (a grader error is never a pass), or
 *   only the heuristic judge failed it: it stands in for an LLM judge where
 *   none is configured and routes the case to review, it does not fail it on
 *   its own (seed 004 §九.3: judge signals route reviews). Heuristic *rules*
 *   (groundedness, sufficiency…) are checks of their own and do fail a case;
 * - passed: something passed and nothing above happened;
 * - not_evaluated: nothing applied.
 * A failed case gets a root-cause Evaluation Result (root-cause/); any earlier
 * root cause among the inputs is replaced, never kept beside the new one.
 */
import type { CaseResult } from "../contracts/case-result.js";
import type { EvalCase } from "../contracts/eval-case.js";
import type { EvaluationResult } from "../contracts/evaluation-result.js";
import { attributeRootCause, ROOT_CAUSE_EVALUATOR_ID, rootCauseEvaluationResult } from "./root-cause/index.js";

export interface CaseVerdict {
  caseResult: CaseResult;
  /** The inputs without any earlier root cause, plus the new one when the case failed. */
  evaluationResults: EvaluationResult[];
}

/** A verdict of the heuristic judge (evaluator `judge.*` with heuristic confidence). */
export function isHeuristicJudgement(result: EvaluationResult): boolean {
  return result.evaluator_id.startsWith("judge.") && result.confidence.semantics === "heuristic";
}

function qualityStatusOf(results: readonly EvaluationResult[]): CaseResult["quality_status"] {
  const failedFirmly = results.some((result) => result.outcome === "failed" && !isHeuristicJudgement(result));
  if (failedFirmly) return "failed";
  const errored = results.some((result) => result.outcome === "error");
  const failedHeuristically = results.some((result) => result.outcome === "failed");
  if (errored || failedHeuristically) return "review_required";
  return results.some((result) => result.outcome === "passed") ? "passed" : "not_evaluated";
}

export function decideCaseVerdict(caseResult: CaseResult, evalCase: EvalCase | null, results: readonly EvaluationResult[], evaluatedAt: string): CaseVerdict {
  const evaluationResults = results.filter((result) => result.evaluator_id !== ROOT_CAUSE_EVALUATOR_ID);
  const decided = { ...caseResult, quality_status: qualityStatusOf(evaluationResults) };
  if (decided.quality_status === "failed") {
    const firm = evaluationResults.filter((result) => !isHeuristicJudgement(result));
    const attribution = attributeRootCause(decided, evalCase, firm);
    if (attribution) evaluationResults.push(rootCauseEvaluationResult(decided, attribution, evaluatedAt));
  }
  return { caseResult: decided, evaluationResults };
}
