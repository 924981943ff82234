/**
 * Retrieval steps: the evidence was not ranked where the context could take
 * it. K is the K of recall_at_k (5): evidence below it was not found.
 */
import { compactText } from "../text/normalize-text.js";
import { overlapShare } from "../rules/context-text-overlap.js";
import { RETRIEVAL_K, goldLabel, type AttributionFacts, type GoldTrail } from "./attribution-facts.js";
import type { RootCauseStep } from "./root-cause-step.js";
import { chunkLabel } from "../../contracts/case-result.js";
import { METRIC } from "../metric-catalog.js";

function missedByFinalRanking(trail: GoldTrail): boolean {
  return trail.finalRank === null || trail.finalRank > RETRIEVAL_K;
}

function inPreRerankTopK(trail: GoldTrail): boolean {
  return trail.preRerankRank !== null && trail.preRerankRank <= RETRIEVAL_K;
}

/**
 * The trace records no ranking for the original query, so the rewrite is
 * judged by its text: it is bad when retrieval missed evidence and the
 * rewritten query shares fewer token bigrams with the gold evidence text than
 * the user's query did (the rewrite moved away from the evidence).
 */
export const queryRewriteBadStep: RootCauseStep = {
  label: "QUERY_REWRITE_BAD",
  when: "a rewrite was recorded, retrieval missed gold evidence, and the rewritten query is further from the evidence text than the original",
  decide(facts) {
    const { query, rewritten_query: rewritten } = facts.caseResult.rag_observation;
    if (query === null || rewritten === null || compactText(query) === compactText(rewritten) || facts.retrieved === null) return null;
    const missed = facts.gold.filter(missedByFinalRanking);
    const evidenceText = facts.gold.map((trail) => trail.evidence.text ?? "").join("\n");
    if (missed.length === 0 || evidenceText.trim() === "") return null;
    const before = overlapShare(query, evidenceText) ?? 0;
    const after = overlapShare(rewritten, evidenceText) ?? 0;
    if (after >= before) return null;
    return {
      reason: `retrieval missed ${missed.map(goldLabel).join(", ")}; the rewrite "${rewritten}" shares ${after.toFixed(2)} of its bigrams with the evidence, the original "${query}" ${before.toFixed(2)}`,
      metrics: [METRIC.recall_at_k],
      confidence: "heuristic",
    };
  },
};

export const retrievalMissStep: RootCauseStep = {
  label: "RETRIEVAL_MISS",
  when: `gold evidence is not in the top ${RETRIEVAL_K} of the final ranking, nor (when a rerank was recorded) of the first-stage ranking`,
  decide(facts) {
    if (facts.retrieved === null) return null;
    const missed = facts.gold.filter((trail) => missedByFinalRanking(trail) && !inPreRerankTopK(trail));
    if (missed.length === 0) return null;
    const described = missed.map((trail) => `${goldLabel(trail)} ${trail.finalRank === null ? "not retrieved" : `at rank ${trail.finalRank}`}`);
    const neverSeen = missed.filter((trail) => !documentRetrieved(facts, trail.evidence.document_id)).map((trail) => trail.evidence.document_id);
    const note = neverSeen.length > 0 && facts.options.corpusDocumentIds === undefined ? `; no chunk of ${[...new Set(neverSeen)].join(", ")} was retrieved — without a corpus index a missing document cannot be told from a miss (DATA_MISSING)` : "";
    return { reason: `${described.join("; ")}${note}`, metrics: [METRIC.recall_at_k, METRIC.recall_at_5], confidence: "deterministic_rule" };
  },
};

function documentRetrieved(facts: AttributionFacts, documentId: string): boolean {
  return [...(facts.retrieved ?? []), ...(facts.preRerank ?? [])].some((chunk) => chunk.document_id === documentId);
}

/**
 * RERANK_BAD (正确文档排序过低) needs a recorded rerank: evidence the first
 * stage ranked in the top K that the rerank moved out of the top K, or below
 * the packing cut while its first-stage rank was within the number of packed
 * chunks. Without a recorded rerank, evidence ranked but not packed is
 * CONTEXT_TRUNCATED.
 */
export const rerankBadStep: RootCauseStep = {
  label: "RERANK_BAD",
  when: `the first stage ranked gold evidence in the top ${RETRIEVAL_K} and the rerank pushed it out of the top ${RETRIEVAL_K} or below the packing cut`,
  decide(facts) {
    if (facts.preRerank === null || facts.retrieved === null) return null;
    const packedCount = facts.packed?.length ?? null;
    const pushed = facts.gold.filter((trail) => {
      if (!inPreRerankTopK(trail)) return false;
      if (missedByFinalRanking(trail)) return true;
      return packedCount !== null && trail.inContext === false && trail.preRerankRank! <= packedCount;
    });
    if (pushed.length === 0) return null;
    return {
      reason: pushed.map((trail) => `${goldLabel(trail)} was at rank ${trail.preRerankRank} before the rerank and ${trail.finalRank === null ? "dropped by it" : `at rank ${trail.finalRank} after`}${trail.inContext === false ? ", not packed" : ""}`).join("; "),
      chunkIds: pushed.map((trail) => chunkLabel(facts.preRerank![trail.preRerankRank! - 1]!)),
      metrics: [METRIC.rerank_uplift, METRIC.recall_at_k],
      confidence: "deterministic_rule",
    };
  },
};
