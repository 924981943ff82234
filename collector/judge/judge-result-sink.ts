/**
 * Where judge results go: Evaluation Results and their metric_values rows,
 * beside the rule results of the same Case Result (issue 6: "results written
 * ... as Evaluation Results + metric_values rows"). The Case Result row itself
 * was written by the rule stage and is left alone.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import type { Result } from "../../contracts/result.js";
import type { SinkFailure } from "../sink/result-sink.js";

export interface JudgedCase {
  caseResult: CaseResult;
  evaluationResults: EvaluationResult[];
}

export interface JudgeResultSink {
  write(batch: readonly JudgedCase[]): Promise<Result<void, SinkFailure>>;
}
