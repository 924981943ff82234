/**
 * Runs every registered evaluator over one Case Result and decides outcomes.
 *
 * Per metric, the pass rule is, in order: the case rubric's entry for that
 * metric when it is a threshold (`rubric: { recall_at_k: ">= 0.5" }`), else the
 * metric's default threshold, else none (informational). An evaluator fails
 * when any of its applicable metrics fails its rule; it is not applicable when
 * none of its metrics applies; an evaluator that throws is an `error` outcome
 * with error_type evaluator_error, and one that reports an input error (a
 * ranking listing a chunk twice) an `error` with error_type invalid_evidence —
 * never a pass, always for review. The case's quality_status
 * and its root cause are decided by case-verdict.ts, the same way again when
 * judge results arrive later.
 */
import type { CaseResult } from "../contracts/case-result.js";
import type { EvalCase } from "../contracts/eval-case.js";
import type { EvaluationResult } from "../contracts/evaluation-result.js";
import { evaluationResultIdFor } from "../contracts/ids.js";
import type { Evaluator, EvaluatorOutput } from "./evaluator.js";
import type { EvaluatorRegistry } from "./evaluator-registry.js";
import { decideCaseVerdict } from "./case-verdict.js";
import { formatFixed } from "./format-fixed.js";
import { parseThreshold, satisfies, type Threshold } from "./threshold.js";

export interface CaseEvaluation {
  caseResult: CaseResult;
  evaluationResults: EvaluationResult[];
}

function rubricThresholds(evalCase: EvalCase | null): Map<string, Threshold> {
  const thresholds = new Map<string, Threshold>();
  const rubric = evalCase?.rubric;
  if (!rubric || typeof rubric === "string" || Array.isArray(rubric)) return thresholds;
  for (const [metric, rule] of Object.entries(rubric)) {
    const parsed = parseThreshold(rule);
    if (parsed.ok) thresholds.set(metric, parsed.value);
  }
  return thresholds;
}

function decide(evaluator: Evaluator, output: EvaluatorOutput, rubric: Map<string, Threshold>): { outcome: EvaluationResult["outcome"]; failures: string[] } {
  const failures: string[] = [];
  let anyApplicable = false;
  for (const metric of evaluator.metrics) {
    const value = output.values[metric.name];
    if (!value?.applicable) continue;
    anyApplicable = true;
    let threshold: Threshold | null = rubric.get(metric.name) ?? null;
    if (threshold === null && metric.defaultThreshold !== null) {
      const parsed = parseThreshold(metric.defaultThreshold);
      if (!parsed.ok) throw new Error(`evaluator ${evaluator.id}: default threshold of ${metric.name}: ${parsed.error}`);
      threshold = parsed.value;
    }
    if (threshold !== null && !satisfies(value.value, threshold)) failures.push(`${metric.name} = ${round(value.value)} (needs ${threshold.source})`);
  }
  if (!anyApplicable) return { outcome: "not_applicable", failures };
  return { outcome: failures.length > 0 ? "failed" : "passed", failures };
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : formatFixed(value, 4).replace(/\.?0+$/, "");
}

export function evaluateCaseResult(registry: EvaluatorRegistry, caseResult: CaseResult, evalCase: EvalCase | null, evaluatedAt: string): CaseEvaluation {
  const rubric = rubricThresholds(evalCase);
  const evaluationResults: EvaluationResult[] = [];
  for (const evaluator of registry.list()) {
    if (evaluator.costClass !== "rule") continue;
    const base = {
      evaluation_result_id: evaluationResultIdFor(caseResult.case_result_id, evaluator.id, evaluator.version),
      case_result_id: caseResult.case_result_id,
      evaluator_id: evaluator.id,
      evaluator_version: evaluator.version,
      evidence_refs: [] as string[],
      evaluated_at: evaluatedAt,
    };
    try {
      const output = evaluator.evaluate({ caseResult, evalCase });
      if (output.inputError !== undefined) {
        evaluationResults.push({
          ...base,
          metric_values: Object.fromEntries(evaluator.metrics.map((metric) => [metric.name, null])),
          outcome: "error",
          reason: `invalid input: ${output.inputError}`,
          confidence: { value: 0, semantics: evaluator.confidence },
          review_required: true,
          error_type: "invalid_evidence",
        });
        continue;
      }
      const { outcome, failures } = decide(evaluator, output, rubric);
      const metricValues: Record<string, number | null> = {};
      for (const metric of evaluator.metrics) {
        const value = output.values[metric.name];
        metricValues[metric.name] = value?.applicable ? value.value : null;
      }
      // Spelled out rather than spread from `base` (same keys, same order): the
      // spread that then overwrote evidence_refs was the costliest step of
      // evaluating a case.
      evaluationResults.push({
        evaluation_result_id: base.evaluation_result_id,
        case_result_id: base.case_result_id,
        evaluator_id: base.evaluator_id,
        evaluator_version: base.evaluator_version,
        evidence_refs: output.evidence.map((id) => `chunk://${id}`),
        evaluated_at: base.evaluated_at,
        metric_values: metricValues,
        outcome,
        reason: failures.length > 0 ? `${failures.join("; ")} — ${output.reason}` : output.reason,
        confidence: { value: evaluator.confidence === "deterministic_rule" ? 1 : 0.5, semantics: evaluator.confidence },
        review_required: false,
        error_type: "none",
      });
    } catch (error) {
      evaluationResults.push({
        ...base,
        metric_values: Object.fromEntries(evaluator.metrics.map((metric) => [metric.name, null])),
        outcome: "error",
        reason: `evaluator failed: ${error instanceof Error ? error.message : String(error)}`,
        confidence: { value: 0, semantics: evaluator.confidence },
        review_required: true,
        error_type: "evaluator_error",
      });
    }
  }
  return decideCaseVerdict(caseResult, evalCase, evaluationResults, evaluatedAt);
}
