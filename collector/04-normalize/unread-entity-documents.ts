/**
 * What of a Traceloop chain step's documents its reader (openllmetry-mapper.ts
 * `readEntityDocuments`) could not read, for the Case Result's
 * `malformed_attributes` (kind `unreadable_value`). Traceloop's JS LangChain
 * instrumentation has no retriever callback: a retrieval is seen only as a
 * step that returned a list of LangChain Documents (or `[Document, score]`
 * pairs), and the formatting step as one given such a list. The list is read
 * all or none (read-documents.ts `readDocumentList`: one document taken for
 * another's place would shift every rank), so a list that holds documents
 * beside an item that is none is not read, and the step is no retrieval or
 * context: this names the item. A list with no document in it is some other
 * step's value, and nothing is said about it. The list is one JSON attribute,
 * kept or dropped whole by an SDK's attribute count limit, so it is never cut
 * at its end (unread-cut-list.ts).
 */
import type { MalformedAttribute } from "./find-malformed-json.js";
import { describeValue } from "./explain-unread-value.js";
import { asLangChainDocument, readDocumentList, type DocumentFields } from "./read-documents.js";
import { UNREAD_PARTS_CONSEQUENCE, unreadDocumentFields } from "./unread-document-fields.js";

/** What each direction's list would have been read as. */
const LOST = {
  output: "so this step is not read as a retrieval: its documents are not available",
  input: "so this step is not read as the context assembly: its packed chunks are not available",
} as const;

/**
 * @param attribute `traceloop.entity.output` or `.input`
 * @param value the step's value in it (read-traceloop-entity.ts `entityValue`)
 * @returns null unless the value is a list holding both documents and an item that is none
 */
export function unreadEntityDocumentList(attribute: string, value: unknown, direction: "input" | "output"): MalformedAttribute | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const readable = value.map((item) => readDocumentList([item]) !== null);
  const unreadIndex = readable.indexOf(false);
  if (unreadIndex === -1 || !readable.includes(true)) return null;
  const documents = readable.filter(Boolean).length;
  return {
    attribute,
    error:
      `the step's ${direction === "output" ? "returned" : "given"} list: [${unreadIndex}] is ${describeItem(value[unreadIndex])}, not a LangChain Document ({"pageContent", "metadata"}) nor a [Document, score] pair, ` +
      `beside ${documents} of its ${value.length} items that are; a step's documents are read all or none, ${LOST[direction]}`,
  };
}

/**
 * The item in words; a pair of a Document and something else by what its second part is, which says more than "a
 * list of 2 items". A score of null is what `JSON.stringify` writes for NaN and for infinities.
 */
function describeItem(item: unknown): string {
  if (Array.isArray(item) && item.length === 2 && asLangChainDocument(item[0]) !== null) {
    return `a Document paired with ${describeValue(item[1])}${item[1] === null ? " (JSON.stringify writes a score of NaN or Infinity as null)" : ""} where a score was expected`;
  }
  return describeValue(item);
}

/** The parts of read documents that could not be read (an id that is no id, metadata that is no object), one note per document. */
export function unreadEntityDocumentFields(attribute: string, records: readonly DocumentFields[]): MalformedAttribute[] {
  return records.flatMap((record, index) => {
    const phrases = unreadDocumentFields(record, { id: "id", score: "score", text: "page content", metadata: "metadata" });
    return phrases.length === 0 ? [] : [{ attribute, error: `document [${index}]: ${phrases.join("; ")}; ${UNREAD_PARTS_CONSEQUENCE}` }];
  });
}
