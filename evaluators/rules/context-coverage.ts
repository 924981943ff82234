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
 * A packed list that names a chunk twice is not scored for precision
 * (repeatedPackedChunk below), as trec_eval's set_P refuses it.
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { caseGoldEvidence, needsEvidenceReason } from "../evidence/case-gold-evidence.js";
import { evidenceCoverageOptions } from "../evidence/evidence-coverage-options.js";
import { goldEvidenceLabel } from "../evidence/gold-evidence-label.js";
import { coverEvidenceWith } from "../evidence/evidence-set-coverage.js";
import { matchByText } from "../evidence/match-evidence.js";
import { packedChunks } from "../evidence/packed-chunks.js";
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { chunkLabel } from "../../contracts/case-result.js";
import { metricKeys } from "../metric-keys.js";
import { coverInContext, packedChunksHoldingEvidence } from "./packed-evidence.js";
import { findRepeatedId, type RepeatedId } from "../retrieval/repeated-ids.js";

const metrics: MetricDescriptor[] = [
  { name: "context_recall", description: "gold evidence that reached the context / all gold evidence", range: [0, 1], direction: "higher_is_better", defaultThreshold: ">= 1" },
  { name: "context_precision", description: "packed chunks holding gold evidence in the prompt (a cut chunk by what the cut kept) / packed chunks", range: [0, 1], direction: "higher_is_better", defaultThreshold: null },
];

/**
 * Why context_precision is not scored over a packed list that names one chunk twice. Its formula is trec_eval's set_P
 * over the packed list (relevant / all), and trec_eval refuses a run that names a document twice ("duplicate docs",
 * test/data/trec-eval-duplicates/), as ragscope's ranking metrics refuse a ranking that does (repeated-ids.ts):
 * counted twice, a gold chunk packed twice made the prompt read more relevant than it is. The repeat itself is
 * context_redundancy's measure; context_recall, a union of what the packed chunks cover, is unaffected.
 */
function repeatedPackedChunk(repeated: RepeatedId): string {
  return `the context packs chunk ${JSON.stringify(repeated.id)} twice (positions ${repeated.firstRank} and ${repeated.repeatRank}): precision over a list that names a chunk twice is not scored (trec_eval refuses such a run); context_redundancy counts the repeat`;
}

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
  // 4: context_precision is not scored over a packed list that names a chunk twice.
  // 5: evidence given with its document id and its text is matched by its text within the document (match-evidence.ts).
  version: "5",
  layer: "context",
  description: "Context recall and precision: did the gold evidence reach the prompt, and how much of the prompt is evidence",
  requires: ["case", "gold_evidence"],
  costClass: "rule",
  confidence: "deterministic_rule",
  metrics,
  evaluate({ caseResult, evalCase }) {
    if (!evalCase) return allNotApplicable("the trace is not linked to an Eval Case");
    const gold = evalCase.gold_evidence;
    // A case naming relevant documents only is not scored: a chunk of the document in the prompt does not show the evidence is (case-gold-evidence.ts).
    if (gold.length === 0) return allNotApplicable(needsEvidenceReason(caseGoldEvidence(evalCase), "context recall (which chunk or text of the document reached the prompt)"));
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
      const repeated = findRepeatedId(packed.map((chunk) => chunk.chunk_id));
      const holding = packedChunksHoldingEvidence(packed, gold, contextText, options);
      precision =
        repeated !== null
          ? notApplicable(repeatedPackedChunk(repeated))
          : packed.length === 0
            ? notApplicable("the context is empty")
            : applicable(holding.filter(Boolean).length / packed.length);
    }
    const missing = gold.filter((_, index) => !covered[index]).map(goldEvidenceLabel);
    const reason = missing.length === 0 ? "all gold evidence reached the context" : `gold evidence missing from the context: ${missing.join(", ")}`;
    return { values: { context_recall: recall, context_precision: precision }, reason, evidence: covering };
  },
};
