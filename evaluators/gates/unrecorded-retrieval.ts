/**
 * The cases a retrieval or context rule of the gate could not measure because their trace recorded no retrieval,
 * although the case lists gold evidence and its request completed: a router that skipped retrieval, or a pipeline
 * whose retrieval was not instrumented. Such a case is not measured, and the rule's mean over the other cases does not
 * stand for the run: two of three cases without retrieval left recall_at_5 = 1 from the one that had it, and the gate
 * passed. A request that did not complete is left to error_rate and timeout_rate, which every gate bounds.
 */
import { createDefaultRegistry } from "../default-registry.js";
import type { Evaluator } from "../evaluator.js";
import { caseGoldEvidence } from "../evidence/case-gold-evidence.js";
import { metricValueOf, type EvaluatedCase } from "../aggregate/evaluated-case.js";

let registry: ReturnType<typeof createDefaultRegistry> | undefined;

/** The rule's metric needs the case's gold evidence and a recorded ranking or context. */
function readsRetrieval(evaluator: Evaluator | undefined): boolean {
  return evaluator !== undefined && (evaluator.layer === "retrieval" || evaluator.layer === "context") && evaluator.requires.includes("gold_evidence");
}

export function casesWithoutRecordedRetrieval(cases: readonly EvaluatedCase[], metric: string): EvaluatedCase[] {
  registry ??= createDefaultRegistry();
  const owner = registry.ownerOf(metric);
  if (!readsRetrieval(owner)) return [];
  // A case naming relevant documents only is measured by the retrieval metrics alone (case-gold-evidence.ts): a
  // context metric would not have measured it with a retrieval either.
  const measurable = (evaluated: EvaluatedCase) => {
    const gold = caseGoldEvidence(evaluated.evalCase ?? null);
    return gold.evidence.length > 0 && (!gold.documentsOnly || owner!.layer === "retrieval");
  };
  return cases.filter(
    (evaluated) =>
      measurable(evaluated) &&
      evaluated.caseResult.execution_status === "completed" &&
      evaluated.caseResult.rag_observation.retrieved_chunks === null &&
      metricValueOf(evaluated, metric) === null,
  );
}

/** What the rule's line says of them: how many, of how many cases with gold evidence, and the first ids. */
export function describeUnrecordedRetrieval(unrecorded: readonly EvaluatedCase[], measuredCount: number): string {
  const shown = unrecorded.slice(0, 3).map((evaluated) => evaluated.caseResult.case_id);
  const more = unrecorded.length > shown.length ? `, and ${unrecorded.length - shown.length} more` : "";
  return `measured on ${measuredCount} of ${measuredCount + unrecorded.length} cases: ${unrecorded.length} case${unrecorded.length === 1 ? "" : "s"} with gold evidence recorded no retrieval (${shown.join(", ")}${more}) and ${unrecorded.length === 1 ? "is" : "are"} not measured`;
}
