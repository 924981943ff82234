/**
 * `--output results.json`: the run in the seeds' field names — the Case
 * Results (`case_results`) and Evaluation Results (`evaluation_results`) as
 * stored, how each metric is to be read (`metric_semantics`, `heuristic_metrics`),
 * the run lineage, the gate, veto cases, the comparison and the consistency. Blind-split cases keep their verdicts and scores; evaluator
 * reasons and the chunks their evidence names are withheld (blind-redaction.ts).
 */
import type { ReleaseGateResult } from "../../evaluators/gates/release-gate.js";
import type { ExperimentResult } from "../run-experiment.js";
import { shownEvaluation } from "./blind-redaction.js";
import { datasetMix, type MixRow } from "../../collector/wiring/dataset/dataset-mix.js";
import type { MetricValue } from "../../evaluators/metric-value.js";
import { metricSemanticsDocument } from "./metric-semantics-json.js";

export function resultsDocument(result: ExperimentResult): unknown {
  return {
    run_id: result.runId,
    run_ids: result.runIds,
    decision: result.decision,
    problems: result.problems,
    notes: result.notes,
    run_lineage: result.lineage,
    dataset: { file: result.dataset.file, format: result.dataset.format, cases: result.cases.length, mix: mixDocument(result) },
    case_results: result.evaluated.map((item) => item.caseResult),
    evaluation_results: result.evaluated.flatMap((item) => item.evaluationResults.map((evaluation) => shownEvaluation(item, evaluation))),
    // Which metrics' values are a heuristic's (metric-semantics-json.ts); additive beside the results themselves.
    ...metricSemanticsDocument(result.evaluated.flatMap((item) => item.evaluationResults)),
    judge: result.judge && { calls: result.judge.calls, grader_errors: result.judge.errors, grader_errors_by_type: result.judge.errorsByType, heuristic_measurements: result.judge.heuristic },
    gate: result.gate && gateDocument(result.gate),
    // Repeat k > 1's gate (--repeat): the decision is the worst over repeat 1's gate and these.
    repeat_gates: result.repeatGates.map((repeat) => ({ repeat: repeat.repeat, run_id: repeat.runId, decision: repeat.decision, vetoed_cases: repeat.vetoed, ...gateDocument(repeat.gate) })),
    end_to_end: endToEndDocument(result),
    vetoed_cases: result.vetoed,
    comparison: result.comparison && {
      baseline_run_id: result.comparison.baselineRunId,
      paired_cases: result.comparison.pairedCases,
      // The cases only one of the two runs ran (other dataset versions, a split): not compared.
      candidate_only_cases: result.comparison.candidateOnly,
      baseline_only_cases: result.comparison.baselineOnly,
      regressed_cases: result.comparison.regressed,
      fixed_cases: result.comparison.fixed,
      mcnemar: { baseline_only: result.comparison.mcnemar.baselineOnly, candidate_only: result.comparison.mcnemar.candidateOnly, p_value: result.comparison.mcnemar.pValue, exact: true },
      metrics: result.comparison.metrics.map((metric) => ({
        metric: metric.metric,
        candidate_mean: metric.candidateMean,
        baseline_mean: metric.baselineMean,
        mean_difference: metric.interval.meanDifference,
        // Null, with the reason in ci_withheld, over too few cases (experiments/compare/compare-runs.ts).
        ci_low: metric.intervalWithheld === null ? metric.interval.low : null,
        ci_high: metric.intervalWithheld === null ? metric.interval.high : null,
        ci_withheld: metric.intervalWithheld,
        heuristic_pairs: metric.heuristicPairs,
        ci_level: metric.interval.level,
        pairs: metric.interval.pairs,
        resamples: metric.interval.resamples,
        seed: metric.interval.seed,
        method: "paired bootstrap, percentile",
      })),
    },
    consistency: result.consistency && result.consistency.map((item) => ({ case_id: item.caseId, case_version: item.caseVersion, answer_agreement: item.answerAgreement, verdicts: item.verdicts, metric_spread: item.metricSpread, unstable: item.unstable })),
  };
}

const valueOf = (value: MetricValue) => (value.applicable ? value.value : null);
const reasonOf = (value: MetricValue) => (value.applicable ? null : value.reason);

/** Seed §六 / §七 in the seed's names; a value that could not be computed is null with its reason. */
function endToEndDocument(result: ExperimentResult): unknown {
  const { taskSuccess, quality, overallScoreForDecision, overallScoreErrors, weightsFrom, totalCost, costPerSuccessfulTask } = result.endToEnd;
  return {
    task_success_rate: valueOf(taskSuccess.rate),
    task_success: { succeeded: taskSuccess.succeeded, with_verdict: taskSuccess.judged, without_verdict: taskSuccess.notEvaluated, unjudged: taskSuccess.unjudged },
    overall_score: {
      value: valueOf(quality.composite.score),
      reason: reasonOf(quality.composite.score),
      weights: Object.fromEntries(quality.composite.terms.map((term) => [term.metric, term.weight])),
      weights_from: weightsFrom,
      terms: quality.composite.terms.map((term) => ({ term: term.term, metric: term.metric, weight: term.weight, value: valueOf(term.value) })),
      missing_terms: quality.composite.missingTerms,
      renormalised: quality.composite.renormalised,
      note: quality.composite.note,
      // What the gate rule composite_score reads: null, with the reason, when the score stands on part of its weights
      // or a term's evaluation errored on some case (then `errors`, by error type, as the gate rules' `errors`).
      for_decision: { value: valueOf(overallScoreForDecision), reason: reasonOf(overallScoreForDecision), errors: overallScoreErrors?.byType ?? null },
    },
    hard_thresholds: quality.gates.map((gate) => ({ metric: gate.gate, threshold: gate.threshold, value: valueOf(gate.value), status: gate.status, reason: reasonOf(gate.value) ?? gate.note ?? null })),
    hard_thresholds_passed: quality.gatesPassed,
    total_cost: valueOf(totalCost),
    cost_per_successful_task: valueOf(costPerSuccessfulTask),
    cost_per_successful_task_reason: reasonOf(costPerSuccessfulTask),
  };
}

/** The cases run against the seed's recommended mix (004 §二.2): overall, per split, and the splits with no case. */
function mixDocument(result: ExperimentResult): unknown {
  const mix = datasetMix(result.cases);
  const rows = (items: MixRow[]) => items.map((row) => ({ category: row.category, cases: row.cases, share: row.share, recommended: row.recommended }));
  return { categories: rows(mix.rows), splits: mix.bySplit.map((split) => ({ split: split.split, cases: split.cases, categories: rows(split.rows) })), missing_splits: mix.missingSplits };
}

function gateDocument(gate: ReleaseGateResult) {
  return {
    passed: gate.passed,
    undecided: gate.undecided,
    rules: gate.rules.map((rule) => ({ section: rule.rule.section, metric: rule.rule.metric, threshold: rule.rule.threshold, status: rule.status, value: rule.value, reason: rule.reason, ...(rule.errors ? { errors: rule.errors } : {}) })),
  };
}
