/**
 * Tokens and cost over many requests (seed 004 §七 成本指标: Prompt /
 * Completion Token 数, 单次问答总成本, 每个成功任务成本).
 *
 * Totals and means are over the requests that recorded the quantity; the
 * number of such requests is reported beside them, so a total over half the
 * traffic is not read as the whole. cost per successful task = total cost of
 * all requests (failed ones cost money too) / successful tasks
 * (task-success.ts), the seed's Cost per Success; not applicable when no task
 * succeeded or no request recorded a cost.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { summarizeTaskSuccess } from "./task-success.js";

export interface TotalAndMean {
  /** Requests that recorded the quantity. */
  recorded: number;
  total: MetricValue;
  mean: MetricValue;
}

export interface UsageSummary {
  inputTokens: TotalAndMean;
  outputTokens: TotalAndMean;
  totalTokens: TotalAndMean;
  cost: TotalAndMean;
  costPerSuccessfulTask: MetricValue;
}

function totalAndMean(values: readonly (number | null)[], what: string): TotalAndMean {
  const present = values.filter((value): value is number => value !== null && Number.isFinite(value));
  if (present.length === 0) {
    const none = notApplicable(`no request recorded ${what}`);
    return { recorded: 0, total: none, mean: none };
  }
  const total = present.reduce((sum, value) => sum + value, 0);
  return { recorded: present.length, total: applicable(total), mean: applicable(total / present.length) };
}

export function summarizeUsage(caseResults: readonly CaseResult[]): UsageSummary {
  const generation = caseResults.map((caseResult) => caseResult.rag_observation.generation);
  const cost = totalAndMean(generation.map((usage) => usage.cost), "a cost");
  const succeeded = summarizeTaskSuccess(caseResults).succeeded;
  let costPerSuccessfulTask: MetricValue;
  if (!cost.total.applicable) costPerSuccessfulTask = cost.total;
  else if (succeeded === 0) costPerSuccessfulTask = notApplicable("no task succeeded");
  else costPerSuccessfulTask = applicable(cost.total.value / succeeded);
  return {
    inputTokens: totalAndMean(generation.map((usage) => usage.input_tokens), "prompt tokens"),
    outputTokens: totalAndMean(generation.map((usage) => usage.output_tokens), "completion tokens"),
    totalTokens: totalAndMean(generation.map((usage) => usage.total_tokens), "token totals"),
    cost,
    costPerSuccessfulTask,
  };
}
