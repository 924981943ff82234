/**
 * A retrieved or reranked chunk as the application describes it to the SDK, and
 * the run-time check of what an extractor returned.
 */
import { failure, success, type Result } from "../../core/result.js";
import { describeType } from "./describe-type.js";

export interface ChunkRecord {
  chunkId: string;
  documentId?: string;
  documentVersion?: string;
  sectionId?: string;
  text?: string;
  score?: number;
  /** ISO-8601 date or date-time from which this document version is in force. */
  effectiveFrom?: string;
  /** ISO-8601 date or date-time after which this document version is no longer in force. */
  effectiveTo?: string;
  /** Groups allowed to read the chunk; empty or absent means public. */
  acl?: string[];
  tenantId?: string;
}

/** A chunk with its 1-based position in the list the pipeline produced. */
export interface RankedChunk {
  readonly record: ChunkRecord;
  readonly rank: number;
}

export interface ChunkList {
  readonly chunks: RankedChunk[];
  /** Why some elements were left out (no object, no chunk id). */
  readonly rejected: string[];
  /** How many elements the list held, the rejected ones included. */
  readonly length: number;
}

/**
 * Reads a chunk list from an unchecked value. Elements without a chunk id are
 * left out and reported; the others keep their original rank, so a bad element
 * never shifts the ranks of the good ones. Field types are checked later, when
 * the fields become attributes (safe-attributes.ts).
 */
export function readChunkList(value: unknown): Result<ChunkList, string> {
  if (!Array.isArray(value)) return failure(`expected an array of chunk records, got ${describeType(value)}`);
  const chunks: RankedChunk[] = [];
  const rejected: string[] = [];
  value.forEach((element: unknown, index) => {
    if (isChunkRecord(element)) chunks.push({ record: element, rank: index + 1 });
    else rejected.push(`element ${index} is not a chunk record with a non-empty string chunkId`);
  });
  return success({ chunks, rejected, length: value.length });
}

function isChunkRecord(value: unknown): value is ChunkRecord {
  if (typeof value !== "object" || value === null) return false;
  const chunkId = (value as { chunkId?: unknown }).chunkId;
  return typeof chunkId === "string" && chunkId.length > 0;
}
