/**
 * The indexes of every flattened list on a span's attributes, found in one
 * pass over its keys and kept for as long as the attributes object lives.
 *
 * A span's readers ask for the indexes of a list many times — a retrieval
 * span's documents are read by the document reader, the gap and cut checks
 * and the unread-documents check, for two prefixes each — and each question
 * used to scan every key of the span. One pass now records, for each key, every
 * place where a segment of digits follows a prefix (`llm.input_messages.0.
 * message.contents.1.…` lists index 0 under `llm.input_messages` and index 1
 * under `llm.input_messages.0.message.contents`), which is the same answer the
 * scan gave for any prefix.
 *
 * Keyed by the attributes object (a WeakMap, so nothing outlives its span).
 * Attributes are not changed once decoded (the tenant key is set while
 * decoding, before any reader runs), so the answer cannot go stale.
 */
import type { Attributes } from "../00-otlp/span-record.js";

const NO_INDEXES: readonly number[] = Object.freeze([]);

const listsByAttributes = new WeakMap<Attributes, ReadonlyMap<string, readonly number[]>>();

/** Indexes present under a flattened list prefix, sorted ascending: for `retrieval.documents`, the N of every `retrieval.documents.N…` key. */
export function flattenedIndexes(attributes: Attributes, prefix: string): readonly number[] {
  let lists = listsByAttributes.get(attributes);
  if (lists === undefined) {
    lists = indexEveryList(attributes);
    listsByAttributes.set(attributes, lists);
  }
  return lists.get(prefix) ?? NO_INDEXES;
}

function indexEveryList(attributes: Attributes): ReadonlyMap<string, readonly number[]> {
  const found = new Map<string, Set<number>>();
  for (const key of Object.keys(attributes)) {
    // A segment counts when a prefix (one segment or more) comes before it: the key's first segment is never an index.
    let segmentStart = key.indexOf(".") + 1;
    while (segmentStart > 0) {
      const nextDot = key.indexOf(".", segmentStart);
      const segmentEnd = nextDot === -1 ? key.length : nextDot;
      if (segmentEnd > segmentStart && allDigits(key, segmentStart, segmentEnd)) {
        const prefix = key.slice(0, segmentStart - 1);
        let indexes = found.get(prefix);
        if (indexes === undefined) found.set(prefix, (indexes = new Set()));
        indexes.add(Number(key.slice(segmentStart, segmentEnd)));
      }
      segmentStart = nextDot + 1;
    }
  }
  const lists = new Map<string, readonly number[]>();
  for (const [prefix, indexes] of found) lists.set(prefix, Object.freeze([...indexes].sort((left, right) => left - right)));
  return lists;
}

function allDigits(text: string, start: number, end: number): boolean {
  for (let position = start; position < end; position += 1) {
    const code = text.charCodeAt(position);
    if (code < 48 || code > 57) return false;
  }
  return true;
}
