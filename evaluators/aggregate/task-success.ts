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
 * measurement is never a success. That count holds complete requests only, as
 * the store's rollups count "not judged" (request_rollups.task_not_judged,
 * migration 0033; dashboards/source/aggregate-metrics.ts): a partial result
 * without a verdict (a partial trace nothing judged, or a result rebuilt from
 * a late user event alone, which is no request) is neither judged nor left
 * out, so `eval`, experiments and the dashboards and `ragscope report` over
 * the store give one count. A partial trace with a verdict stays judged: a
 * question was asked.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { isError, isTimeout } from "./reliability-summary.js";

export interface TaskSuccess {
  judged: number;
  succeeded: number;
  /** Complete requests (not partial traces) nothing applied to, or that nothing able to judge judged (unjudged). */
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
  // Not all results − judged: a partial result without a verdict is no request of the rate (migration 0033).
  const notJudged = caseResults.filter((caseResult) => !caseResult.rag_observation.partial_trace && !isJudged(caseResult));
  return {
    judged: judged.length,
    succeeded,
    notEvaluated: notJudged.length,
    unjudged: notJudged.filter((caseResult) => caseResult.quality_status === "unjudged").length,
    reviewRequired: judged.filter((caseResult) => caseResult.quality_status === "review_required").length,
    rate: judged.length === 0 ? notApplicable("no request has a quality verdict") : applicable(succeeded / judged.length),
  };
}
