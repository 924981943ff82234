/**
 * Task success rate (seed 004 §六.1: 成功完成任务的问题数 / 总问题数).
 *
 * A task succeeded only when it was judged a pass: its quality_status is
 * `passed` — something able to judge it (a deterministic rule against the
 * Eval Case's gold data, or an LLM judge) passed it, evaluators/case-verdict.ts
 * — and the request neither errored nor timed out. The denominator is the
 * tasks with a verdict or a pending one: `passed`, `failed` and
 * `review_required` (needs review: an evaluator errored or a heuristic signal
 * is against it — not a confirmed success), plus requests that errored or
 * timed out — a request that never produced an answer failed its task even
 * though nothing was evaluated. Requests nothing was able to judge
 * (`unjudged`: online traffic without a judge, mostly) and requests nothing
 * applied to (`not_evaluated`) are left out and counted on their own: a
 * measurement is never a success.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { isError, isTimeout } from "./reliability-summary.js";

export interface TaskSuccess {
  judged: number;
  succeeded: number;
  /** Requests nothing applied to, or that nothing able to judge them judged (unjudged). */
  notEvaluated: number;
  /** Of those, the ones with measurements but no judgement. */
  unjudged: number;
  reviewRequired: number;
  rate: MetricValue;
}

export function isSuccessfulTask(caseResult: CaseResult): boolean {
  return caseResult.quality_status === "passed" && !isError(caseResult) && !isTimeout(caseResult);
}

export function isJudged(caseResult: CaseResult): boolean {
  const status = caseResult.quality_status;
  return status === "passed" || status === "failed" || status === "review_required" || isError(caseResult) || isTimeout(caseResult);
}

export function summarizeTaskSuccess(caseResults: readonly CaseResult[]): TaskSuccess {
  const judged = caseResults.filter(isJudged);
  const succeeded = judged.filter(isSuccessfulTask).length;
  return {
    judged: judged.length,
    succeeded,
    notEvaluated: caseResults.length - judged.length,
    unjudged: caseResults.filter((caseResult) => caseResult.quality_status === "unjudged" && !isJudged(caseResult)).length,
    reviewRequired: judged.filter((caseResult) => caseResult.quality_status === "review_required").length,
    rate: judged.length === 0 ? notApplicable("no request has a quality verdict") : applicable(succeeded / judged.length),
  };
}
