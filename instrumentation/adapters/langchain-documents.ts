/**
 * LangChain `Document`s as ranked chunks. LangChain keeps a chunk's ids in
 * `metadata` under names each loader or store chooses; these are the common
 * ones. A document that carries no id keeps its rank and text with an empty
 * chunk id — "not recorded" — so the collector can still match it to gold
 * evidence by text; an id is never made up.
 */
import type { ChunkRecord, RankedChunk } from "../records/chunk-record.js";

interface DocumentLike {
  pageContent?: unknown;
  metadata?: unknown;
  id?: unknown;
}

const keys = {
  chunkId: ["chunk_id", "chunkId", "id"],
  documentId: ["document_id", "documentId", "doc_id", "source_id", "source"],
  documentVersion: ["document_version", "documentVersion", "version"],
  sectionId: ["section_id", "sectionId", "section"],
  score: ["score", "relevance_score", "relevanceScore", "similarity"],
  effectiveFrom: ["effective_from", "effectiveFrom", "valid_from"],
  effectiveTo: ["effective_to", "effectiveTo", "valid_to"],
  tenantId: ["tenant_id", "tenantId", "tenant"],
} as const;

export function isDocumentList(value: unknown): value is DocumentLike[] {
  return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "object" && item !== null && typeof (item as DocumentLike).pageContent === "string");
}

export function toRankedChunks(documents: readonly unknown[]): RankedChunk[] {
  return documents.flatMap((item, index) => {
    if (typeof item !== "object" || item === null) return [];
    return [{ record: toChunkRecord(item as DocumentLike), rank: index + 1 }];
  });
}

export function toChunkRecord(document: DocumentLike): ChunkRecord {
  const metadata = typeof document.metadata === "object" && document.metadata !== null ? (document.metadata as Record<string, unknown>) : {};
  const text = (names: readonly string[]) => {
    for (const name of names) {
      const value = metadata[name];
      if (typeof value === "string" && value !== "") return value;
      if (typeof value === "number" && Number.isFinite(value)) return String(value);
    }
    return undefined;
  };
  const score = keys.score.map((name) => metadata[name]).find((value): value is number => typeof value === "number" && Number.isFinite(value));
  const acl = metadata.acl;
  return {
    chunkId: text(keys.chunkId) ?? (typeof document.id === "string" ? document.id : ""),
    documentId: text(keys.documentId),
    documentVersion: text(keys.documentVersion),
    sectionId: text(keys.sectionId),
    text: typeof document.pageContent === "string" ? document.pageContent : undefined,
    score,
    effectiveFrom: text(keys.effectiveFrom),
    effectiveTo: text(keys.effectiveTo),
    acl: Array.isArray(acl) && acl.every((group) => typeof group === "string") ? acl : undefined,
    tenantId: text(keys.tenantId),
  };
}
