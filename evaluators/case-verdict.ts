/**
 * A case's quality verdict from all its Evaluation Results — rules first,
 * judge results when they arrive later — and its one primary root cause.
 * Verdicts never overstate quality: only something able to judge a case can
 * pass it, and a heuristic signal is a reason to look, never a verdict.
 *
 * In order (the README's "Verdicts" table):
 * - failed: the request did not complete — its task threw or passed its
 *   timeout (execution_status failed or timeout, execution_error.type
 *   system_error, environment_error or timeout: reliability-summary.ts, the
 *   test error_rate and timeout_rate count) — whatever its evaluators found:
 *   no answer reached the user, and a check that passed on what the trace
 *   recorded before the failure (a ranking) judged a request, not an answer;
 *   or a firm failure — a rule failed its threshold, or an LLM judge failed
 *   the case. Heuristic-judge failures are not firm (below);
 * - review_required ("needs review"): an evaluator errored (a grader error is
 *   never a pass), or a heuristic signal is against the case — a heuristic
 *   measure's review rule held (Evaluation Result `review_required`, e.g. the
 *   claim-overlap measure found unsupported claims) or the heuristic judge
 *   failed it — and no LLM judge has judged the case yet. Such traces are
 *   forced into the judge sample (collector/08-sample/forced-inclusion.ts);
 *   once an LLM judge has judged the case, its verdicts replace the heuristic
 *   signals (seed 004 §九.3: judge signals route reviews);
 * - passed: something able to judge the case passed it: a deterministic rule
 *   whose threshold compared the answer with the Eval Case's gold data
 *   (Evaluator.verdictBasis `eval_case`) — evidence, reference answer, key
 *   points, or answerability: a refusal of an unanswerable case that the trace
 *   flags or that refuses in whole (answer.abstention) — or an LLM judge.
 *   Passing checks of the trace alone (latency, permissions, citations being
 *   retrieved), heuristic passes (a refusal phrase beside claims of the
 *   answer's own), and passes that say nothing of the answer (answering an
 *   answerable case) do not count;
 *   A request that generated an answer its trace does not carry (no output,
 *   no recorded abstention: answerNotRecorded) is never passed: no check read
 *   its answer, whatever its retrieval scored against the gold evidence;
 * - unjudged: values were measured or checks passed, nothing is against the
 *   case, and nothing able to judge it did (online traffic without a judge);
 * - not_evaluated: no evaluator applied.
 * A failed case gets a root-cause Evaluation Result (root-cause/: for a
 * request that did not complete, its execution error type); any earlier
 * root cause among the inputs is replaced, never kept beside the new one.
 */
import type { CaseResult } from "../contracts/case-result.js";
import type { EvalCase } from "../contracts/eval-case.js";
import type { EvaluationResult } from "../contracts/evaluation-result.js";
import { isError, isTimeout } from "./aggregate/reliability-summary.js";
import { createDefaultRegistry } from "./default-registry.js";
import { verdictBasisOf } from "./evaluator.js";
import type { EvaluatorRegistry } from "./evaluator-registry.js";
import { attributeRootCause, ROOT_CAUSE_EVALUATOR_ID, rootCauseEvaluationResult, type AttributionOptions } from "./root-cause/index.js";

export interface CaseVerdict {
  caseResult: CaseResult;
  /** The inputs without any earlier root cause, plus the new one when the case failed. */
  evaluationResults: EvaluationResult[];
}

/** A verdict of a judge (evaluator `judge.*`). */
function isJudgement(result: EvaluationResult): boolean {
  return result.evaluator_id.startsWith("judge.");
}

/** A verdict of the heuristic judge (evaluator `judge.*` with heuristic confidence). */
export function isHeuristicJudgement(result: EvaluationResult): boolean {
  return isJudgement(result) && result.confidence.semantics === "heuristic";
}

/** A verdict of a language-model judge. */
export function isModelJudgement(result: EvaluationResult): boolean {
  return isJudgement(result) && result.confidence.semantics !== "heuristic";
}

/** A heuristic signal against the case: a review rule that held, or a heuristic judge's failure. */
export function isHeuristicSignalAgainst(result: EvaluationResult): boolean {
  if (result.outcome === "error") return false;
  if (isHeuristicJudgement(result)) return result.outcome === "failed" || result.review_required;
  return !isJudgement(result) && result.review_required;
}

let defaultRegistry: EvaluatorRegistry | null = null;

function registryOrDefault(registry: EvaluatorRegistry | undefined): EvaluatorRegistry {
  if (registry !== undefined) return registry;
  defaultRegistry ??= createDefaultRegistry();
  return defaultRegistry;
}

/**
 * A pass by something able to judge the case's quality: an LLM judge's, or an
 * exact rule's (the result's own confidence: answer.abstention is exact only
 * for a trace flag or an answer that refuses in whole) that compared the
 * answer with the case's gold data, where that pass says the answer is right
 * (Evaluator.passJudgesCase: a refusal of an unanswerable case does, answering
 * an answerable one does not).
 */
function judgesAPass(result: EvaluationResult, registry: EvaluatorRegistry): boolean {
  if (result.outcome !== "passed") return false;
  if (isJudgement(result)) return isModelJudgement(result);
  if (result.confidence.semantics !== "deterministic_rule") return false;
  const evaluator = registry.get(result.evaluator_id);
  if (evaluator === undefined || verdictBasisOf(evaluator) !== "eval_case") return false;
  return evaluator.passJudgesCase?.(result.metric_values) ?? true;
}

/**
 * Whether the request generated an answer that its trace does not carry: a generation ran, and the Case Result has
 * no output and no recorded abstention (an instrumentation that records no content, a span that lost its
 * completion). Then no check read the answer, and a pass of the retrieval against the gold evidence says nothing of
 * it: the case is at most unjudged. A request with no generation (a retrieval evaluated on its own) is not such a
 * case: its retrieval is the whole of what it answers with.
 */
export function answerNotRecorded(caseResult: CaseResult): boolean {
  const observation = caseResult.rag_observation;
  return caseResult.output === null && observation.abstained !== true && observation.stage_timings.some((timing) => timing.stage === "generate");
}

/**
 * @param answerMissing the request generated an answer its trace does not carry (answerNotRecorded): nothing can
 *   pass it, though a firm failure still fails it
 */
export function qualityStatusOf(results: readonly EvaluationResult[], registry?: EvaluatorRegistry, answerMissing = false): CaseResult["quality_status"] {
  const evaluators = registryOrDefault(registry);
  if (results.some((result) => result.outcome === "failed" && !isHeuristicJudgement(result))) return "failed";
  if (results.some((result) => result.outcome === "error")) return "review_required";
  const judgedByModel = results.some((result) => isModelJudgement(result) && (result.outcome === "passed" || result.outcome === "failed"));
  if (!judgedByModel && results.some(isHeuristicSignalAgainst)) return "review_required";
  if (!answerMissing && results.some((result) => judgesAPass(result, evaluators))) return "passed";
  if (results.some((result) => result.outcome !== "not_applicable")) return "unjudged";
  return "not_evaluated";
}

/** The request did not complete: its task threw, errored or passed its timeout (the requests error_rate and timeout_rate count). */
export function didNotComplete(caseResult: CaseResult): boolean {
  return isError(caseResult) || isTimeout(caseResult);
}

/**
 * @param attribution what the run knows beyond the case for the root cause: the corpus index of `ragscope eval
 *   --corpus`, without which DATA_MISSING cannot be told from RETRIEVAL_MISS. Whoever decides the verdict again (the
 *   judge result sinks) must pass the same, or the later verdict loses the label.
 */
export function decideCaseVerdict(
  caseResult: CaseResult,
  evalCase: EvalCase | null,
  results: readonly EvaluationResult[],
  evaluatedAt: string,
  registry?: EvaluatorRegistry,
  attribution: AttributionOptions = {},
): CaseVerdict {
  const evaluationResults = results.filter((result) => result.evaluator_id !== ROOT_CAUSE_EVALUATOR_ID);
  const decided = { ...caseResult, quality_status: didNotComplete(caseResult) ? ("failed" as const) : qualityStatusOf(evaluationResults, registry, answerNotRecorded(caseResult)) };
  if (decided.quality_status === "failed") {
    const firm = evaluationResults.filter((result) => !isHeuristicJudgement(result));
    const rootCause = attributeRootCause(decided, evalCase, firm, attribution);
    if (rootCause) evaluationResults.push(rootCauseEvaluationResult(decided, rootCause, evaluatedAt));
  }
  return { caseResult: decided, evaluationResults };
}
