/**
 * Runs every registered evaluator over one Case Result and decides outcomes.
 *
 * Per metric, the pass rule is, in order: the case rubric's entry for that
 * metric when it is a threshold (`rubric: { recall_at_k: ">= 0.5" }`), else the
 * metric's default threshold, else none. An evaluator's outcome is
 * - failed when any applicable metric fails its rule;
 * - passed when at least one applicable metric has a rule and all rules hold;
 * - measured when metrics apply but none has a rule: a measurement, never a pass;
 * - not_applicable when none of its metrics applies;
 * - error (error_type evaluator_error) when it throws, and error (error_type
 *   invalid_evidence) when it reports an input error (a ranking listing a
 *   chunk twice) — never a pass, always for review.
 * A heuristic measure's review rule (MetricDescriptor.reviewWhen) decides no
 * outcome: when it holds, the result is marked review_required, which routes
 * the trace to the judge and the case to review. The case's quality_status
 * and its root cause are decided by case-verdict.ts, the same way again when
 * judge results arrive later.
 */
import type { RawSpans } from "../contracts/raw-spans.js";
import type { CaseResult } from "../contracts/case-result.js";
import type { EvalCase } from "../contracts/eval-case.js";
import type { EvaluationResult } from "../contracts/evaluation-result.js";
import { evaluationResultIdFor } from "../contracts/ids.js";
import type { Evaluator, EvaluatorOutput } from "./evaluator.js";
import type { EvaluatorRegistry } from "./evaluator-registry.js";
import { decideCaseVerdict } from "./case-verdict.js";
import type { AttributionOptions } from "./root-cause/index.js";
import { formatFixed } from "./format-fixed.js";
import { parseThreshold, satisfies, type Threshold } from "./threshold.js";

export interface CaseEvaluation {
  caseResult: CaseResult;
  evaluationResults: EvaluationResult[];
  /**
   * True when this evaluation may replace one stored earlier for the same
   * Case Result with other values (late spans re-opened the trace). The store
   * writes no row for a metric without a value, so for such an evaluation it
   * writes a NULL row per metric without a value instead: a value stored by
   * the earlier evaluation cannot stay visible (store/clickhouse/result-rows.ts).
   */
  replacesEarlier?: boolean;
  /** The trace's raw spans, bounded (contracts/raw-spans.ts), for the trace detail page; absent where no spans were seen. */
  rawSpans?: RawSpans;
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

interface Decision {
  outcome: EvaluationResult["outcome"];
  failures: string[];
  /** Review rules that held: signals against the case that decide nothing. */
  reviewSignals: string[];
}

function parsedRule(evaluator: Evaluator, metric: string, expression: string, what: string): Threshold {
  const parsed = parseThreshold(expression);
  if (!parsed.ok) throw new Error(`evaluator ${evaluator.id}: ${what} of ${metric}: ${parsed.error}`);
  return parsed.value;
}

function decide(evaluator: Evaluator, output: EvaluatorOutput, rubric: Map<string, Threshold>): Decision {
  const failures: string[] = [];
  const reviewSignals: string[] = [];
  let anyApplicable = false;
  let anyDecided = false;
  for (const metric of evaluator.metrics) {
    const value = output.values[metric.name];
    if (!value?.applicable) continue;
    anyApplicable = true;
    let threshold: Threshold | null = rubric.get(metric.name) ?? null;
    if (threshold === null && metric.defaultThreshold !== null) threshold = parsedRule(evaluator, metric.name, metric.defaultThreshold, "default threshold");
    if (threshold !== null) {
      anyDecided = true;
      if (!satisfies(value.value, threshold)) failures.push(`${metric.name} = ${round(value.value)} (needs ${threshold.source})`);
    }
    if (metric.reviewWhen !== undefined) {
      const review = parsedRule(evaluator, metric.name, metric.reviewWhen, "review rule");
      if (satisfies(value.value, review)) reviewSignals.push(`${metric.name} = ${round(value.value)} (review when ${review.source})`);
    }
  }
  if (!anyApplicable) return { outcome: "not_applicable", failures, reviewSignals };
  if (failures.length > 0) return { outcome: "failed", failures, reviewSignals };
  return { outcome: anyDecided ? "passed" : "measured", failures, reviewSignals };
}

function confidenceOf(semantics: Evaluator["confidence"]): EvaluationResult["confidence"] {
  return { value: semantics === "deterministic_rule" ? 1 : 0.5, semantics };
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : formatFixed(value, 4).replace(/\.?0+$/, "");
}

/** @param attribution for the root cause of a failed case (case-verdict.ts decideCaseVerdict): the corpus index of `eval --corpus` */
export function evaluateCaseResult(registry: EvaluatorRegistry, caseResult: CaseResult, evalCase: EvalCase | null, evaluatedAt: string, attribution: AttributionOptions = {}): CaseEvaluation {
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
      const { outcome, failures, reviewSignals } = decide(evaluator, output, rubric);
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
        reason: failures.length > 0 ? `${failures.join("; ")} — ${output.reason}` : reviewSignals.length > 0 ? `needs review (heuristic signal, not a verdict): ${reviewSignals.join("; ")} — ${output.reason}` : output.reason,
        confidence: confidenceOf(output.confidence ?? evaluator.confidence),
        review_required: reviewSignals.length > 0,
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
  return decideCaseVerdict(caseResult, evalCase, evaluationResults, evaluatedAt, registry, attribution);
}
