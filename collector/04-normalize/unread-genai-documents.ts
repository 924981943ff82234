/**
 * What of an OTel GenAI retrieval's `gen_ai.retrieval.documents` its reader
 * (otel-genai-mapper.ts) could not read, for the Case Result's
 * `malformed_attributes` (kind `unreadable_value`): a value that is no list
 * (the retrieval's documents are then not available), an item that is no
 * document object (the retrieval's documents are then not available: leaving
 * it out would move each document after it up one rank), a document's id,
 * score, content or metadata
 * that cannot be read (unread-document-fields.ts), a document with neither an
 * id nor content. The convention's document is `{"id", "score"}`; content
 * (`content`, else `text`) and `metadata` are what instrumentations add.
 */
import type { Attributes } from "../00-otlp/span-record.js";
import type { MalformedAttribute } from "./find-malformed-json.js";
import { describeValue } from "./explain-unread-value.js";
import { parsedJsonValue } from "./parsed-json-value.js";
import { toObservedDocument } from "./read-documents.js";
import { UNREAD_PARTS_CONSEQUENCE, unreadDocumentFields } from "./unread-document-fields.js";

export function unreadGenAiDocuments(attributes: Attributes, key: string): MalformedAttribute[] {
  const value = parsedJsonValue(attributes, key);
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    return [{ attribute: key, error: `is ${describeValue(value)}, not a list of documents ([{"id", "score"}]): the retrieval's documents are not available` }];
  }
  const notes: MalformedAttribute[] = [];
  value.forEach((item, index) => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      notes.push({
        attribute: key,
        error:
          `[${index}] is ${describeValue(item)}, not a document object ({"id", "score"}): the retrieval's ${value.length} documents are not available (without it, each document after it would be ranked one place higher than recorded)`,
      });
      return;
    }
    const document = item as Record<string, unknown>;
    const textName = document.content !== undefined && document.content !== null ? "content" : "text";
    const fields = { id: document.id, score: document.score, text: document[textName], metadata: document.metadata };
    const phrases = unreadDocumentFields(fields, { id: "id", score: "score", text: textName, metadata: "metadata" });
    const read = toObservedDocument(fields);
    if (read.chunkId === null && read.text === null) phrases.push(`it has neither an id nor content (its keys: ${describeValue(document)}), so its chunk id and text are not available`);
    if (phrases.length > 0) notes.push({ attribute: key, error: `[${index}]: ${phrases.join("; ")}; ${UNREAD_PARTS_CONSEQUENCE}` });
  });
  return notes;
}
