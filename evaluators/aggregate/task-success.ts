/**
 * Task success rate (seed 004 §六.1: 成功完成任务的问题数 / 总问题数).
 *
 * A task succeeded when its case's quality_status is `passed` (every
 * evaluator with a verdict passed) and the request neither errored nor timed
 * out. The denominator is the tasks with a verdict: quality `passed`,
 * `failed` or `review_required` (an evaluator errored: not a confirmed
 * success), plus requests that errored or timed out — a request that never
 * produced an answer failed its task even though nothing was evaluated.
 * Requests with nothing to judge (quality `not_evaluated`, completed: online
 * traffic without a case, mostly) are left out and counted on their own.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { isError, isTimeout } from "./reliability-summary.js";

export interface TaskSuccess {
  judged: number;
  succeeded: number;
  notEvaluated: number;
  reviewRequired: number;
  rate: MetricValue;
}

export function isSuccessfulTask(caseResult: CaseResult): boolean {
  return caseResult.quality_status === "passed" && !isError(caseResult) && !isTimeout(caseResult);
}

function isJudged(caseResult: CaseResult): boolean {
  return caseResult.quality_status !== "not_evaluated" || isError(caseResult) || isTimeout(caseResult);
}

export function summarizeTaskSuccess(caseResults: readonly CaseResult[]): TaskSuccess {
  const judged = caseResults.filter(isJudged);
  const succeeded = judged.filter(isSuccessfulTask).length;
  return {
    judged: judged.length,
    succeeded,
    notEvaluated: caseResults.length - judged.length,
    reviewRequired: judged.filter((caseResult) => caseResult.quality_status === "review_required").length,
    rate: judged.length === 0 ? notApplicable("no request has a quality verdict") : applicable(succeeded / judged.length),
  };
}
