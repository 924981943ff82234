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
  // An empty id names no chunk: the collector would read it as a packed chunk without an id. An application that builds
  // the record knows the ids of the chunks it packed, so an empty one is a mistake in that record, said here. (The
  // LangChain adapter records a Document without an id with an empty id on purpose, without this check.)
  const empty = chunkIds.indexOf("");
  if (empty >= 0) return failure(`context record's chunkIds has an empty chunk id at element ${empty}: give every packed chunk its id`);
  return success(value as ContextRecord);
}
