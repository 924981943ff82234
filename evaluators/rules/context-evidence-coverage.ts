/**
 * Which pieces of gold evidence reached the context, one by one.
 *
 * context.coverage (context-coverage.ts) owns the rule — a packed chunk
 * matching the evidence, a chunk cut mid-text counting only when the evidence
 * text is still in the context, the context text alone when no chunk ids were
 * recorded. To apply exactly that rule per evidence instead of restating it,
 * this runs the evaluator on the case narrowed to one piece of evidence: its
 * context_recall is then 1 or 0, and its evidence names the covering chunk.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvalCase, GoldEvidence } from "../../contracts/eval-case.js";
import { contextCoverageEvaluator } from "./context-coverage.js";

export interface EvidenceCoverage {
  evidence: GoldEvidence;
  /** Null when the trace cannot tell (no context recorded, nothing to look for). */
  inContext: boolean | null;
  coveringChunkId: string | null;
}

export function coverageOfEachEvidence(caseResult: CaseResult, evalCase: EvalCase, gold: readonly GoldEvidence[] = evalCase.gold_evidence): EvidenceCoverage[] {
  return gold.map((evidence) => {
    const output = contextCoverageEvaluator.evaluate({ caseResult, evalCase: { ...evalCase, gold_evidence: [evidence] } });
    const recall = output.values.context_recall;
    if (!recall?.applicable) return { evidence, inContext: null, coveringChunkId: null };
    return { evidence, inContext: recall.value === 1, coveringChunkId: output.evidence[0] ?? null };
  });
}
