/**
 * Knowledge-base steps: the evidence is not in the corpus, an old version
 * stands in for it, versions contradict each other. They come before the
 * retrieval steps because a retriever cannot find what is not indexed, and a
 * stale version ranked first is the corpus's fault before the ranker's.
 */
import { chunkLabel, type RetrievedChunk } from "../../contracts/case-result.js";
import { evidenceCoverageOptions } from "../evidence/evidence-coverage-options.js";
import { coverEvidenceWith } from "../evidence/evidence-set-coverage.js";
import { coverOfChunk } from "../evidence/match-evidence.js";
import { citedChunks } from "../rules/citation-evidence.js";
import { RETRIEVAL_K, goldLabel, type AttributionFacts } from "./attribution-facts.js";
import type { RootCauseStep } from "./root-cause-step.js";
import { METRIC } from "../metric-catalog.js";

export const dataMissingStep: RootCauseStep = {
  label: "DATA_MISSING",
  when: "a corpus index was given (ragscope eval --corpus), a gold document is not in it, and no chunk of that document was retrieved (without an index this is reported as RETRIEVAL_MISS)",
  decide(facts) {
    const corpus = facts.options.corpusDocumentIds;
    if (corpus === undefined) return null;
    const seen = new Set([...(facts.retrieved ?? []), ...(facts.preRerank ?? [])].map((chunk) => chunk.document_id));
    const absent = [...new Set(facts.gold.map((trail) => trail.evidence.document_id))].filter((documentId) => !corpus.has(documentId) && !seen.has(documentId));
    if (absent.length === 0) return null;
    const source = facts.options.corpusSource === undefined ? "" : ` (${facts.options.corpusSource})`;
    return { reason: `gold document(s) ${absent.join(", ")} are not in the corpus index${source} and were never retrieved: the knowledge base lacks them`, confidence: "deterministic_rule" };
  },
};

function staleOfDocument(facts: AttributionFacts, documentId: string): RetrievedChunk[] {
  return (facts.retrieved ?? []).filter((chunk) => chunk.document_id === documentId && facts.isStale(chunk));
}

export const dataOutdatedStep: RootCauseStep = {
  label: "DATA_OUTDATED",
  when: "a cited chunk is a version not in force at the case's effective time, or a not-in-force chunk of a gold document was packed or ranks above that evidence's first in-force match",
  decide(facts) {
    if (facts.effectiveAt === null) return null;
    const cited = (citedChunks(facts.caseResult) ?? []).filter((chunk) => facts.isStale(chunk));
    const packedIds = new Set((facts.packed ?? []).flatMap((chunk) => (chunk.chunk_id === null ? [] : [chunk.chunk_id])));
    const displacing = new Map<string, string>();
    const retrieved = facts.retrieved ?? [];
    const options = evidenceCoverageOptions(facts.evalCase);
    for (const trail of facts.gold) {
      // The rank at which the in-force chunks so far cover enough of the evidence; a stale chunk covers nothing.
      const freshCovers = retrieved.map((chunk) => (facts.isStale(chunk) ? { rule: null, covered: null, share: 0 } : coverOfChunk(chunk, trail.evidence)));
      const freshRank = coverEvidenceWith(freshCovers, options).coveredAt ?? Number.POSITIVE_INFINITY;
      for (const chunk of staleOfDocument(facts, trail.evidence.document_id)) {
        if ((chunk.chunk_id !== null && packedIds.has(chunk.chunk_id)) || retrieved.indexOf(chunk) + 1 < freshRank) displacing.set(chunkLabel(chunk), goldLabel(trail));
      }
    }
    if (cited.length === 0 && displacing.size === 0) return null;
    const at = `${facts.effectiveAt.text} (${facts.effectiveAt.source})`;
    const parts = [
      ...cited.map((chunk) => `cited ${chunkLabel(chunk)} was not in force at ${at}`),
      ...[...displacing].map(([chunkId, gold]) => `${chunkId}, a version not in force at ${at}, stands before ${gold}`),
    ];
    return { reason: parts.join("; "), chunkIds: [...new Set([...cited.map(chunkLabel), ...displacing.keys()])], metrics: [METRIC.citation_expired_rate, METRIC.expired_chunk_rate], confidence: "deterministic_rule" };
  },
};

export const dataConflictStep: RootCauseStep = {
  label: "DATA_CONFLICT",
  when: "two different versions of one document, neither known to be out of force, were packed together (or, without a recorded context, both ranked in the top K)",
  decide(facts) {
    const pool = facts.packed ?? facts.retrieved?.slice(0, RETRIEVAL_K) ?? [];
    const versions = new Map<string, Map<string, string>>();
    for (const chunk of pool) {
      if (chunk.document_id === null || chunk.document_version === null || facts.isStale(chunk)) continue;
      const byVersion = versions.get(chunk.document_id) ?? new Map<string, string>();
      if (!byVersion.has(chunk.document_version)) byVersion.set(chunk.document_version, chunkLabel(chunk));
      versions.set(chunk.document_id, byVersion);
    }
    const conflicts = [...versions].filter(([, byVersion]) => byVersion.size >= 2);
    if (conflicts.length === 0) return null;
    return {
      reason: conflicts.map(([documentId, byVersion]) => `${documentId} versions ${[...byVersion.keys()].join(" and ")} both in the ${facts.packed ? "context" : `top ${RETRIEVAL_K}`}`).join("; "),
      chunkIds: conflicts.flatMap(([, byVersion]) => [...byVersion.values()]),
      confidence: "deterministic_rule",
    };
  },
};
