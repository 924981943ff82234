/**
 * Citation precision and recall against gold evidence (seed 004 §五.5:
 * Citation Precision, Citation Recall).
 *
 * citation_precision: distinct cited chunks that hold gold evidence (enough
 *   of it alone, or an indispensable piece of evidence the cited chunks cover
 *   together) / distinct cited chunks. Unlike citation_accuracy (citation-accuracy.ts) it does not
 *   ask whether the cited chunk was in the context — validity is
 *   citation_validity's question — so the two differ exactly by the citations
 *   to chunks the model never saw.
 * citation_recall: gold evidence the cited chunks cover enough of together /
 *   gold evidence. An answer that cites nothing scores 0; an abstention is
 *   not applicable.
 *
 * A cited id is looked up in the retrieved chunks (chunkLookup) and matched
 * with match-evidence.ts and evidence-set-coverage.ts; an id the trace never listed can still match by the
 * evidence's chunk_id. Gold evidence with relevance 0 is not evidence (the
 * trec_eval level of retrieval.ranking).
 */
import { chunkLabel, type CaseResult, type RetrievedChunk } from "../../contracts/case-result.js";
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { caseGoldEvidence, needsEvidenceReason } from "../evidence/case-gold-evidence.js";
import { evidenceCoverageOptions } from "../evidence/evidence-coverage-options.js";
import { goldEvidenceLabel } from "../evidence/gold-evidence-label.js";
import { chunksHoldingEvidence, coverEvidence } from "../evidence/evidence-set-coverage.js";
import { chunkLookup } from "../evidence/packed-chunks.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { metricKeys } from "../metric-keys.js";

const metrics: MetricDescriptor[] = [
  { name: "citation_precision", description: "distinct cited chunks holding gold evidence / distinct cited chunks", range: [0, 1], direction: "higher_is_better", defaultThreshold: null },
  { name: "citation_recall", description: "gold evidence held by a cited chunk / gold evidence", range: [0, 1], direction: "higher_is_better", defaultThreshold: null },
];

/** The cited chunks, distinct, in citation order; an unknown id keeps only its id. */
export function citedChunks(caseResult: CaseResult): RetrievedChunk[] | null {
  const citations = caseResult.rag_observation.citations;
  if (citations === null) return null;
  const lookup = chunkLookup(caseResult);
  return [...new Set(citations)].map(
    (chunkId, index) =>
      lookup.get(chunkId) ?? { rank: index + 1, chunk_id: chunkId, text: null, score: null, document_id: null, document_version: null, section_id: null, effective_from: null, effective_to: null, acl: null, tenant_id: null },
  );
}

/** The metrics this evaluator produces (generation layer). */
export const citationEvidenceMetrics = metricKeys(["citation_precision", "citation_recall"]);

export const citationEvidenceEvaluator: Evaluator = {
  id: "citation.evidence",
  // 2: evidence matched by coverage (evaluators/evidence/text-coverage.ts) instead of containment.
  // 3: evidence given with its document id and its text is matched by its text within the document (match-evidence.ts).
  version: "3",
  layer: "generation",
  description: "Citation precision and recall against the case's gold evidence",
  requires: ["case", "gold_evidence"],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    const cited = citedChunks(caseResult);
    const gold = (evalCase?.gold_evidence ?? []).filter((evidence) => evidence.relevance >= 1);
    const abstained = caseResult.rag_observation.abstained === true;
    const missing = cited === null ? "the trace recorded no citation stage" : !evalCase ? "the trace is not linked to an Eval Case" : gold.length === 0 ? needsEvidenceReason(caseGoldEvidence(evalCase), "citation precision and recall (whether a cited chunk holds it)") : cited.length === 0 && abstained ? "the answer abstained" : null;
    if (missing !== null || cited === null) {
      const value = notApplicable(missing ?? "");
      return { values: { citation_precision: value, citation_recall: value }, reason: `not applicable: ${missing}`, evidence: [] };
    }
    const options = evidenceCoverageOptions(evalCase);
    const holds = chunksHoldingEvidence(cited, gold, options);
    const holding = cited.filter((_, index) => holds[index]);
    const citedGold = gold.filter((evidence) => coverEvidence(cited, evidence, options).coveredAt !== null);
    const precision: MetricValue = cited.length === 0 ? notApplicable("the answer cites nothing") : applicable(holding.length / cited.length);
    const uncited = gold.filter((evidence) => !citedGold.includes(evidence)).map(goldEvidenceLabel);
    const parts = [`${holding.length} of ${cited.length} cited chunks hold gold evidence`];
    if (uncited.length > 0) parts.push(`gold evidence not cited: ${uncited.join(", ")}`);
    return { values: { citation_precision: precision, citation_recall: applicable(citedGold.length / gold.length) }, reason: parts.join("; "), evidence: holding.map(chunkLabel) };
  },
};
