/** Run-time check for the chunk id lists extractors return (citations, context). */
import { failure, success, type Result } from "../../core/result.js";
import { describeType } from "./describe-type.js";

export function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

export function readChunkIds(value: unknown): Result<string[], string> {
  if (isStringList(value)) {
    const empty = value.indexOf("");
    return empty < 0 ? success(value) : failure(`expected an array of chunk id strings, got an empty chunk id at element ${empty}: give every cited chunk its id`);
  }
  if (!Array.isArray(value)) return failure(`expected an array of chunk id strings, got ${describeType(value)}`);
  // Which element, as the retrieval's check names it: "got an array" said nothing about what was wrong in it.
  const index = value.findIndex((item) => typeof item !== "string");
  const element: unknown = value[index];
  const hint = typeof element === "object" && element !== null && typeof (element as { chunkId?: unknown }).chunkId === "string" ? " (a chunk record: give its chunkId)" : "";
  return failure(`expected an array of chunk id strings, got ${describeType(element)} at element ${index}${hint}`);
}
