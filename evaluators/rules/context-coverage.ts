/**
 * Context recall and precision against gold evidence (seed 004 §四.1–2).
 *
 * context_recall: gold evidence that reached the context / all gold evidence.
 * A piece reached the context when a packed chunk matches it
 * (match-evidence.ts); a chunk cut mid-text counts only when the evidence text
 * is still in the context text. When the trace recorded only the context text
 * (no packed chunk ids), the evidence text must appear in it.
 * context_precision: packed chunks that hold gold evidence / packed chunks.
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { matchByText, matchEvidence } from "../evidence/match-evidence.js";
import { packedChunks } from "../evidence/packed-chunks.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { compactText } from "../text/normalize-text.js";
import { chunkLabel } from "../../contracts/case-result.js";

const metrics: MetricDescriptor[] = [
  { name: "context_recall", description: "gold evidence that reached the context / all gold evidence", range: [0, 1], direction: "higher_is_better", defaultThreshold: ">= 1" },
  { name: "context_precision", description: "packed chunks holding gold evidence / packed chunks", range: [0, 1], direction: "higher_is_better", defaultThreshold: null },
];

function allNotApplicable(reason: string) {
  const value = notApplicable(reason);
  return { values: { context_recall: value, context_precision: value }, reason: `not applicable: ${reason}`, evidence: [] };
}

export const contextCoverageEvaluator: Evaluator = {
  id: "context.coverage",
  version: "1",
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

    const compactContext = contextText === null ? null : compactText(contextText);
    const covering: string[] = [];
    const covered = gold.map((evidence) => {
      if (packed === null) return matchByText(contextText, evidence.text);
      const chunk = packed.find((candidate) => {
        if (!matchEvidence(candidate, evidence).matched) return false;
        if (!candidate.truncated) return true;
        return compactContext !== null && evidence.text !== undefined && compactContext.includes(compactText(evidence.text));
      });
      if (chunk) covering.push(chunkLabel(chunk));
      return chunk !== undefined;
    });
    const coveredCount = covered.filter(Boolean).length;
    const recall: MetricValue = packed === null && gold.every((evidence) => !evidence.text) ? notApplicable("no packed chunk ids and no evidence text to look for") : applicable(coveredCount / gold.length);

    let precision: MetricValue = notApplicable("the trace did not record which chunks were packed");
    if (packed !== null) {
      precision = packed.length === 0 ? notApplicable("the context is empty") : applicable(packed.filter((chunk) => gold.some((evidence) => matchEvidence(chunk, evidence).matched)).length / packed.length);
    }
    const missing = gold.filter((_, index) => !covered[index]).map((evidence) => `${evidence.document_id}${evidence.section_id ? `/${evidence.section_id}` : ""}`);
    const reason = missing.length === 0 ? "all gold evidence reached the context" : `gold evidence missing from the context: ${missing.join(", ")}`;
    return { values: { context_recall: recall, context_precision: precision }, reason, evidence: covering };
  },
};
