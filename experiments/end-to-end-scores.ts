/**
 * The end-to-end scores of seed 004 §六 and §七 for a run: task success rate
 * (cases judged a pass / cases with a verdict; unjudged cases are left out,
 * never counted as passes), the weighted overall score with the gate file's
 * `score_weights` (else the seed's 0.25/0.25/0.25/0.15/0.10) always beside the
 * seed's hard thresholds, and cost per successful task (total cost / tasks
 * that succeeded). Each is computed by the evaluators' aggregates, the same
 * ones the gate rules task_success_rate, composite_score and cost_per_success use.
 * The overall score standing on part of its weights is shown, and is no
 * measurement a decision reads (evaluators/aggregate/composite-decision.ts);
 * one averaging a term whose evaluation errored on some case is shown too, and
 * is an error for a decision, as the gate rule composite_score reads it.
 */
import type { ScoreWeights } from "../contracts/gate-file.js";
import { compositeErrors, compositeForDecision, type CompositeErrors } from "../evaluators/aggregate/composite-decision.js";
import { qualityScore, summarizeTaskSuccess, summarizeUsage, type EvaluatedCase, type QualityScore, type TaskSuccess } from "../evaluators/aggregate/index.js";
import type { MetricValue } from "../evaluators/metric-value.js";

export interface EndToEndScores {
  taskSuccess: TaskSuccess;
  /** The weighted overall score and the hard thresholds (seed §六.2). */
  quality: QualityScore;
  /** The overall score as the gate rule composite_score reads it: not applicable, with the reason, when it is renormalised. */
  overallScoreForDecision: MetricValue;
  /** A term's evaluation errored on some case: the decision's value is an error, not merely unmeasured; null otherwise. */
  overallScoreErrors: CompositeErrors | null;
  weightsFrom: "gate file score_weights" | "seed default";
  totalCost: MetricValue;
  costPerSuccessfulTask: MetricValue;
}

export function endToEndScores(cases: readonly EvaluatedCase[], weights: ScoreWeights | null): EndToEndScores {
  const caseResults = cases.map((item) => item.caseResult);
  const usage = summarizeUsage(caseResults);
  const quality = qualityScore(cases, { weights });
  return {
    taskSuccess: summarizeTaskSuccess(caseResults),
    quality,
    overallScoreForDecision: compositeForDecision(quality.composite, cases),
    overallScoreErrors: compositeErrors(quality.composite, cases),
    weightsFrom: weights === null ? "seed default" : "gate file score_weights",
    totalCost: usage.cost.total,
    costPerSuccessfulTask: usage.costPerSuccessfulTask,
  };
}
