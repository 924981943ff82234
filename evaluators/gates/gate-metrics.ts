/**
 * Dataset-level values of the metrics a gate file names (seed 004 §十三).
 *
 * A name is resolved in this order:
 * 1. a derived dataset metric defined below (percentiles, rates, costs,
 *    no-answer accuracy, correct and false refusal rates, critical-case
 *    pass rate, score drop; the hallucination and permission-leak shares as
 *    aggregate/dataset-shares.ts defines them for every surface);
 * 2. otherwise the mean, over the cases where it applies, of the per-case
 *    metric of that name (recall_at_5, mrr, faithfulness, citation_accuracy…).
 * A metric no case carries is not applicable, with the reason — a gate never
 * passes on a value that was not measured.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { metricValueOf, type EvaluatedCase } from "../aggregate/evaluated-case.js";
import { meanOfMetric } from "../aggregate/metric-mean.js";
import { noAnswerAccuracy } from "../aggregate/no-answer-accuracy.js";
import { correctRefusalRate, falseRefusalRate } from "../aggregate/refusal-rates.js";
import { pairCases } from "../aggregate/paired-cases.js";
import { nearestRankPercentile } from "../aggregate/percentile.js";
import { compositeErrors, compositeForDecision, type CompositeErrors } from "../aggregate/composite-decision.js";
import { qualityScore } from "../aggregate/quality-score.js";
import { summarizeReliability } from "../aggregate/reliability-summary.js";
import { summarizeTaskSuccess } from "../aggregate/task-success.js";
import { summarizeUsage } from "../aggregate/usage-summary.js";
import { DATASET_SHARES, datasetShare } from "../aggregate/dataset-shares.js";

export interface GateContext {
  cases: readonly EvaluatedCase[];
  /** The run to compare with, for regression gates (overall_score_drop, flipped cases). */
  baseline: readonly EvaluatedCase[] | null;
  /** The gate file's `score_weights` for the overall score; null or absent: the seed's. */
  scoreWeights?: Readonly<Record<string, number>> | null;
}

function latencyPercentile(cases: readonly EvaluatedCase[], percentile: number): MetricValue {
  const values = cases.map((evaluated) => evaluated.caseResult.rag_observation.latency_ms).filter((value): value is number => value !== null && Number.isFinite(value)).sort((left, right) => left - right);
  return values.length === 0 ? notApplicable("no request recorded its latency") : nearestRankPercentile(values, percentile);
}

function shareWithStatus(cases: readonly EvaluatedCase[], status: EvaluatedCase["caseResult"]["quality_status"]): MetricValue {
  if (cases.length === 0) return notApplicable("the run has no case");
  return applicable(cases.filter((evaluated) => evaluated.caseResult.quality_status === status).length / cases.length);
}

/** The weighted score as a decision reads it: not measured when it stands on part of its weights (aggregate/composite-decision.ts). */
function compositeOf(cases: readonly EvaluatedCase[], weights: Readonly<Record<string, number>> | null | undefined): MetricValue {
  return compositeForDecision(qualityScore(cases, { weights: weights ?? null }).composite, cases);
}

/** The weighted score's terms whose evaluation errored on some case (aggregate/composite-decision.ts), or null. */
function compositeErrorsOf(cases: readonly EvaluatedCase[], weights: Readonly<Record<string, number>> | null | undefined): CompositeErrors | null {
  return compositeErrors(qualityScore(cases, { weights: weights ?? null }).composite, cases);
}

/** Both runs' errors, over the cases both ran: either run's score on a partial mean makes the drop one. */
function scoreDropErrors({ cases, baseline, scoreWeights }: GateContext): CompositeErrors | null {
  if (baseline === null) return null;
  const paired = pairCases(cases, baseline);
  if (paired.candidate.length === 0) return null;
  const parts = [
    { errors: compositeErrorsOf(paired.candidate, scoreWeights), prefix: "" },
    { errors: compositeErrorsOf(paired.baseline, scoreWeights), prefix: "the baseline's composite score: " },
  ].filter((part): part is { errors: CompositeErrors; prefix: string } => part.errors !== null);
  if (parts.length === 0) return null;
  const byType: Record<string, number> = {};
  for (const { errors } of parts) for (const [type, count] of Object.entries(errors.byType)) byType[type] = (byType[type] ?? 0) + count;
  return { byType, reason: parts.map(({ errors, prefix }) => `${prefix}${errors.reason}`).join("; and ") };
}

/**
 * Derived dataset metrics, by gate name. `note`: what the value left out and why, when it left something out (the
 * rule's line says it). `errored`: the per-case evaluations it is read from errored on some case, so its value cannot
 * stand for the run and a rule on it is ERROR, as a rule on such a per-case metric is (release-gate.ts).
 */
export const derivedGateMetrics: Record<
  string,
  { description: string; compute: (context: GateContext) => MetricValue; note?: (context: GateContext) => string | null; errored?: (context: GateContext) => CompositeErrors | null }
> = {
  p50_latency_ms: { description: "median request latency (nearest rank)", compute: ({ cases }) => latencyPercentile(cases, 50) },
  p95_latency_ms: { description: "95th percentile request latency (nearest rank)", compute: ({ cases }) => latencyPercentile(cases, 95) },
  p99_latency_ms: { description: "99th percentile request latency (nearest rank)", compute: ({ cases }) => latencyPercentile(cases, 99) },
  error_rate: { description: "requests that failed / requests", compute: ({ cases }) => summarizeReliability(cases.map((evaluated) => evaluated.caseResult)).errorRate },
  timeout_rate: { description: "requests that timed out / requests", compute: ({ cases }) => summarizeReliability(cases.map((evaluated) => evaluated.caseResult)).timeoutRate },
  average_cost: { description: "mean generation cost per request", compute: ({ cases }) => summarizeUsage(cases.map((evaluated) => evaluated.caseResult)).cost.mean },
  cost_per_success: { description: "total cost / successful tasks (seed §七)", compute: ({ cases }) => summarizeUsage(cases.map((evaluated) => evaluated.caseResult)).costPerSuccessfulTask },
  task_success_rate: { description: "cases judged a pass / cases with a verdict (unjudged cases are left out, never counted as passes)", compute: ({ cases }) => summarizeTaskSuccess(cases.map((evaluated) => evaluated.caseResult)).rate },
  review_required_rate: {
    description: "cases that need review (an evaluator errored, or a heuristic signal is against them and no LLM judge has judged them) / cases",
    compute: ({ cases }) => shareWithStatus(cases, "review_required"),
  },
  unjudged_rate: {
    description: "cases measured but judged by nothing able to judge them (not passes) / cases",
    compute: ({ cases }) => shareWithStatus(cases, "unjudged"),
  },
  no_answer_accuracy: {
    description: "unanswerable cases on which the system abstained, read exactly (the trace's flag, or an answer that refuses in whole) / unanswerable cases",
    compute: ({ cases }) => noAnswerAccuracy(cases).value,
    note: ({ cases }) => noAnswerAccuracy(cases).note,
  },
  // The boards' definitions, counting only refusals read exactly in the rate's favour (aggregate/refusal-rates.ts).
  correct_refusal_rate: {
    description: "refusals of unanswerable cases read exactly (the trace's flag, or an answer that refuses in whole) / refusals, an answerable case read only by a heuristic counted as a false refusal: a lower bound",
    compute: ({ cases }) => correctRefusalRate(cases).value,
    note: ({ cases }) => correctRefusalRate(cases).note,
  },
  false_refusal_rate: {
    description: "answerable cases that refused / answerable cases, an answerable case read only by a heuristic counted as a false refusal: an upper bound",
    compute: ({ cases }) => falseRefusalRate(cases).value,
    note: ({ cases }) => falseRefusalRate(cases).note,
  },
  // One definition with the boards and alerts (aggregate/dataset-shares.ts).
  hallucination_rate: { description: DATASET_SHARES.hallucination_rate.description, compute: ({ cases }) => datasetShare(DATASET_SHARES.hallucination_rate, cases) },
  permission_leak_rate: { description: DATASET_SHARES.permission_leak_rate.description, compute: ({ cases }) => datasetShare(DATASET_SHARES.permission_leak_rate, cases) },
  composite_score: {
    description: "the seed's weighted score 0.25R + 0.25F + 0.25C + 0.15Comp + 0.10Cit, or the gate file's score_weights (shown beside its hard gates); not measured when a term has no value, ERROR when a term's evaluation errored on some case",
    compute: ({ cases, scoreWeights }) => compositeOf(cases, scoreWeights),
    errored: ({ cases, scoreWeights }) => compositeErrorsOf(cases, scoreWeights),
  },
  critical_case_pass_rate: {
    description: "P0 cases that passed / P0 cases (one-vote veto cases, seed §十三)",
    compute: ({ cases }) => {
      const critical = cases.filter((evaluated) => evaluated.evalCase?.risk_level === "P0");
      if (critical.length === 0) return notApplicable("the run has no P0 case");
      return applicable(critical.filter((evaluated) => evaluated.caseResult.quality_status === "passed").length / critical.length);
    },
  },
  overall_score_drop: {
    description: "baseline composite score − this run's composite score, over the cases both runs ran",
    compute: ({ cases, baseline, scoreWeights }) => {
      if (baseline === null) return notApplicable("no baseline run was given (--baseline)");
      // Over the cases both ran (evaluators/aggregate/paired-cases.ts): runs over other dataset versions would
      // otherwise count cases added or removed as a change of the system.
      const paired = pairCases(cases, baseline);
      if (paired.candidate.length === 0) return notApplicable("the baseline ran none of this run's cases (the same case_id and case_version): there is nothing to compare — give a baseline over the same dataset");
      // Both runs with the same weights: the drop measures the runs, not a change of weights.
      const current = compositeOf(paired.candidate, scoreWeights);
      const previous = compositeOf(paired.baseline, scoreWeights);
      if (!current.applicable) return current;
      if (!previous.applicable) return notApplicable(`the baseline's composite score is not measured: ${previous.reason}`);
      return applicable(previous.value - current.value);
    },
    errored: scoreDropErrors,
  },
};

/**
 * A gate name's per-case metric and how the run's value is formed from it: `pNN_<metric>` (nearest-rank
 * percentile), `average_<metric>` / `mean_<metric>` (mean), or the metric itself (mean) — the forms the gate
 * file's reader accepts (dashboards/source/gate-metrics.ts), which before read "no case has a value for
 * average_latency_ms" and so were never checked.
 */
export function perCaseFormOf(name: string): { metric: string; percentile: number | null } {
  const percentile = /^p(\d{1,2})_([a-z][a-z0-9_]*)$/.exec(name);
  if (percentile) return { metric: percentile[2]!, percentile: Number(percentile[1]) };
  const mean = /^(?:average|mean)_([a-z][a-z0-9_]*)$/.exec(name);
  return { metric: mean ? mean[1]! : name, percentile: null };
}

/** The per-case metric a gate metric reads: itself, its pNN_/average_ form's metric, or the metric a dataset share counts (hallucination_rate → faithfulness). */
export function measuredMetricOf(name: string): string {
  return (DATASET_SHARES as Record<string, { metric: string } | undefined>)[name]?.metric ?? perCaseFormOf(name).metric;
}

function percentileOfMetric(cases: readonly EvaluatedCase[], metric: string, percentile: number): MetricValue {
  const values = cases.map((evaluated) => metricValueOf(evaluated, metric)).filter((value): value is number => value !== null).sort((left, right) => left - right);
  return values.length === 0 ? notApplicable(`no case has a value for ${metric}`) : nearestRankPercentile(values, percentile);
}

/** The derived metric's note on what its value left out (derivedGateMetrics), or null. */
export function gateMetricNote(name: string, context: GateContext): string | null {
  return derivedGateMetrics[name]?.note?.(context) ?? null;
}

/** The derived metric's errored evaluations (derivedGateMetrics `errored`), or null. */
export function gateMetricErrors(name: string, context: GateContext): CompositeErrors | null {
  return derivedGateMetrics[name]?.errored?.(context) ?? null;
}

export function gateMetricValue(name: string, context: GateContext): MetricValue {
  const derived = derivedGateMetrics[name];
  if (derived) return derived.compute(context);
  const form = perCaseFormOf(name);
  return form.percentile === null ? meanOfMetric(context.cases, form.metric).value : percentileOfMetric(context.cases, form.metric, form.percentile);
}
