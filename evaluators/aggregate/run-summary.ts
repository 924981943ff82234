/**
 * Everything the end-to-end layer reports about a set of evaluated requests
 * (a run, or a window of online traffic) in one call: latency, usage,
 * reliability, task success and the quality score with its hard gates. Pure:
 * the collector's reports and release gates call it with what they read back.
 */
import type { EvaluatedCase } from "./evaluated-case.js";
import { summarizeLatency, type LatencySummary } from "./latency-summary.js";
import { qualityScore, type QualityScore, type QualityScoreOptions } from "./quality-score.js";
import { summarizeReliability, type ReliabilitySummary } from "./reliability-summary.js";
import { summarizeTaskSuccess, type TaskSuccess } from "./task-success.js";
import { summarizeUsage, type UsageSummary } from "./usage-summary.js";

export interface RunSummary {
  requests: number;
  latency: LatencySummary;
  usage: UsageSummary;
  reliability: ReliabilitySummary;
  taskSuccess: TaskSuccess;
  quality: QualityScore;
}

export function summarizeRun(cases: readonly EvaluatedCase[], options: QualityScoreOptions = {}): RunSummary {
  const caseResults = cases.map((evaluated) => evaluated.caseResult);
  return {
    requests: cases.length,
    latency: summarizeLatency(caseResults),
    usage: summarizeUsage(caseResults),
    reliability: summarizeReliability(caseResults),
    taskSuccess: summarizeTaskSuccess(caseResults),
    quality: qualityScore(cases, options),
  };
}
