/**
 * The context the pipeline packed into the prompt, and the run-time check of
 * what an extractor returned.
 */
import { failure, success, type Result } from "../../core/result.js";
import { describeType } from "./describe-type.js";
import { isStringList } from "./string-list.js";

export interface ContextRecord {
  text: string;
  /** Chunk ids packed into the prompt, in prompt order. */
  chunkIds: string[];
  /** Candidates that were cut (budget, deduplication, policy). */
  droppedChunks?: { chunkId: string; reason?: string }[];
  /** Chunks packed only partially (cut mid-text). */
  truncatedChunkIds?: string[];
  tokenCount?: number;
  tokenBudget?: number;
}

/** Reads a context record; `chunkIds` is the one field it cannot do without. */
export function readContextRecord(value: unknown): Result<ContextRecord, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return failure(`expected a context record, got ${describeType(value)}`);
  }
  const chunkIds = (value as { chunkIds?: unknown }).chunkIds;
  if (!isStringList(chunkIds)) return failure("context record has no chunkIds string array");
  // An empty id names no chunk; carried on the span it would fail the Case Result's schema in the collector.
  const empty = chunkIds.indexOf("");
  if (empty >= 0) return failure(`context record's chunkIds has an empty chunk id at element ${empty}: give every packed chunk its id`);
  return success(value as ContextRecord);
}
