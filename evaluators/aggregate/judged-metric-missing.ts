/**
 * Why a judged metric (faithfulness, answer correctness, …) has no value a decision may read, and what to configure:
 * the heuristic judge alone scored it (a measurement, never a decision), or no judge scored it. One wording for the
 * gate file's rules (gates/release-gate.ts) and the seed's hard gates (quality-score.ts): the same run printed a hint
 * beside one and a bare "no case has a value" beside the other.
 */
import { JUDGE_METRICS, type JudgeMetric } from "../judge/judge.js";
import { judgeInputsFor } from "../judge/judge-inputs.js";
import { rubricFor } from "../judge/rubrics/rubric-registry.js";
import { isHeuristicJudgement } from "../case-verdict.js";
import type { EvaluatedCase } from "./evaluated-case.js";
/**
 * Configuring an LLM judge is not all a run against a running collector needs: `ragscope serve` judges only when
 * enabled, an in-process `eval` always (README "Online evaluation"); without it the same dataset read "no case has a
 * value for faithfulness" from `eval --endpoint`, not saying why the collector judged nothing.
 */
export const JUDGING_ON_A_COLLECTOR = "`ragscope serve`, where `eval --endpoint` sends its cases, judges only with RAGSCOPE_JUDGE_ENABLED=true (an in-process `eval` always judges)";

/** What to configure for a judged metric to have a value a decision may read. */
export const CONFIGURE_A_JUDGE = `configure an LLM judge (LOCAL-JUDGE.md); ${JUDGING_ON_A_COLLECTOR}`;

/** Who scored a judged metric that has no value a decision may read: the heuristic judge alone, or nothing. */
export function whoScoredIt(heuristicOnly: boolean): string {
  return heuristicOnly ? "only the heuristic judge scored it, and a heuristic never decides a gate" : "no judge scored it";
}

/**
 * `cases`: when a language-model judge ran on them and still gave the metric no value, "configure an LLM judge" is the
 * wrong advice: the metric applies to none of the cases (the rubric says why: "the case has no key points"), or the
 * judge was not asked for it (RAGSCOPE_JUDGE_METRICS). Then the reason says that instead.
 */
export function judgedMetricMissingReason(reason: string, heuristicOnly: boolean, metric: string, cases: readonly EvaluatedCase[]): string {
  const judgeRan = judgeDidNotScore(metric, cases);
  return judgeRan === null ? `${reason}: ${whoScoredIt(heuristicOnly)} — ${CONFIGURE_A_JUDGE}` : `${reason}: ${judgeRan}`;
}

/** Why a language-model judge that ran on `cases` gave `metric` no value; null when none ran, or the metric is not judged. */
export function judgeDidNotScore(metric: string, cases: readonly EvaluatedCase[]): string | null {
  if (!(JUDGE_METRICS as readonly string[]).includes(metric)) return null;
  const judgeRan = cases.some((item) => item.evaluationResults.some((result) => result.evaluator_id.startsWith("judge.") && !isHeuristicJudgement(result)));
  if (!judgeRan) return null;
  const rubric = rubricFor(metric as JudgeMetric);
  const reasons = new Map<string, number>();
  for (const item of cases) {
    const notApplicable = rubric.notApplicableReason(judgeInputsFor(item.caseResult, item.evalCase ?? null));
    if (notApplicable !== null) reasons.set(notApplicable, (reasons.get(notApplicable) ?? 0) + 1);
  }
  const notApplicableCases = [...reasons.values()].reduce((sum, count) => sum + count, 0);
  if (notApplicableCases === cases.length) {
    const counted = [...reasons.entries()].sort(([, left], [, right]) => right - left).map(([why, count]) => `${why}: ${count} of ${cases.length}`);
    return `a language-model judge ran, but ${metric} applies to none of the ${cases.length} case(s) (${counted.join("; ")}) — give the cases what it needs`;
  }
  return `a language-model judge ran, but did not score ${metric} on the ${cases.length - notApplicableCases} case(s) it applies to — check that RAGSCOPE_JUDGE_METRICS (default: all) names it`;
}
