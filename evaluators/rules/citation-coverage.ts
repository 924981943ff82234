/**
 * citation_coverage (seed 004 §五.5 Citation Coverage, "是否每个关键结论都有引用"):
 * answer sentences that carry a citation / answer sentences.
 *
 * The trace records which chunks the answer cites, not which sentence cites
 * which chunk, so the sentence-to-citation link is a heuristic. A sentence
 * (text/answer-sentences.ts splits them; a preamble such as "Here is the
 * summary:" states nothing and is not counted) carries a citation when
 * 1. it holds a citation marker ([1], [^1], 【…】, [来源: …]), or
 * 2. it names a cited chunk id, or
 * 3. at least CITED_OVERLAP of its token bigrams are in the text of one cited
 *    chunk (overlapShare, context-text-overlap.ts) — the sentence restates
 *    what it cites, or
 * 4. it is the answer's only sentence and the answer cites something: the
 *    citations can belong to no other sentence. When it restates none of the
 *    cited text, the reason says so, and leaves whether the citation supports
 *    the claim to citation support (judge.citation_support): this metric asks
 *    whether there is one.
 * A sentence of a longer answer linked by none of these is "not linked to a
 * citation", not "uncited": with citations and no markers the trace cannot
 * tell which sentence they belong to.
 * Not applicable without an answer, without a citation stage, or for an
 * abstention. Confidence "heuristic"; informational per case.
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { applicable, notApplicable } from "../metric-value.js";
import { splitSentences } from "../text/answer-sentences.js";
import { citedChunks } from "./citation-evidence.js";
import { overlapShare } from "./context-text-overlap.js";
import { chunkLabel } from "../../contracts/case-result.js";
import { metricKeys } from "../metric-keys.js";

export const CITED_OVERLAP = 0.5;

const metrics: MetricDescriptor[] = [
  { name: "citation_coverage", description: "answer sentences with a citation marker or mapping to a cited chunk (its id, >= 0.5 bigram overlap, or the only sentence of an answer that cites) / answer sentences", range: [0, 1], direction: "higher_is_better", defaultThreshold: null, decideWith: "configure an LLM judge (LOCAL-JUDGE.md) and gate on citation_support, or gate on citation_recall (exact, against the gold evidence)" },
];

/** The metrics this evaluator produces (generation layer). */
export const citationCoverageMetrics = metricKeys(["citation_coverage"]);

export const citationCoverageEvaluator: Evaluator = {
  id: "citation.coverage",
  version: "1",
  layer: "generation",
  description: "Share of answer sentences that carry a citation (heuristic sentence-to-citation link)",
  requires: [],
  costClass: "rule",
  confidence: "heuristic",
  metrics,
  evaluate({ caseResult }) {
    const observation = caseResult.rag_observation;
    const cited = citedChunks(caseResult);
    const sentences = splitSentences(caseResult.output ?? "").filter((sentence) => !sentence.preamble);
    const missing = cited === null ? "the trace recorded no citation stage" : observation.abstained === true ? "the answer abstained" : sentences.length === 0 ? "the answer has no sentence" : null;
    if (missing !== null || cited === null) return { values: { citation_coverage: notApplicable(missing ?? "") }, reason: `not applicable: ${missing}`, evidence: [] };
    const linkedChunks = new Set<string>();
    const unlinked: string[] = [];
    for (const sentence of sentences) {
      if (sentence.markers.length > 0) continue;
      const named = cited.find((chunk) => chunk.chunk_id !== null && sentence.text.includes(chunk.chunk_id));
      const restated = named ?? cited.find((chunk) => chunk.text !== null && (overlapShare(sentence.claim, chunk.text) ?? 0) >= CITED_OVERLAP);
      if (restated) linkedChunks.add(chunkLabel(restated));
      else unlinked.push(sentence.text);
    }
    const citedLabels = cited.map(chunkLabel).join(", ");
    const quoted = unlinked.map((text) => `"${text}"`).join(", ");
    if (sentences.length === 1 && cited.length > 0 && unlinked.length === 1) {
      return {
        values: { citation_coverage: applicable(1) },
        // Counted as cited (this metric asks whether there is a citation), and said plainly: the overlap is a heuristic,
        // so "not supported" is not this metric's to say — citation support (judge.citation_support) answers it.
        reason: `the answer's only sentence carries its citation (${citedLabels}), so it counts as cited, but restates none of the cited text: whether what it cites supports it is citation support's question (judge.citation_support) — ${quoted}`,
        evidence: cited.map(chunkLabel),
      };
    }
    const covered = sentences.length - unlinked.length;
    let reason: string;
    if (unlinked.length === 0) reason = `all ${sentences.length} answer sentences carry a citation`;
    else if (cited.length === 0) reason = `${covered} of ${sentences.length} sentences carry a citation marker and the answer cites no chunk; without: ${quoted}`;
    else reason = `${covered} of ${sentences.length} sentences are linked to a citation; not linked to any cited chunk (${citedLabels}) — no marker, no chunk id, and none of the cited text restated, so cited elsewhere or not supported by what was cited: ${quoted}`;
    return { values: { citation_coverage: applicable(covered / sentences.length) }, reason, evidence: [...linkedChunks] };
  },
};
