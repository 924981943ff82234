/**
 * The chunk-id lists a ragscope span carries (contracts/span-attributes.ts): a
 * context's packed ids (`ragscope.context.chunk_ids`), dropped ids
 * (`…dropped_chunk_ids`, with `…dropped_reasons` aligned) and truncated ids
 * (`…truncated_chunk_ids`), and a citation stage's cited ids
 * (`ragscope.citations.chunk_ids`). An empty id names no chunk: ragscope's
 * LangChain adapter records a Document that has no id with an empty id
 * (instrumentation/adapters/langchain-documents.ts), and other senders may do
 * the same. So it is no id, and each one is noted (kind `unreadable_value`,
 * bounded per span by explain-unread-value.ts) with where it was and what was
 * received, so the stored result says why:
 * - a packed empty id is a chunk packed at that position without an id
 *   (null): it keeps its place (the chunks after it are not moved up) and is
 *   never matched to another chunk. Read as "" it would fail the Case
 *   Result's schema (`context_chunks[].chunk_id` is a non-empty id or null)
 *   and dead-letter the whole request for one missing id;
 * - a cited, dropped or truncated empty id is left out of its list, whose
 *   contract holds ids only (no position to keep). Read as "", an empty
 *   citation was counted against citation accuracy as a chunk "not in the
 *   context", a wrong citation the answer never made; an empty dropped or
 *   truncated id named no chunk either.
 */
import type { Attributes } from "../00-otlp/span-record.js";
import { readStringList } from "./attribute-readers.js";
import type { MalformedAttribute } from "./find-malformed-json.js";

/** The packed chunk ids under `key` (null when the span carries none), an empty one null at its position, and a note for each empty one. */
export function readPackedChunkIds(attributes: Attributes, key: string): { chunkIds: (string | null)[] | null; notes: MalformedAttribute[] } {
  const listed = readStringList(attributes, key);
  if (listed === null) return { chunkIds: null, notes: [] };
  const notes: MalformedAttribute[] = [];
  const chunkIds = listed.map((chunkId, index) => {
    if (chunkId !== "") return chunkId;
    notes.push({
      attribute: key,
      error: `element ${index} is an empty chunk id, which names no chunk: read as a chunk packed at position ${index + 1} without an id (chunk_id null), which no other chunk is matched to`,
    });
    return null;
  });
  return { chunkIds, notes };
}

/**
 * The chunk ids under `key` without its empty ones (null when the span carries none), the index in the list as sent
 * of each id kept, and a note for each empty one. `what` names the list in the notes ("cited chunk ids").
 */
export function readChunkIdsLeavingOutEmpty(
  attributes: Attributes,
  key: string,
  what: string,
): { chunkIds: string[] | null; keptIndexes: number[]; notes: MalformedAttribute[] } {
  const listed = readStringList(attributes, key);
  if (listed === null) return { chunkIds: null, keptIndexes: [], notes: [] };
  const notes: MalformedAttribute[] = [];
  const chunkIds: string[] = [];
  const keptIndexes: number[] = [];
  listed.forEach((chunkId, index) => {
    if (chunkId !== "") {
      chunkIds.push(chunkId);
      keptIndexes.push(index);
      return;
    }
    notes.push({
      attribute: key,
      error: `element ${index} of the ${listed.length} ${what} received is an empty chunk id (""), which names no chunk: left out of the list, never taken for a chunk`,
    });
  });
  return { chunkIds, keptIndexes, notes };
}
