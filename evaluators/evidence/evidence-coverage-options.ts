/**
 * How much of a piece of gold evidence must be retrieved (or packed, or
 * cited) before it counts as found.
 *
 * Set per Eval Case in `evaluator_config.evidence_min_coverage` (the generic
 * case's "Evaluator configuration and evidence requirements", seed 002), a
 * share of the evidence's compact characters in (0, 1]. The default, 0.8:
 * - a fragment that lacks most of the evidence never counts: for the seed's
 *   evidence "部分退款后，会员积分按实际保留金额重新计算" the first half
 *   ("部分退款后，会员积分", 9 of 20 characters) does not hold the rule, and a dateline or
 *   heading is a far smaller share;
 * - a chunker's boundary that trims the edge of the evidence (a lead-in
 *   clause, a heading the annotator included) still counts;
 * - evidence split across adjacent chunks counts at the rank where the
 *   chunks retrieved so far cover 80 % together (evidence-set-coverage.ts),
 *   so requiring most of the text does not penalise ordinary chunking.
 * Where the text is silent the stricter choice is taken: a lower default
 * would credit half an evidence passage as "the evidence was retrieved".
 * Use 1 to require every character, a lower value for long evidence passages
 * of which only a part bears the answer.
 */
import type { EvalCase } from "../../contracts/eval-case.js";

export interface EvidenceCoverageOptions {
  /** Share of the evidence's characters, in (0, 1]. */
  minCoverage: number;
}

export const DEFAULT_MIN_EVIDENCE_COVERAGE = 0.8;

export const DEFAULT_EVIDENCE_COVERAGE_OPTIONS: EvidenceCoverageOptions = Object.freeze({ minCoverage: DEFAULT_MIN_EVIDENCE_COVERAGE });

/** The case's setting, or the default when the case sets none (or there is no case). */
export function evidenceCoverageOptions(evalCase: Pick<EvalCase, "evaluator_config"> | null | undefined): EvidenceCoverageOptions {
  const configured = evalCase?.evaluator_config.evidence_min_coverage;
  return configured === undefined ? DEFAULT_EVIDENCE_COVERAGE_OPTIONS : { minCoverage: configured };
}
