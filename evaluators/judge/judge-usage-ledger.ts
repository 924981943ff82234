/**
 * Token and cost accounting per judge and metric (issue 6: "token and cost
 * accounting per evaluator, kept apart from the application's own cost").
 * `withUsageLedger(judge, ledger)` records every outcome's usage — verdicts,
 * grader errors (their failed attempts cost money too) and cache hits (counted,
 * at zero cost) — without changing the outcome. Grader errors are also kept
 * by error type, every type from the start at 0, so an operator can tell an
 * outage (`http_error`, `timeout`) from a reached spending limit
 * (`budget_exhausted`) and alert on each (collector/wiring/observe/judge-metrics.ts).
 */
import { judgeIdentity } from "./wrapped-judge.js";
import { JUDGE_ERROR_TYPES, type Judge, type JudgeErrorType, type JudgeMetric, type JudgeOutcome, type JudgeRequest } from "./judge.js";

export interface JudgeUsageTotals {
  judgeId: string;
  metric: JudgeMetric;
  outcomes: number;
  passes: number;
  fails: number;
  graderErrors: number;
  graderErrorsByType: Record<JudgeErrorType, number>;
  cacheHits: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
}

export class JudgeUsageLedger {
  private readonly totals = new Map<string, JudgeUsageTotals>();

  record(outcome: JudgeOutcome): void {
    const key = `${outcome.judgeId}\u0000${outcome.metric}`;
    let totals = this.totals.get(key);
    if (totals === undefined) {
      totals = { judgeId: outcome.judgeId, metric: outcome.metric, outcomes: 0, passes: 0, fails: 0, graderErrors: 0, graderErrorsByType: noErrors(), cacheHits: 0, calls: 0, inputTokens: 0, outputTokens: 0, cost: 0 };
      this.totals.set(key, totals);
    }
    totals.outcomes += 1;
    if (outcome.kind === "pass") totals.passes += 1;
    else if (outcome.kind === "fail") totals.fails += 1;
    else if (outcome.kind === "grader_error") {
      totals.graderErrors += 1;
      totals.graderErrorsByType[outcome.errorType] += 1;
    }
    if (outcome.usage.cached) totals.cacheHits += 1;
    totals.calls += outcome.usage.calls;
    totals.inputTokens += outcome.usage.inputTokens;
    totals.outputTokens += outcome.usage.outputTokens;
    // The ledger feeds a counter (ragscope_judge_cost_usd_total), which has no "not known": an unpriced call adds
    // nothing there; its Evaluation Results carry judge_cost null (judge-evaluations.ts).
    // A call that timed out left the total unknown (its cost null); the calls known to have cost something still count.
    totals.cost += outcome.usage.cost ?? outcome.usage.knownCost ?? 0;
  }

  /** Copies, sorted by judge then metric. */
  list(): JudgeUsageTotals[] {
    return [...this.totals.values()]
      .map((totals) => ({ ...totals, graderErrorsByType: { ...totals.graderErrorsByType } }))
      .sort((first, second) => (first.judgeId === second.judgeId ? first.metric.localeCompare(second.metric) : first.judgeId.localeCompare(second.judgeId)));
  }

  totalCost(): number {
    return [...this.totals.values()].reduce((total, totals) => total + totals.cost, 0);
  }

  /** Everything recorded, over every judge and metric (what a process exports on /metrics). */
  overall(): Omit<JudgeUsageTotals, "judgeId" | "metric"> {
    const sum = { outcomes: 0, passes: 0, fails: 0, graderErrors: 0, graderErrorsByType: noErrors(), cacheHits: 0, calls: 0, inputTokens: 0, outputTokens: 0, cost: 0 };
    for (const totals of this.totals.values()) {
      sum.outcomes += totals.outcomes;
      sum.passes += totals.passes;
      sum.fails += totals.fails;
      sum.graderErrors += totals.graderErrors;
      for (const type of JUDGE_ERROR_TYPES) sum.graderErrorsByType[type] += totals.graderErrorsByType[type];
      sum.cacheHits += totals.cacheHits;
      sum.calls += totals.calls;
      sum.inputTokens += totals.inputTokens;
      sum.outputTokens += totals.outputTokens;
      sum.cost += totals.cost;
    }
    return sum;
  }
}

function noErrors(): Record<JudgeErrorType, number> {
  return Object.fromEntries(JUDGE_ERROR_TYPES.map((type) => [type, 0])) as Record<JudgeErrorType, number>;
}

export function withUsageLedger(judge: Judge, ledger: JudgeUsageLedger): Judge {
  return {
    ...judgeIdentity(judge),
    async judge(request: JudgeRequest, signal?: AbortSignal): Promise<JudgeOutcome> {
      const outcome = await judge.judge(request, signal);
      ledger.record(outcome);
      return outcome;
    },
  };
}
