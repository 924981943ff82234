/**
 * Error and timeout rates over many requests (seed 004 §七 超时率, 错误率;
 * §十三 `error_rate: "<= 0.01"`).
 *
 * A request timed out when its execution_status is `timeout` or its
 * execution_error.type is `timeout`. It errored when it did not time out and
 * its status is `failed` or its error type is `system_error` or
 * `environment_error`. The two are disjoint, so they add up to the requests
 * that did not complete. A partial trace (evaluated before its root span
 * ended) is neither: it is counted on its own.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";

export interface ReliabilitySummary {
  requests: number;
  errors: number;
  timeouts: number;
  partial: number;
  errorRate: MetricValue;
  timeoutRate: MetricValue;
}

/** What the tests below read of a Case Result: its execution status and error type. */
export type ExecutionOutcome = Pick<CaseResult, "execution_status"> & { execution_error: Pick<CaseResult["execution_error"], "type"> };

export function isTimeout(caseResult: ExecutionOutcome): boolean {
  return caseResult.execution_status === "timeout" || caseResult.execution_error.type === "timeout";
}

export function isError(caseResult: ExecutionOutcome): boolean {
  if (isTimeout(caseResult)) return false;
  const type = caseResult.execution_error.type;
  return caseResult.execution_status === "failed" || type === "system_error" || type === "environment_error";
}

export function summarizeReliability(caseResults: readonly CaseResult[]): ReliabilitySummary {
  const errors = caseResults.filter(isError).length;
  const timeouts = caseResults.filter(isTimeout).length;
  const rate = (count: number): MetricValue => (caseResults.length === 0 ? notApplicable("no requests") : applicable(count / caseResults.length));
  return {
    requests: caseResults.length,
    errors,
    timeouts,
    partial: caseResults.filter((caseResult) => caseResult.execution_status === "partial").length,
    errorRate: rate(errors),
    timeoutRate: rate(timeouts),
  };
}
