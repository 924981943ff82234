/**
 * Token and cost accounting per judge and metric (issue 6: "token and cost
 * accounting per evaluator, kept apart from the application's own cost").
 * `withUsageLedger(judge, ledger)` records every outcome's usage — verdicts,
 * grader errors (their failed attempts cost money too) and cache hits (counted,
 * at zero cost) — without changing the outcome.
 */
import { judgeIdentity } from "./wrapped-judge.js";
import type { Judge, JudgeMetric, JudgeOutcome, JudgeRequest } from "./judge.js";

export interface JudgeUsageTotals {
  judgeId: string;
  metric: JudgeMetric;
  outcomes: number;
  passes: number;
  fails: number;
  graderErrors: number;
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
      totals = { judgeId: outcome.judgeId, metric: outcome.metric, outcomes: 0, passes: 0, fails: 0, graderErrors: 0, cacheHits: 0, calls: 0, inputTokens: 0, outputTokens: 0, cost: 0 };
      this.totals.set(key, totals);
    }
    totals.outcomes += 1;
    if (outcome.kind === "pass") totals.passes += 1;
    else if (outcome.kind === "fail") totals.fails += 1;
    else totals.graderErrors += 1;
    if (outcome.usage.cached) totals.cacheHits += 1;
    totals.calls += outcome.usage.calls;
    totals.inputTokens += outcome.usage.inputTokens;
    totals.outputTokens += outcome.usage.outputTokens;
    totals.cost += outcome.usage.cost;
  }

  /** Copies, sorted by judge then metric. */
  list(): JudgeUsageTotals[] {
    return [...this.totals.values()]
      .map((totals) => ({ ...totals }))
      .sort((first, second) => (first.judgeId === second.judgeId ? first.metric.localeCompare(second.metric) : first.judgeId.localeCompare(second.judgeId)));
  }

  totalCost(): number {
    return [...this.totals.values()].reduce((total, totals) => total + totals.cost, 0);
  }
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
