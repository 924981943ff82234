/**
 * The SDK's view of a chunk (instrumentation ChunkRecord, camelCase) built from
 * a corpus chunk (snake_case) and the score it got at this stage.
 */
import type { ChunkRecord } from "../../../instrumentation/index.js";
import type { RankedChunk } from "./lexical-retriever.js";

export function toChunkRecord(ranked: RankedChunk): ChunkRecord {
  const { chunk } = ranked;
  const record: ChunkRecord = {
    chunkId: chunk.chunk_id,
    documentId: chunk.document_id,
    documentVersion: chunk.document_version,
    sectionId: chunk.section_id,
    text: chunk.text,
    score: ranked.score,
    effectiveFrom: chunk.effective_from,
    acl: [...chunk.acl],
    tenantId: chunk.tenant_id,
  };
  if (chunk.effective_to !== null) record.effectiveTo = chunk.effective_to;
  return record;
}

export function toChunkRecords(ranked: readonly RankedChunk[]): ChunkRecord[] {
  return ranked.map(toChunkRecord);
}
