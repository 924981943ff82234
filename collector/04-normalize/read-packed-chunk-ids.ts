/**
 * The chunk ids a context span packed, in prompt order, with an empty id read
 * as a packed chunk without an id (null). ragscope's LangChain adapter records
 * a Document that has no id with an empty id (instrumentation/adapters/
 * langchain-documents.ts), and other senders may do the same: an empty text
 * names no chunk, so it is no id, but the chunk was packed at that position.
 * Read as null it keeps its place (the chunks after it are not moved up) and
 * is never matched to another chunk; read as "" it would fail the Case
 * Result's schema (`context_chunks[].chunk_id` is a non-empty id or null) and
 * dead-letter the whole request for one missing id. Each empty id is noted
 * (kind `unreadable_value`, bounded per span by explain-unread-value.ts), so
 * the stored result says why that chunk has no id.
 */
import type { Attributes } from "../00-otlp/span-record.js";
import { readStringList } from "./attribute-readers.js";
import type { MalformedAttribute } from "./find-malformed-json.js";

/** The packed chunk ids under `key` (null when the span carries none), and a note for each empty one. */
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
