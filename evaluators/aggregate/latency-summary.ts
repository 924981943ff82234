/**
 * Latency over many requests (seed 004 §七 性能指标: P50 / P95 / P99 延迟,
 * 检索耗时, Rerank 耗时, 首 Token 延迟), nearest-rank percentiles
 * (percentile.ts).
 *
 * request: the root span's duration (`latency_ms`) of every request that
 * recorded one — failed and timed-out requests included, since the user
 * waited for them too. Per stage: for each request, the durations of that
 * stage's spans added up (stage_timings), so a request that retrieved twice
 * counts its two retrievals as one stage time; a request without the stage
 * does not count towards it. timeToFirstToken: the generator's TTFT.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import { summarizeDistribution, type DistributionSummary } from "./percentile.js";

export interface LatencySummary {
  request: DistributionSummary;
  timeToFirstToken: DistributionSummary;
  /** By stage name (retrieve, rerank, context, generate, …). */
  stages: Record<string, DistributionSummary>;
}

export function summarizeLatency(caseResults: readonly CaseResult[]): LatencySummary {
  const stageValues = new Map<string, number[]>();
  for (const caseResult of caseResults) {
    const perStage = new Map<string, number>();
    for (const timing of caseResult.rag_observation.stage_timings) {
      if (!Number.isFinite(timing.duration_ms)) continue;
      perStage.set(timing.stage, (perStage.get(timing.stage) ?? 0) + timing.duration_ms);
    }
    for (const [stage, duration] of perStage) {
      const values = stageValues.get(stage) ?? [];
      values.push(duration);
      stageValues.set(stage, values);
    }
  }
  const stages: Record<string, DistributionSummary> = {};
  for (const stage of [...stageValues.keys()].sort()) stages[stage] = summarizeDistribution(stageValues.get(stage)!);
  return {
    request: summarizeDistribution(present(caseResults.map((caseResult) => caseResult.rag_observation.latency_ms))),
    timeToFirstToken: summarizeDistribution(present(caseResults.map((caseResult) => caseResult.rag_observation.generation.time_to_first_token_ms))),
    stages,
  };
}

function present(values: readonly (number | null)[]): number[] {
  return values.filter((value): value is number => value !== null);
}
