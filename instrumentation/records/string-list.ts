/** Run-time check for the chunk id lists extractors return (citations, context). */
import { failure, success, type Result } from "../../core/result.js";
import { describeType } from "./describe-type.js";

export function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

export function readChunkIds(value: unknown): Result<string[], string> {
  return isStringList(value) ? success(value) : failure(`expected an array of chunk id strings, got ${describeType(value)}`);
}
