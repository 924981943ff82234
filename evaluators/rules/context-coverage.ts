/**
 * Context recall and precision against gold evidence (seed 004 §四.1–2).
 *
 * context_recall: gold evidence that reached the context / all gold evidence.
 * A piece reached the context when the packed chunks together cover enough of
 * it (evidence-set-coverage.ts: ids first, then the union of the characters
 * their texts cover, at least the case's evidence_min_coverage). A chunk cut
 * mid-text covers only those characters that are still in the context text.
 * When the trace recorded only the context text (no packed chunk ids), the
 * context text must cover enough of the evidence text.
 * context_precision: packed chunks that hold gold evidence in the prompt
 * (enough of it alone, or an indispensable piece of a split; a chunk cut
 * mid-text by what the context text still holds of it: packed-evidence.ts) /
 * packed chunks. A gold chunk whose evidence the cut removed is noise there.
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { evidenceCoverageOptions } from "../evidence/evidence-coverage-options.js";
import { coverEvidenceWith } from "../evidence/evidence-set-coverage.js";
import { matchByText } from "../evidence/match-evidence.js";
import { packedChunks } from "../evidence/packed-chunks.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { chunkLabel } from "../../contracts/case-result.js";
import { metricKeys } from "../metric-keys.js";
import { coverInContext, packedChunksHoldingEvidence } from "./packed-evidence.js";

const metrics: MetricDescriptor[] = [
  { name: "context_recall", description: "gold evidence that reached the context / all gold evidence", range: [0, 1], direction: "higher_is_better", defaultThreshold: ">= 1" },
  { name: "context_precision", description: "packed chunks holding gold evidence in the prompt (a cut chunk by what the cut kept) / packed chunks", range: [0, 1], direction: "higher_is_better", defaultThreshold: null },
];

function allNotApplicable(reason: string) {
  const value = notApplicable(reason);
  return { values: { context_recall: value, context_precision: value }, reason: `not applicable: ${reason}`, evidence: [] };
}

/** The metrics this evaluator produces (context layer). */
export const contextCoverageMetrics = metricKeys(["context_recall", "context_precision"]);

export const contextCoverageEvaluator: Evaluator = {
  id: "context.coverage",
  // 2: evidence matched by coverage (evaluators/evidence/text-coverage.ts) instead of containment.
  // 3: context_precision reads a cut chunk by what the context text kept of it.
  version: "3",
  layer: "context",
  description: "Context recall and precision: did the gold evidence reach the prompt, and how much of the prompt is evidence",
  requires: ["case", "gold_evidence"],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    if (!evalCase) return allNotApplicable("the trace is not linked to an Eval Case");
    const gold = evalCase.gold_evidence;
    if (gold.length === 0) return allNotApplicable("the case has no gold evidence");
    const contextText = caseResult.rag_observation.context;
    const packed = packedChunks(caseResult);
    if (packed === null && contextText === null) return allNotApplicable("the trace recorded no context");

    const options = evidenceCoverageOptions(evalCase);
    const covering: string[] = [];
    const covered = gold.map((evidence) => {
      if (packed === null) return matchByText(contextText, evidence.text, options);
      const set = coverEvidenceWith(
        packed.map((chunk) => coverInContext(chunk, evidence, contextText)),
        options,
      );
      if (set.coveredAt === null) return false;
      for (const position of set.contributors) if (!covering.includes(chunkLabel(packed[position]!))) covering.push(chunkLabel(packed[position]!));
      return true;
    });
    const coveredCount = covered.filter(Boolean).length;
    const recall: MetricValue = packed === null && gold.every((evidence) => !evidence.text) ? notApplicable("no packed chunk ids and no evidence text to look for") : applicable(coveredCount / gold.length);

    let precision: MetricValue = notApplicable("the trace did not record which chunks were packed");
    if (packed !== null) {
      const holding = packedChunksHoldingEvidence(packed, gold, contextText, options);
      precision = packed.length === 0 ? notApplicable("the context is empty") : applicable(holding.filter(Boolean).length / packed.length);
    }
    const missing = gold.filter((_, index) => !covered[index]).map((evidence) => `${evidence.document_id}${evidence.section_id ? `/${evidence.section_id}` : ""}`);
    const reason = missing.length === 0 ? "all gold evidence reached the context" : `gold evidence missing from the context: ${missing.join(", ")}`;
    return { values: { context_recall: recall, context_precision: precision }, reason, evidence: covering };
  },
};
