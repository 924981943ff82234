/**
 * The cases as a pass decision reads them (release gates, the seed's hard
 * thresholds and weighted score): without the heuristic judge's verdicts, the
 * stand-in of the embedded default when no LLM judge is configured. Its
 * values stay measurements in reports and dashboards; they never pass
 * anything, so a judged metric (faithfulness, answer correctness, …) that
 * only the heuristic judge scored is not available to a decision.
 */
import { isHeuristicJudgement } from "../case-verdict.js";
import type { EvaluatedCase } from "./evaluated-case.js";

export function withoutHeuristicJudgements(cases: readonly EvaluatedCase[]): EvaluatedCase[] {
  return cases.map((evaluated) => (evaluated.evaluationResults.some(isHeuristicJudgement) ? { ...evaluated, evaluationResults: evaluated.evaluationResults.filter((result) => !isHeuristicJudgement(result)) } : evaluated));
}
