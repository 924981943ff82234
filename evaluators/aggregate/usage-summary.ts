/**
 * Tokens and cost over many requests (seed 004 §七 成本指标: Prompt /
 * Completion Token 数, 单次问答总成本, 每个成功任务成本).
 *
 * Totals and means are over the requests that recorded the quantity; the
 * number of such requests is reported beside them, so a total over half the
 * traffic is not read as the whole. cost per successful task = total cost of
 * all requests (failed ones cost money too) / successful tasks
 * (task-success.ts), the seed's Cost per Success; not applicable when no task
 * succeeded or a request that called a model recorded no cost (the total is
 * then not known; a request that made no call cost nothing it could miss).
 */
import type { CaseResult } from "../../contracts/case-result.js";
import { finiteMean, finiteSum } from "../../core/finite-mean.js";
import { isWithinLargestMeasurement } from "../../core/largest-measurement.js";
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

/**
 * The values requests recorded that are measurements: within 2^53 − 1 (core/largest-measurement.ts). The collector
 * writes none beyond it; a Case Result written by other means (an earlier release's collector) may carry one, which
 * is a unit or encoding mistake, read as not recorded, as the run summary of the stores reads it.
 */
function recordedValues(values: readonly (number | null)[]): number[] {
  return values.filter(isWithinLargestMeasurement);
}

/** present: the values requests recorded; what: the quantity one request records ("a cost"); summed: the same, added up over requests ("costs"). */
function totalAndMean(present: readonly number[], what: string, summed: string): TotalAndMean {
  if (present.length === 0) {
    const none = notApplicable(`no request recorded ${what}`);
    return { recorded: 0, total: none, mean: none };
  }
  // Each request's value is finite, their total need not be (two requests of 1e308 tokens): such a total is not
  // available, with the reason, while the mean still is.
  const total = finiteSum(present);
  return {
    recorded: present.length,
    total: total === null ? notApplicable(`the ${present.length} requests' ${summed} add up beyond the largest number`) : applicable(total),
    mean: applicable(finiteMean(present)),
  };
}

export function summarizeUsage(caseResults: readonly CaseResult[]): UsageSummary {
  const generation = caseResults.map((caseResult) => caseResult.rag_observation.generation);
  const costs = recordedValues(generation.map((usage) => usage.cost));
  const cost = totalAndMean(costs, "a cost", "costs");
  const succeeded = summarizeTaskSuccess(caseResults).succeeded;
  let costPerSuccessfulTask: MetricValue;
  // Requests with an LLM call (a generate stage, a model or token counts) and no cost: their cost is not known. A
  // request that made no call (its task failed before generating, an answer returned without a model) cost nothing
  // the total could miss.
  const unpriced = unpricedRequests(caseResults);
  if (cost.recorded === 0) costPerSuccessfulTask = cost.total;
  // The total of the costs recorded is not the run's: a request without one was read as free, and the cost per task
  // understated (0.02 where it was not known).
  else if (unpriced > 0) costPerSuccessfulTask = notApplicable(`${unpriced} of ${caseResults.length} requests called a model and recorded no cost, so the run's total cost is not known; record each generation's cost (traceGenerate's cost)`);
  else if (succeeded === 0) costPerSuccessfulTask = notApplicable("no task succeeded");
  else {
    // The total over the successes, taken as the sum of each cost's share so a total beyond the largest number
    // still gives a cost per task when that is a number.
    const perTask = cost.total.applicable ? cost.total.value / succeeded : finiteSum(costs.map((value) => value / succeeded));
    costPerSuccessfulTask = perTask === null ? notApplicable(`the requests' costs over ${succeeded} successful tasks go beyond the largest number`) : applicable(perTask);
  }
  return {
    inputTokens: totalAndMean(recordedValues(generation.map((usage) => usage.input_tokens)), "prompt tokens", "prompt tokens"),
    outputTokens: totalAndMean(recordedValues(generation.map((usage) => usage.output_tokens)), "completion tokens", "completion tokens"),
    totalTokens: totalAndMean(recordedValues(generation.map((usage) => usage.total_tokens)), "token totals", "token totals"),
    cost,
    costPerSuccessfulTask,
  };
}

/** Requests that called a model (a generate stage, a model or token counts) and recorded no cost, or none within 2^53 − 1 (recordedValues): what they cost is not known. */
export function unpricedRequests(caseResults: readonly CaseResult[]): number {
  return caseResults.filter((caseResult) => recordedValues([caseResult.rag_observation.generation.cost]).length === 0 && madeLlmCall(caseResult)).length;
}

function madeLlmCall(caseResult: CaseResult): boolean {
  const { generation, stage_timings: stages } = caseResult.rag_observation;
  return generation.model !== null || generation.input_tokens !== null || generation.output_tokens !== null || generation.total_tokens !== null || stages.some((stage) => stage.stage === "generate");
}
