/** The end-to-end, dataset-level aggregates: the API reports and release gates call. */
export { compositeScore, COMPOSITE_TERMS, type CompositeScore, type CompositeTerm, type CompositeTermName } from "./composite-score.js";
export { metricValueOf, semanticsOfMetricValue, type EvaluatedCase } from "./evaluated-case.js";
export { checkHardGates, HARD_GATES, type HardGateName, type HardGateResult } from "./hard-gates.js";
export { summarizeLatency, type LatencySummary } from "./latency-summary.js";
export { meanOfMetric, type MetricMean } from "./metric-mean.js";
export { noAnswerAccuracy, type NoAnswerAccuracy } from "./no-answer-accuracy.js";
export { describeUnpairedCases, pairCases, pairedCaseKey, type PairedCases } from "./paired-cases.js";
export { nearestRankPercentile, summarizeDistribution, type DistributionSummary } from "./percentile.js";
export { qualityScore, type QualityScore, type QualityScoreOptions } from "./quality-score.js";
export { isError, isTimeout, summarizeReliability, type ReliabilitySummary } from "./reliability-summary.js";
export { summarizeRun, type RunSummary } from "./run-summary.js";
export { isSuccessfulTask, summarizeTaskSuccess, type TaskSuccess } from "./task-success.js";
export { summarizeUsage, type TotalAndMean, type UsageSummary } from "./usage-summary.js";
export { withoutHeuristicJudgements } from "./without-heuristic-judgements.js";
