/**
 * Where judge results go: Evaluation Results and their metric_values rows,
 * beside the rule results of the same Case Result (issue 6: "results written
 * ... as Evaluation Results + metric_values rows"). The case's verdict
 * (quality_status and root cause) is then decided again over the rule and
 * judge results together (evaluators/case-verdict.ts) and the Case Result row
 * is rewritten with it.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import type { AttributionOptions } from "../../evaluators/root-cause/index.js";
import type { Result } from "../../core/result.js";
import type { SinkFailure } from "./result-sink.js";

export interface JudgedCase {
  caseResult: CaseResult;
  evaluationResults: EvaluationResult[];
  /** The trace's Eval Case (offline runs), for the case's verdict and root cause. */
  evalCase?: EvalCase | null;
  /** What the run knows beyond the case for the root cause decided again (the corpus index of `eval --corpus`), as the rule stage had it. */
  attribution?: AttributionOptions;
}

export interface JudgeResultSink {
  write(batch: readonly JudgedCase[]): Promise<Result<void, SinkFailure>>;
}
