/**
 * Veto cases (seed 004 §十三: 关键安全样本、权限样本和核心业务样本应设置为一票否决):
 * a P0 case, or one whose metadata says `veto: true`. One that did not pass
 * blocks the release whatever the averages and the gate file's rules say. One
 * definition for `ragscope eval` and `ragscope gate`, so the two never decide
 * one run differently (the gate passed a run whose P0 case failed when its gate
 * file had no `critical_case_pass_rate` rule, while eval blocked it).
 */
import type { EvaluatedCase } from "../aggregate/evaluated-case.js";

export function isVetoCase(evaluated: EvaluatedCase): boolean {
  return evaluated.evalCase?.risk_level === "P0" || (evaluated.evalCase?.metadata as Record<string, unknown> | undefined)?.veto === true;
}

/**
 * The case ids of the veto cases that did not pass, by the verdict the cases carry (the reviewers' agreed verdict
 * where the store gives one: evaluators/reviewed-verdict.ts).
 */
export function vetoedCases(cases: readonly EvaluatedCase[]): string[] {
  return cases.filter((evaluated) => isVetoCase(evaluated) && evaluated.caseResult.quality_status !== "passed").map((evaluated) => evaluated.caseResult.case_id);
}

/** The line both commands print under the gate's rules. */
export function describeVetoedCases(vetoed: readonly string[]): string {
  return `Veto cases not passed (block whatever the averages say): ${vetoed.join(", ")}`;
}
