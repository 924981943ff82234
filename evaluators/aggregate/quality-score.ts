/**
 * The dataset's quality verdict: the seed's weighted score together with its
 * hard gates (004 §六.2) — the two always travel together, so no report shows
 * a score whose gates it did not check.
 *
 * Term and gate values are means over the cases where the metric applies
 * (metric-mean.ts), except no-answer accuracy (no-answer-accuracy.ts: an
 * abstention only a heuristic read is not counted, and its gate says so) and the
 * P95 latency (nearest rank over the requests' latency_ms, percentile.ts).
 * Metric names default to the seed's gate names; `metricNames` maps a term to
 * another metric when a pipeline's judge calls it differently.
 */
import type { MetricValue } from "../metric-value.js";
import { COMPOSITE_TERMS, compositeScore, type CompositeScore, type CompositeTermName } from "./composite-score.js";
import type { EvaluatedCase } from "./evaluated-case.js";
import { checkHardGates, type HardGateResult } from "./hard-gates.js";
import { judgedMetricMissingReason } from "./judged-metric-missing.js";
import { erroredEvaluationsOf } from "./errored-evaluations.js";
import { meanOfMetric } from "./metric-mean.js";
import { noAnswerAccuracy } from "./no-answer-accuracy.js";
import { summarizeDistribution } from "./percentile.js";
import { withoutHeuristicJudgements } from "./without-heuristic-judgements.js";
import { isMetricName, METRIC, METRIC_SEMANTICS } from "../metric-catalog.js";
import { notApplicable } from "../metric-value.js";

export interface QualityScoreOptions {
  metricNames?: Partial<Record<CompositeTermName, string>>;
  /**
   * Weights of the terms by the seed's metric name (the gate file's
   * `score_weights`, contracts/gate-file.ts); absent: the seed's. A term of
   * weight 0 is left out of the score.
   */
  weights?: Readonly<Record<string, number>> | null;
}

export interface QualityScore {
  composite: CompositeScore;
  gates: HardGateResult[];
  /** Every gate passed; false when one failed or could not be checked. */
  gatesPassed: boolean;
}

/**
 * A term whose metric is a heuristic (metric-catalog.ts: the seed's Comp is completeness, which answer.completeness
 * measures by text overlap of key points) takes no part in the score, as the heuristic judge's values do not: the
 * score is read beside pass/fail thresholds and into gates (composite_score, overall_score_drop). The term reads
 * the judged metric asking the same question instead (completeness_judged: the seed's LLM judge scores
 * completeness, 004 §九.3), an LLM judge's values only; without one it is a missing term, with the reason.
 */
function heuristicTermValue(cases: readonly EvaluatedCase[], metric: string): MetricValue | null {
  if (!isMetricName(metric)) return null;
  const entry = METRIC_SEMANTICS[metric];
  if (entry.semantics !== "heuristic" || entry.ruleInSeed !== undefined) return null;
  const judged = entry.judgedAs === undefined ? null : meanOfMetric(cases, entry.judgedAs).value;
  if (judged !== null && judged.applicable) return judged;
  return notApplicable(`${metric} is measured by a heuristic (${entry.evaluatorId}), which takes no part in a decision${entry.judgedAs === undefined ? "" : `, and no LLM judge scored ${entry.judgedAs}`}${entry.decideWith === undefined ? "" : ` — ${entry.decideWith}`}`);
}

export function qualityScore(evaluatedCases: readonly EvaluatedCase[], options: QualityScoreOptions = {}): QualityScore {
  // A score beside pass/fail thresholds is a decision: the heuristic judge's values take no part in it.
  const cases = withoutHeuristicJudgements(evaluatedCases);
  const definitions = COMPOSITE_TERMS.map((definition) => ({ ...definition, weight: options.weights?.[definition.metric] ?? definition.weight, metric: options.metricNames?.[definition.term] ?? definition.metric })).filter(
    (definition) => definition.weight > 0,
  );
  const termValues: Partial<Record<CompositeTermName, MetricValue>> = {};
  for (const definition of definitions) termValues[definition.term] = heuristicTermValue(cases, definition.metric) ?? meanOfMetric(cases, definition.metric).value;
  const composite = compositeScore(termValues, definitions);
  const metricOf = (term: CompositeTermName) => options.metricNames?.[term] ?? COMPOSITE_TERMS.find((definition) => definition.term === term)!.metric;
  // Abstentions only a heuristic read are not counted (no-answer-accuracy.ts); the gate's note says how many.
  const noAnswer = noAnswerAccuracy(cases);
  // A judged metric without a value says whether only the heuristic judge scored it, and what to configure, as the gate's rules say.
  const judgedValue = (metric: string): MetricValue => {
    const value = meanOfMetric(cases, metric).value;
    return value.applicable ? value : notApplicable(judgedMetricMissingReason(value.reason, meanOfMetric(evaluatedCases, metric).value.applicable, metric, evaluatedCases));
  };
  const gates = checkHardGates({
    faithfulness: judgedValue(metricOf("F")),
    answer_correctness: judgedValue(metricOf("C")),
    no_answer_accuracy: noAnswer.value,
    recall_at_5: meanOfMetric(cases, METRIC.recall_at_5).value,
    p95_latency_ms: summarizeDistribution(cases.flatMap((evaluated) => (evaluated.caseResult.rag_observation.latency_ms === null ? [] : [evaluated.caseResult.rag_observation.latency_ms]))).p95,
  }, {
    // The gate's rule (errored-evaluations.ts): a metric that errored on some case is not read from the rest.
    faithfulness: erroredEvaluationsOf(cases, metricOf("F")),
    answer_correctness: erroredEvaluationsOf(cases, metricOf("C")),
    recall_at_5: erroredEvaluationsOf(cases, METRIC.recall_at_5),
  }, noAnswer.note === null ? {} : { no_answer_accuracy: noAnswer.note });
  return { composite, gates, gatesPassed: gates.every((gate) => gate.status === "pass") };
}
