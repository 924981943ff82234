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
import { isVetoCase } from "./veto-cases.js";
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
import { summarizeUsage, unpricedRequests } from "../aggregate/usage-summary.js";
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

/**
 * What a gate reads of a metric over a run, in one computation: its value; `note`, what the value left out and why,
 * when it left something out (the rule's line says it); `errors`, the per-case evaluations it is read from errored on
 * some case, so the value cannot stand for the run and a rule on it is ERROR, as a rule on such a per-case metric is
 * (release-gate.ts).
 */
export interface GateMeasurement {
  value: MetricValue;
  note: string | null;
  errors: CompositeErrors | null;
  /**
   * A bound (a value with heuristic readings placed against quality, `note` saying so): the value were each of them
   * read in its favour instead; null when that reading has no case to count. Absent for a value that is no bound.
   * The gate fails on the bound only when this fails too: a rule the bound misses only for its heuristic readings is
   * not measured (release-gate.ts).
   */
  bestCase?: number | null;
  /**
   * The value stands on part of the run, and this says which part: it may fail the run, never pass it (a passing
   * value is not measured, release-gate.ts). Absent when it stands on the whole run.
   */
  partOfRun?: string;
}

/**
 * The mean cost over the requests that recorded one; a request that called a model and recorded no cost is not in
 * it, so with such requests the mean stands on part of the run (1 of 19 requests once passed `<= 0.05`).
 */
function averageCost(cases: readonly EvaluatedCase[]): GateMeasurement {
  const caseResults = cases.map((evaluated) => evaluated.caseResult);
  const { cost } = summarizeUsage(caseResults);
  const unpriced = unpricedRequests(caseResults);
  if (unpriced === 0 || !cost.mean.applicable) return plain(cost.mean);
  return { ...plain(cost.mean), partOfRun: `the mean of ${cost.recorded} of ${caseResults.length} requests: ${unpriced} called a model and recorded no cost, and what they cost is not known — record each generation's cost (traceGenerate's cost)` };
}

/** A measurement that leaves nothing out and is read from no evaluation that could error. */
const plain = (value: MetricValue): GateMeasurement => ({ value, note: null, errors: null });

/** The weighted score as a decision reads it (not measured when it stands on part of its weights) and its terms' errors (aggregate/composite-decision.ts), from one score. */
function compositeOf(cases: readonly EvaluatedCase[], weights: Readonly<Record<string, number>> | null | undefined): { value: MetricValue; errors: CompositeErrors | null } {
  const { composite } = qualityScore(cases, { weights: weights ?? null });
  return { value: compositeForDecision(composite, cases), errors: compositeErrors(composite, cases) };
}

/**
 * baseline composite score − this run's, over the cases both runs ran, with both runs' errors: either run's score on
 * a partial mean makes the drop one.
 */
function scoreDrop({ cases, baseline, scoreWeights }: GateContext): GateMeasurement {
  if (baseline === null) return plain(notApplicable("no baseline run was given (--baseline)"));
  // Over the cases both ran (evaluators/aggregate/paired-cases.ts): runs over other dataset versions would
  // otherwise count cases added or removed as a change of the system.
  const paired = pairCases(cases, baseline);
  if (paired.candidate.length === 0) return plain(notApplicable("the baseline ran none of this run's cases (the same case_id and case_version): there is nothing to compare — give a baseline over the same dataset"));
  // Both runs with the same weights: the drop measures the runs, not a change of weights.
  const current = compositeOf(paired.candidate, scoreWeights);
  const previous = compositeOf(paired.baseline, scoreWeights);
  const parts = [
    { errors: current.errors, prefix: "" },
    { errors: previous.errors, prefix: "the baseline's composite score: " },
  ].filter((part): part is { errors: CompositeErrors; prefix: string } => part.errors !== null);
  const byType: Record<string, number> = {};
  for (const { errors } of parts) for (const [type, count] of Object.entries(errors.byType)) byType[type] = (byType[type] ?? 0) + count;
  const errors = parts.length === 0 ? null : { byType, reason: parts.map(({ errors, prefix }) => `${prefix}${errors.reason}`).join("; and ") };
  const value = !current.value.applicable
    ? current.value
    : !previous.value.applicable
      ? notApplicable(`the baseline's composite score is not measured: ${previous.value.reason}`)
      : applicable(previous.value.value - current.value.value);
  return { value, note: null, errors };
}

/** Derived dataset metrics, by gate name: what the gate prints beside a rule on it, and how it is measured. */
export const derivedGateMetrics: Record<string, { description: string; measure: (context: GateContext) => GateMeasurement }> = {
  p50_latency_ms: { description: "median request latency (nearest rank)", measure: ({ cases }) => plain(latencyPercentile(cases, 50)) },
  p95_latency_ms: { description: "95th percentile request latency (nearest rank)", measure: ({ cases }) => plain(latencyPercentile(cases, 95)) },
  p99_latency_ms: { description: "99th percentile request latency (nearest rank)", measure: ({ cases }) => plain(latencyPercentile(cases, 99)) },
  error_rate: { description: "requests that failed / requests", measure: ({ cases }) => plain(summarizeReliability(cases.map((evaluated) => evaluated.caseResult)).errorRate) },
  timeout_rate: { description: "requests that timed out / requests", measure: ({ cases }) => plain(summarizeReliability(cases.map((evaluated) => evaluated.caseResult)).timeoutRate) },
  average_cost: { description: "mean generation cost per request, over the requests that recorded one", measure: ({ cases }) => averageCost(cases) },
  cost_per_success: { description: "total cost / successful tasks (seed §七)", measure: ({ cases }) => plain(summarizeUsage(cases.map((evaluated) => evaluated.caseResult)).costPerSuccessfulTask) },
  task_success_rate: {
    description: "cases judged a pass / cases with a verdict (unjudged cases are left out, never counted as passes)",
    measure: ({ cases }) => plain(summarizeTaskSuccess(cases.map((evaluated) => evaluated.caseResult)).rate),
  },
  review_required_rate: {
    description: "cases that need review (an evaluator errored, or a heuristic signal is against them and no LLM judge has judged them) / cases",
    measure: ({ cases }) => plain(shareWithStatus(cases, "review_required")),
  },
  unjudged_rate: {
    description: "cases measured but judged by nothing able to judge them (not passes) / cases",
    measure: ({ cases }) => plain(shareWithStatus(cases, "unjudged")),
  },
  no_answer_accuracy: {
    description: "unanswerable cases on which the system abstained, read exactly (the trace's flag, or an answer that refuses in whole) / unanswerable cases",
    measure: ({ cases }) => ({ ...noAnswerAccuracy(cases), errors: null }),
  },
  // The boards' definitions, counting only refusals read exactly in the rate's favour (aggregate/refusal-rates.ts).
  correct_refusal_rate: {
    description: "refusals of unanswerable cases read exactly (the trace's flag, or an answer that refuses in whole) / refusals, an answerable case read only by a heuristic counted as a false refusal: a lower bound",
    measure: ({ cases }) => ({ ...correctRefusalRate(cases), errors: null }),
  },
  false_refusal_rate: {
    description: "answerable cases that refused / answerable cases, an answerable case read only by a heuristic counted as a false refusal: an upper bound",
    measure: ({ cases }) => ({ ...falseRefusalRate(cases), errors: null }),
  },
  // One definition with the boards and alerts (aggregate/dataset-shares.ts).
  hallucination_rate: { description: DATASET_SHARES.hallucination_rate.description, measure: ({ cases }) => plain(datasetShare(DATASET_SHARES.hallucination_rate, cases)) },
  permission_leak_rate: { description: DATASET_SHARES.permission_leak_rate.description, measure: ({ cases }) => plain(datasetShare(DATASET_SHARES.permission_leak_rate, cases)) },
  composite_score: {
    description: "the seed's weighted score 0.25R + 0.25F + 0.25C + 0.15Comp + 0.10Cit, or the gate file's score_weights (shown beside its hard gates); not measured when a term has no value, ERROR when a term's evaluation errored on some case",
    measure: ({ cases, scoreWeights }) => ({ ...compositeOf(cases, scoreWeights), note: null }),
  },
  critical_case_pass_rate: {
    description: "veto cases that passed / veto cases (P0 or metadata.veto: true; one-vote veto cases, seed §十三)",
    measure: ({ cases }) => {
      // The cases the veto counts (veto-cases.ts): with P0 alone, a metadata.veto case that failed was named vetoed
      // under a rate that left it out (0.5 for 1 of 3 veto cases passed).
      const critical = cases.filter(isVetoCase);
      if (critical.length === 0) return plain(notApplicable("the run has no veto case (risk_level P0, or metadata.veto: true)"));
      return plain(applicable(critical.filter((evaluated) => evaluated.caseResult.quality_status === "passed").length / critical.length));
    },
  },
  overall_score_drop: { description: "baseline composite score − this run's composite score, over the cases both runs ran", measure: scoreDrop },
};

/**
 * A gate name's per-case metric and how the run's value is formed from it: `pNN_<metric>` (nearest-rank
 * percentile), `average_<metric>` / `mean_<metric>` (mean), or the metric itself (mean) — the forms the gate
 * file's reader accepts (dashboards/source/gate-metrics.ts), which before read "no case has a value for
 * average_latency_ms" and so were never checked.
 */
export function perCaseFormOf(name: string): { metric: string; percentile: number | null } {
  // p1 to p100: a percentile is defined on (0, 100] (aggregate/percentile.ts); p0 is no percentile, p100 the largest value.
  const percentile = /^p(100|[1-9][0-9]?)_([a-z][a-z0-9_]*)$/.exec(name);
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

/** A gate name's measurement over a run: a derived metric's (derivedGateMetrics), else its per-case metric's mean or percentile. */
export function measureGateMetric(name: string, context: GateContext): GateMeasurement {
  const derived = derivedGateMetrics[name];
  if (derived) return derived.measure(context);
  const form = perCaseFormOf(name);
  return plain(form.percentile === null ? meanOfMetric(context.cases, form.metric).value : percentileOfMetric(context.cases, form.metric, form.percentile));
}

/** A gate name's value over a run (measureGateMetric's value). */
export function gateMetricValue(name: string, context: GateContext): MetricValue {
  return measureGateMetric(name, context).value;
}
