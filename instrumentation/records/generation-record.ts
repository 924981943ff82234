/**
 * What the generator produced, and the run-time check of what an extractor
 * returned.
 */
import { failure, success, type Result } from "../../core/result.js";
import { describeType } from "./describe-type.js";

export interface GenerationRecord {
  /** The answer text. */
  text: string;
  inputTokens?: number;
  outputTokens?: number;
  /** Total cost in USD. */
  cost?: number;
  timeToFirstTokenMs?: number;
  /** The answer declines to answer (insufficient evidence). */
  abstained?: boolean;
}

/** Reads a generation record; `text` is the one field it cannot do without. */
export function readGenerationRecord(value: unknown): Result<GenerationRecord, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return failure(`expected a generation record, got ${describeType(value)}`);
  }
  if (typeof (value as { text?: unknown }).text !== "string") return failure("generation record has no text string");
  return success(value as GenerationRecord);
}
