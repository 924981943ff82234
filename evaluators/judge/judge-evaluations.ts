/**
 * Judged metrics as Evaluation Results: one result per applicable metric, with
 * evaluator_id `judge.<metric>`, deterministic ids (contracts/ids.ts) so a
 * re-evaluation replaces the earlier row, and the three outcomes mapped as
 * pass → passed, fail → failed (a heuristic judge's: measured, with review
 * required on a fail — a heuristic is a measurement, never a pass or a
 * failure), grader error → error with error_type
 * `evaluator_error`, the metric's value null and review required — never a
 * pass, never a NaN.
 *
 * The judge's own tokens and cost are written beside the metric as
 * `judge_input_tokens`, `judge_output_tokens` and `judge_cost`, under the
 * judge's evaluator id, so they are accounted per evaluator and never mixed
 * with the application's generation usage. A cached verdict costs 0.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import { evaluationResult, type EvaluationResult } from "../../contracts/evaluation-result.js";
import { evaluationResultIdFor } from "../../contracts/ids.js";
import type { Judge, JudgeMetric, JudgeOutcome } from "./judge.js";
import { JUDGE_METRICS } from "./judge.js";
import { judgeInputsFor } from "./judge-inputs.js";
import { rubricFor } from "./rubrics/rubric-registry.js";
import { HEURISTIC_JUDGE_VERSION_SUFFIX } from "../aggregate/dataset-shares.js";

export { JUDGE_USAGE_METRICS } from "./judge-usage-metrics.js";
import { JUDGE_USAGE_METRICS } from "./judge-usage-metrics.js";

/** The judged metrics whose inputs this Case Result (and Case) provide, e.g. correctness only with a reference answer. */
export function applicableJudgeMetrics(caseResult: CaseResult, evalCase: EvalCase | null): JudgeMetric[] {
  const inputs = judgeInputsFor(caseResult, evalCase);
  return JUDGE_METRICS.filter((metric) => rubricFor(metric).notApplicableReason(inputs) === null);
}

export function judgeEvaluatorId(metric: JudgeMetric): string {
  return `judge.${metric}`;
}

function confidenceOf(judge: Judge, outcome: JudgeOutcome): EvaluationResult["confidence"] {
  const semantics = judge.confidenceSemantics ?? "judge_self_report";
  if (outcome.kind === "grader_error") return { value: 0, semantics };
  if (semantics === "heuristic") return { value: 0.5, semantics };
  const reported = outcome.details.confidence;
  return { value: reported === "high" || reported === "medium" || reported === "low" ? reported : "medium", semantics };
}

const GRADER_ERROR_REASON = /^grader error \(([\w.-]+)\)/;

/**
 * The judge's error type (`http_error`, `timeout`, `rate_limited`, …) of a
 * judge's errored Evaluation Result, read from the reason this module writes
 * (`grader error (<type>) from <judge>: …`); null for any other result.
 */
export function graderErrorTypeOf(result: EvaluationResult): string | null {
  if (!result.evaluator_id.startsWith("judge.") || result.outcome !== "error") return null;
  return GRADER_ERROR_REASON.exec(result.reason)?.[1] ?? null;
}

export function evaluationResultFromOutcome(judge: Judge, caseResult: CaseResult, outcome: JudgeOutcome, evaluatedAt: string): EvaluationResult {
  const evaluatorId = judgeEvaluatorId(outcome.metric);
  // The rubric version and the judge: another judge or prompt is another result, the same ones replace it.
  // A heuristic judge's version ends with `+heuristic` (a vote across heuristic judges too), so SQL over
  // metric_values tells its measurements from LLM judges' verdicts (aggregate/dataset-shares.ts).
  const heuristicMark = judge.confidenceSemantics === "heuristic" && !judge.id.endsWith(HEURISTIC_JUDGE_VERSION_SUFFIX.slice(1)) ? HEURISTIC_JUDGE_VERSION_SUFFIX : "";
  const evaluatorVersion = `${outcome.promptVersion}+${judge.id}${heuristicMark}`;
  const usageValues = { judge_input_tokens: outcome.usage.inputTokens, judge_output_tokens: outcome.usage.outputTokens, judge_cost: outcome.usage.cost };
  const base = {
    evaluation_result_id: evaluationResultIdFor(caseResult.case_result_id, evaluatorId, evaluatorVersion),
    case_result_id: caseResult.case_result_id,
    evaluator_id: evaluatorId,
    evaluator_version: evaluatorVersion,
    evaluated_at: evaluatedAt,
    confidence: confidenceOf(judge, outcome),
  };
  if (outcome.kind === "grader_error") {
    return evaluationResult.parse({
      ...base,
      metric_values: { [outcome.metric]: null, ...usageValues },
      outcome: "error",
      reason: `grader error (${outcome.errorType}) from ${outcome.judgeId}: ${outcome.message}`,
      evidence_refs: [],
      review_required: true,
      error_type: "evaluator_error",
    });
  }
  const evidence = Array.isArray(outcome.details.evidence_ids) ? outcome.details.evidence_ids.filter((id): id is string => typeof id === "string") : [];
  // A heuristic judge measures, it never passes or fails (README "Outcomes"): its score below the pass rule
  // it would use is a heuristic signal against the case — review required — not a failure.
  const heuristic = base.confidence.semantics === "heuristic";
  return evaluationResult.parse({
    ...base,
    metric_values: { [outcome.metric]: outcome.value, ...usageValues },
    outcome: heuristic ? "measured" : outcome.kind === "pass" ? "passed" : "failed",
    reason: `${outcome.metric} = ${Math.round(outcome.value * 10_000) / 10_000}${outcome.usage.cached ? " (cached verdict)" : ""}: ${outcome.reason}`,
    evidence_refs: evidence.map((id) => `chunk://${id}`),
    review_required: heuristic ? outcome.kind === "fail" : base.confidence.value === "low",
    error_type: "none",
  });
}

/**
 * Judges every applicable metric, one after another (the judge's rate limits
 * and budget apply per call), and returns one Evaluation Result per metric.
 */
export async function runJudgeEvaluations(judge: Judge, caseResult: CaseResult, evalCase: EvalCase | null, evaluatedAt: string, signal?: AbortSignal): Promise<EvaluationResult[]> {
  const results: EvaluationResult[] = [];
  for (const metric of applicableJudgeMetrics(caseResult, evalCase)) {
    if (judge.metrics !== undefined && !judge.metrics.includes(metric)) continue;
    const outcome = await judge.judge({ metric, caseResult, evalCase }, signal);
    results.push(evaluationResultFromOutcome(judge, caseResult, outcome, evaluatedAt));
  }
  return results;
}

/** What the language-model judge did over a run: its calls (one per judged metric of a case) and the grader errors among them, by type. */
export interface JudgeCallSummary {
  /** Judged metrics of a language-model judge (errors included). */
  calls: number;
  errors: number;
  errorsByType: Record<string, number>;
  /** Measurements of the heuristic judge (never verdicts). */
  heuristic: number;
}

export function summarizeJudgeCalls(results: Iterable<EvaluationResult>): JudgeCallSummary {
  const summary: JudgeCallSummary = { calls: 0, errors: 0, errorsByType: {}, heuristic: 0 };
  for (const result of results) {
    if (!result.evaluator_id.startsWith("judge.") || result.outcome === "not_applicable") continue;
    if (result.confidence.semantics === "heuristic") {
      summary.heuristic += 1;
      continue;
    }
    summary.calls += 1;
    if (result.outcome !== "error") continue;
    summary.errors += 1;
    const type = graderErrorTypeOf(result) ?? result.error_type;
    summary.errorsByType[type] = (summary.errorsByType[type] ?? 0) + 1;
  }
  return summary;
}

/** All or most (more than half) of the language-model judge's calls failed: its verdicts cannot decide the run. */
export function judgeMostlyFailed(summary: JudgeCallSummary): boolean {
  return summary.calls > 0 && summary.errors * 2 > summary.calls;
}

/** One line: `Judge: 4 calls, 4 grader errors (http_error: 4)`. */
export function formatJudgeCallSummary(summary: JudgeCallSummary): string {
  const byType = Object.entries(summary.errorsByType).sort(([left], [right]) => left.localeCompare(right)).map(([type, count]) => `${type}: ${count}`).join(", ");
  const heuristic = summary.heuristic > 0 ? `; ${summary.heuristic} heuristic measurement${summary.heuristic === 1 ? "" : "s"} (never verdicts)` : "";
  if (summary.calls === 0) return `Judge: no language-model judge call${heuristic}`;
  return `Judge: ${summary.calls} call${summary.calls === 1 ? "" : "s"}, ${summary.errors} grader error${summary.errors === 1 ? "" : "s"}${summary.errors > 0 ? ` (${byType})` : ""}${heuristic}`;
}
