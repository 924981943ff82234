/**
 * Citation checks by chunk id (seed 004 §五.5).
 *
 * citation_validity: cited ids that were packed into the context / cited ids
 * (a citation to a chunk the model never saw is invalid). Needs no case.
 * citation_accuracy: cited ids that were in the context AND hold gold evidence
 * / cited ids. A cited chunk holds gold evidence when it covers enough of it
 * alone, or is an indispensable piece of evidence the cited chunks cover
 * together (evidence-set-coverage.ts). An answer that cites nothing when the case has gold evidence
 * scores 0; an abstention is not applicable.
 *
 * Both count distinct cited ids, as citation_precision does: a chunk cited three
 * times is one citation, so repeating a valid citation cannot outweigh an
 * invalid one (the seed asks whether each cited document exists, §五.5).
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { caseGoldEvidence, needsEvidenceReason } from "../evidence/case-gold-evidence.js";
import { evidenceCoverageOptions } from "../evidence/evidence-coverage-options.js";
import { chunksHoldingEvidence } from "../evidence/evidence-set-coverage.js";
import { chunkLookup } from "../evidence/packed-chunks.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { metricKeys } from "../metric-keys.js";

const metrics: MetricDescriptor[] = [
  { name: "citation_accuracy", description: "citations that were in the context and hold gold evidence / citations", range: [0, 1], direction: "higher_is_better", defaultThreshold: ">= 1" },
  { name: "citation_validity", description: "citations that point to chunks packed into the context / citations", range: [0, 1], direction: "higher_is_better", defaultThreshold: ">= 1" },
];

/** The metrics this evaluator produces (generation layer). */
export const citationAccuracyMetrics = metricKeys(["citation_accuracy", "citation_validity"]);

export const citationAccuracyEvaluator: Evaluator = {
  id: "citation.accuracy",
  // 2: evidence matched by coverage (evaluators/evidence/text-coverage.ts) instead of containment.
  // 3: distinct cited ids (a repeated citation counted once); evidence given with its document id and its text is
  //    matched by its text within the document (match-evidence.ts).
  version: "3",
  layer: "generation",
  description: "Do the answer's citations point to chunks the model saw, and do those chunks hold the gold evidence",
  requires: [],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const observation = caseResult.rag_observation;
    const citations = observation.citations === null ? null : [...new Set(observation.citations)];
    const gold = evalCase?.gold_evidence ?? [];
    if (citations === null) {
      const value = notApplicable("the trace recorded no citation stage");
      return { values: { citation_accuracy: value, citation_validity: value }, reason: "not applicable: no citation stage recorded", evidence: [] };
    }
    if (citations.length === 0) {
      const abstained = observation.abstained === true;
      const accuracy: MetricValue = abstained || gold.length === 0 ? notApplicable(abstained ? "the answer abstained" : "no citations and no gold evidence") : applicable(0);
      return {
        values: { citation_accuracy: accuracy, citation_validity: notApplicable("the answer cites nothing") },
        reason: accuracy.applicable ? "the answer cites nothing although the case has gold evidence" : "no citations to check",
        evidence: [],
      };
    }
    const packed = observation.context_chunks === null ? null : new Set(observation.context_chunks.map((chunk) => chunk.chunk_id));
    const lookup = chunkLookup(caseResult);
    const inContext = citations.map((chunkId) => packed?.has(chunkId) ?? false);
    const known = citations.flatMap((chunkId) => lookup.get(chunkId) ?? []);
    const holding = chunksHoldingEvidence(known, gold, evidenceCoverageOptions(evalCase));
    const holdingIds = new Set(known.filter((_, index) => holding[index]).map((chunk) => chunk.chunk_id));
    const holdsEvidence = citations.map((chunkId) => holdingIds.has(chunkId));
    const validity: MetricValue = packed === null ? notApplicable("the trace did not record which chunks were packed") : applicable(inContext.filter(Boolean).length / citations.length);
    let accuracy: MetricValue;
    if (!evalCase) accuracy = notApplicable("the trace is not linked to an Eval Case");
    else if (gold.length === 0) accuracy = notApplicable(needsEvidenceReason(caseGoldEvidence(evalCase), "citation accuracy (whether a cited chunk holds it)"));
    else if (packed === null) accuracy = notApplicable("the trace did not record which chunks were packed");
    else accuracy = applicable(citations.filter((_, index) => inContext[index] && holdsEvidence[index]).length / citations.length);

    const problems = citations.flatMap((chunkId, index) => {
      if (packed !== null && !inContext[index]) return [`${chunkId} was not in the context`];
      if (gold.length > 0 && !holdsEvidence[index]) return [`${chunkId} holds no gold evidence`];
      return [];
    });
    // Without the packed chunks nothing about the citations was checked: saying they are valid would overstate it.
    const unchecked = packed === null ? "citations not checked against the context: the trace did not record which chunks were packed" : null;
    const reason = problems.length > 0 ? [...problems, ...(unchecked === null ? [] : [unchecked])].join("; ") : (unchecked ?? "every citation is valid");
    return { values: { citation_accuracy: accuracy, citation_validity: validity }, reason, evidence: citations };
  },
};
