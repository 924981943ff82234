/**
 * Typed reads of span attribute values. Producers differ (numbers sent as
 * strings by some exporters, string arrays as JSON strings by others), so each
 * reader accepts the forms seen in the wild and returns null otherwise.
 */
import type { AttributeValue, Attributes } from "../00-otlp/span-record.js";

export function readString(attributes: Attributes, key: string): string | null {
  const value = attributes[key];
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

export function readNumber(attributes: Attributes, key: string): number | null {
  return toNumber(attributes[key]);
}

export function toNumber(value: AttributeValue | undefined): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string" && value.trim() !== "") {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

export function readBoolean(attributes: Attributes, key: string): boolean | null {
  const value = attributes[key];
  if (typeof value === "boolean") return value;
  if (value === "true") return true;
  if (value === "false") return false;
  return null;
}

export function readStringList(attributes: Attributes, key: string): string[] | null {
  return toStringList(attributes[key]);
}

export function toStringList(value: AttributeValue | undefined): string[] | null {
  if (Array.isArray(value)) return value.filter((item) => item !== null).map((item) => (typeof item === "string" ? item : JSON.stringify(item)));
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (trimmed.startsWith("[")) {
      try {
        const parsed: unknown = JSON.parse(trimmed);
        if (Array.isArray(parsed)) return parsed.map((item) => String(item));
      } catch {
        // Not JSON: fall through and treat it as a single value.
      }
    }
    return trimmed === "" ? [] : [value];
  }
  return null;
}

/** Parses a JSON-string attribute (OpenInference `metadata`, `document.metadata`). */
export function readJsonObject(attributes: Attributes, key: string): Record<string, unknown> | null {
  const value = attributes[key];
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  if (typeof value !== "string") return null;
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Indexes present under a flattened list prefix, found once a span for all its lists; the array is shared, not to be changed. */
export { flattenedIndexes } from "./flattened-list-indexes.js";

/** The indexes a flattened list lacks below its highest, as `indexGaps` counts them. */
export interface IndexGaps {
  /** How many indexes from 0 to the highest are missing. */
  missing: number;
  /** The first of them, at most `listed`, ascending. */
  first: number[];
  /** The highest index present; -1 for no index. */
  highest: number;
}

/**
 * The gaps of a flattened list: which indexes from 0 up to its highest are not there, for `indexes` sorted
 * ascending (flattenedIndexes). A gap is an item the span does not carry — one its SDK dropped at the attribute count
 * limit, or that was never written — and reading the list without it would move every item after it up a place.
 * Counted, not enumerated: an index of 10^9 costs no loop of 10^9.
 */
export function indexGaps(indexes: readonly number[], listed = 5): IndexGaps {
  const first: number[] = [];
  let missing = 0;
  let expected = 0;
  for (const index of indexes) {
    if (index > expected) {
      missing += index - expected;
      for (let absent = expected; absent < index && first.length < listed; absent += 1) first.push(absent);
    }
    expected = index + 1;
  }
  return { missing, first, highest: indexes.at(-1) ?? -1 };
}

/** Parses a JSON-string attribute holding an array (`gen_ai.retrieval.documents`, `gen_ai.output.messages`). */
export function readJsonArray(attributes: Attributes, key: string): unknown[] | null {
  const value = attributes[key];
  if (Array.isArray(value)) return value;
  if (typeof value !== "string") return null;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** Parses any JSON-string attribute; null when absent or not JSON. */
export function readJson(attributes: Attributes, key: string): unknown {
  const value = attributes[key];
  if (typeof value !== "string") return value ?? null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return null;
  }
}
