/**
 * The Evaluation Result: what one evaluator concluded about one Case Result.
 *
 * Fields are the seed's (000_166131c131cdea70.txt `evaluation_result`), kept
 * exactly. `metric_values` maps a metric name to its value; null means "not
 * applicable" (the inputs the metric needs are missing), never zero.
 *
 * `outcome` (the README's "Outcomes" table):
 * - passed / failed: a threshold decided it — the case rubric's, else the
 *   metric's default, else (judges) the rubric's pass rule;
 * - measured: the evaluator produced values but no threshold applies to any
 *   of them: a measurement, never counted as a pass;
 * - not_applicable: none of its metrics applies (null values);
 * - error: the evaluator failed; never a pass.
 */
import { z } from "zod";

export const outcome = z.enum(["passed", "failed", "measured", "not_applicable", "error"]);
export const evaluationErrorType = z.enum(["none", "evaluator_error", "invalid_evidence"]);

/**
 * How to read `confidence.value`: a rule is exact; a heuristic approximates a
 * judgement; a judge reports its own signal, useful only to route reviews.
 */
export const confidenceSemantics = z.enum(["deterministic_rule", "heuristic", "judge_self_report", "calibrated"]);

export const evaluationResult = z.object({
  evaluation_result_id: z.string().min(1),
  case_result_id: z.string().min(1),
  evaluator_id: z.string().min(1),
  evaluator_version: z.string().min(1),
  metric_values: z.record(z.string(), z.number().nullable()),
  outcome,
  reason: z.string(),
  evidence_refs: z.array(z.string()).default([]),
  confidence: z.object({
    value: z.union([z.number(), z.enum(["high", "medium", "low"])]),
    semantics: confidenceSemantics,
  }),
  review_required: z.boolean(),
  error_type: evaluationErrorType,
  evaluated_at: z.string(),
});

export type EvaluationResult = z.infer<typeof evaluationResult>;
export type Outcome = z.infer<typeof outcome>;
