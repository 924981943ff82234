/**
 * attributeRootCause: the primary root cause of a failed case.
 *
 * A case failed when its quality_status is `failed`, its request did not
 * complete (execution-step.ts), or one of its Evaluation Results failed; a
 * passed, unevaluated or review-only case gets null. The steps of
 * root-cause-procedure.ts are tried in order and the first that holds
 * decides; its evidence names the chunks and the stored metric values (with
 * the Evaluation Results they come from) that decided it. The last step
 * always holds, so every failed case gets exactly one label, or UNATTRIBUTED
 * when no step found a cause.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { gatherFacts, ROOT_CAUSE_EVALUATOR_ID, type AttributionFacts, type AttributionOptions } from "./attribution-facts.js";
import type { RootCauseAttribution, RootCauseFinding } from "./root-cause-attribution.js";
import { ROOT_CAUSE_PROCEDURE } from "./root-cause-procedure.js";
import { executionFailureLabel } from "./execution-step.js";

export function isFailedCase(caseResult: CaseResult, evaluationResults: readonly EvaluationResult[]): boolean {
  return (
    caseResult.quality_status === "failed" ||
    executionFailureLabel(caseResult) !== null ||
    evaluationResults.some((result) => result.evaluator_id !== ROOT_CAUSE_EVALUATOR_ID && result.outcome === "failed")
  );
}

function toAttribution(label: RootCauseAttribution["label"], finding: RootCauseFinding, facts: AttributionFacts): RootCauseAttribution {
  const metricValues: Record<string, number> = {};
  const evaluationResultIds = new Set<string>();
  for (const name of finding.metrics ?? []) {
    const stored = facts.metric(name);
    if (stored === null) continue;
    metricValues[name] = stored.value;
    evaluationResultIds.add(stored.evaluationResultId);
  }
  return { label, reason: finding.reason, evidence: { chunkIds: [...new Set(finding.chunkIds ?? [])], metricValues, evaluationResultIds: [...evaluationResultIds] }, confidence: finding.confidence };
}

export function attributeRootCause(
  caseResult: CaseResult,
  evalCase: EvalCase | null,
  evaluationResults: readonly EvaluationResult[],
  options: AttributionOptions = {},
): RootCauseAttribution | null {
  if (!isFailedCase(caseResult, evaluationResults)) return null;
  const facts = gatherFacts(caseResult, evalCase, evaluationResults, options);
  for (const step of ROOT_CAUSE_PROCEDURE) {
    const finding = step.decide(facts);
    if (finding !== null) return toAttribution(step.label, finding, facts);
  }
  throw new Error("the root-cause procedure must end with a fallback step that always holds");
}
