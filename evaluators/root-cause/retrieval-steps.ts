/**
 * Retrieval steps: the evidence was not ranked where the context could take
 * it. K is the K of recall_at_k (5): evidence below it was not found.
 */
import { compactText } from "../text/normalize-text.js";
import { overlapShare } from "../rules/context-text-overlap.js";
import { answerLayerFailed, HEURISTIC_READING, RETRIEVAL_K, goldLabel, type AttributionFacts, type GoldTrail } from "./attribution-facts.js";
import { followedDistractor } from "./followed-distractor.js";
import type { RootCauseFinding } from "./root-cause-attribution.js";
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
      reason: `${HEURISTIC_READING} retrieval missed ${missed.map(goldLabel).join(", ")}; the rewrite "${rewritten}" shares ${after.toFixed(2)} of its bigrams with the evidence, the original "${query}" ${before.toFixed(2)}`,
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
    const note = neverSeen.length > 0 && facts.options.corpusDocumentIds === undefined ? `; no chunk of ${[...new Set(neverSeen)].join(", ")} was retrieved — without a corpus index (ragscope eval --corpus) a document missing from the knowledge base cannot be told from a miss (DATA_MISSING)` : "";
    return { reason: `${described.join("; ")}${note}`, metrics: [METRIC.recall_at_k, METRIC.recall_at_5], confidence: "deterministic_rule" };
  },
};

function documentRetrieved(facts: AttributionFacts, documentId: string): boolean {
  return [...(facts.retrieved ?? []), ...(facts.preRerank ?? [])].some((chunk) => chunk.document_id === documentId);
}

/**
 * RERANK_BAD (正确文档排序过低) needs a recorded rerank that ranked gold
 * evidence lower than the first stage did. Two ways:
 * - pushed out: the first stage ranked it in the top K and the rerank moved
 *   it out of the top K, or below the packing cut — its new rank is past the
 *   number of packed chunks while its first-stage rank was within it, and it
 *   was not packed. Evidence that kept its place and was packed but cut is
 *   CONTEXT_TRUNCATED, not this;
 * - buried: all gold evidence reached the context and the answer failed,
 *   following a distractor (followed-distractor.ts, a text-overlap reading)
 *   that the rerank moved from below a piece of gold evidence to above it.
 * Without a recorded rerank, evidence ranked but not packed is
 * CONTEXT_TRUNCATED.
 */
export const rerankBadStep: RootCauseStep = {
  label: "RERANK_BAD",
  when: `the first stage ranked gold evidence in the top ${RETRIEVAL_K} and the rerank pushed it out of the top ${RETRIEVAL_K} or below the packing cut; or the rerank moved a distractor from below the gold evidence to above it and the failed answer follows that distractor`,
  decide(facts) {
    if (facts.preRerank === null || facts.retrieved === null) return null;
    return pushedOut(facts) ?? buriedByRerank(facts);
  },
};

function describeMove(trail: GoldTrail): string {
  return `${goldLabel(trail)} was at rank ${trail.preRerankRank} before the rerank and ${trail.finalRank === null ? "dropped by it" : `at rank ${trail.finalRank} after`}`;
}

function pushedOut(facts: AttributionFacts): RootCauseFinding | null {
  const packedCount = facts.packed?.length ?? null;
  const packedIds = new Set((facts.packed ?? []).map((chunk) => chunk.chunk_id).filter((id) => id !== null));
  const pushed = facts.gold.filter((trail) => {
    if (!inPreRerankTopK(trail)) return false;
    if (missedByFinalRanking(trail)) return true;
    if (packedCount === null || trail.inContext !== false || trail.preRerankRank! > packedCount || trail.finalRank! <= packedCount) return false;
    const chunkId = facts.retrieved![trail.finalRank! - 1]?.chunk_id ?? null;
    return chunkId === null || !packedIds.has(chunkId);
  });
  if (pushed.length === 0) return null;
  return {
    reason: pushed.map((trail) => `${describeMove(trail)}${trail.inContext === false ? `, below the ${packedCount} packed chunk${packedCount === 1 ? "" : "s"}, not packed` : ""}`).join("; "),
    chunkIds: pushed.map((trail) => chunkLabel(facts.preRerank![trail.preRerankRank! - 1]!)),
    metrics: [METRIC.rerank_uplift, METRIC.recall_at_k],
    confidence: "deterministic_rule",
  };
}

/** The 1-based rank of a chunk id in a ranking, or null. */
function rankOf(chunks: readonly { chunk_id: string | null }[], chunkId: string | null): number | null {
  if (chunkId === null) return null;
  const index = chunks.findIndex((chunk) => chunk.chunk_id === chunkId);
  return index === -1 ? null : index + 1;
}

function buriedByRerank(facts: AttributionFacts): RootCauseFinding | null {
  const failedAnswer = answerLayerFailed(facts);
  if (facts.gold.length === 0 || !facts.gold.every((trail) => trail.inContext === true) || failedAnswer.length === 0) return null;
  const followed = followedDistractor(facts);
  if (followed === null) return null;
  const before = rankOf(facts.preRerank!, followed.distractor.chunk_id);
  const after = rankOf(facts.retrieved!, followed.distractor.chunk_id);
  if (before === null || after === null) return null;
  const overtaken = facts.gold.filter((trail) => trail.preRerankRank !== null && trail.finalRank !== null && trail.preRerankRank < before && trail.finalRank > after);
  if (overtaken.length === 0) return null;
  const distractor = chunkLabel(followed.distractor);
  return {
    reason: `${HEURISTIC_READING} ${overtaken.map(describeMove).join("; ")}, and the rerank moved ${distractor} from rank ${before} to ${after}, above it; the answer follows ${distractor} (${followed.share.toFixed(2)} of its bigrams) more than the evidence${followed.evidence ? ` ${chunkLabel(followed.evidence)} (${followed.evidenceShare.toFixed(2)})` : ""}; failed: ${failedAnswer.map((result) => result.evaluator_id).join(", ")}`,
    chunkIds: [distractor, ...overtaken.map((trail) => chunkLabel(facts.retrieved![trail.finalRank! - 1]!))],
    metrics: [METRIC.rerank_uplift, METRIC.ndcg_at_10],
    confidence: "heuristic",
  };
}
