/**
 * The cases whose evaluation of a metric errored — a grader error, a rule's
 * invalid input — and so carry no value of it. A mean over the other cases
 * cannot stand for the run (a grader that fails on exactly the worst answers
 * leaves only the good ones), so the release gate and the hard thresholds
 * shown beside the overall score read such a metric as ERROR, never as a pass.
 */
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { graderErrorTypeOf } from "../judge/judge-evaluations.js";
import { isWithinLargestMeasurement } from "../../core/largest-measurement.js";
import type { EvaluatedCase } from "./evaluated-case.js";

function isErrored(result: EvaluationResult): boolean {
  return result.outcome === "error" || result.error_type !== "none";
}

/**
 * The cases whose evaluation of a metric errored (an errored result naming the
 * metric, and no value of it from another result), counted by error type: a
 * judge's grader-error type, else the result's error_type.
 */
export function erroredEvaluationsOf(cases: readonly EvaluatedCase[], metric: string): { cases: number; byType: Record<string, number>; byJudge: boolean } {
  const byType: Record<string, number> = {};
  let count = 0;
  let byJudge = false;
  for (const evaluated of cases) {
    const hasValue = evaluated.evaluationResults.some((result) => isWithinLargestMeasurement(result.metric_values[metric]));
    if (hasValue) continue;
    const errored = evaluated.evaluationResults.filter((result) => isErrored(result) && metric in result.metric_values);
    if (errored.length === 0) continue;
    count += 1;
    for (const result of errored) {
      // A judge's evaluator ids begin with "judge." (judge-evaluations.ts); a rule's error is no judge's to fix.
      if (result.evaluator_id.startsWith("judge.")) byJudge = true;
      const type = graderErrorTypeOf(result) ?? result.error_type;
      byType[type] = (byType[type] ?? 0) + 1;
    }
  }
  return { cases: count, byType, byJudge };
}

/** "errored on 2 of 5 case(s) (3 measured) — timeout: 2": the errored cases among those it was measured on, by error type. */
export function erroredOnCases(errored: { cases: number; byType: Readonly<Record<string, number>> }, measured: number): string {
  return `errored on ${errored.cases} of ${errored.cases + measured} case(s)${measured > 0 ? ` (${measured} measured)` : ""} — ${formatErrorCounts(errored.byType)}`;
}

export function formatErrorCounts(byType: Readonly<Record<string, number>>): string {
  return Object.entries(byType).sort(([left], [right]) => left.localeCompare(right)).map(([type, count]) => `${type}: ${count}`).join(", ");
}

/** What to do about errored evaluations: a judge's are fixed at the judge, a rule's by reading the cases' reasons. */
export function erroredFixHint(byJudge: boolean): string {
  return byJudge ? " (check the judge: RAGSCOPE_JUDGE_BASE_URL, its key and model)" : " (the cases' evaluation reasons say what was wrong)";
}
