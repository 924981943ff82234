/**
 * Why a retriever span's returned documents were not read, when the span did
 * return something: Traceloop's Python LangChain instrumentation writes each
 * item of a retriever's result as `{page_content, metadata}` when it is a
 * LangChain Document and with Python's `str()` otherwise (a `(document,
 * score)` tuple, an id, a dict), and a list is read whole or not at all
 * (read-documents.ts `readDocumentList`: one document taken for another's place
 * would shift every rank). The retrieval's documents then stay null, "not
 * available"; this names the item that made them so, for the Case Result's
 * `malformed_attributes` (kind `unreadable_value`), so the trace page and the
 * stored result say why rather than look like a retrieval nothing recorded.
 */
import type { MalformedAttribute } from "./find-malformed-json.js";
import { describeValue } from "./explain-unread-value.js";
import { readDocumentList } from "./read-documents.js";

/**
 * @param attribute the attribute the output was read from, e.g. `traceloop.entity.output`
 * @param output the attribute's parsed JSON; null when it is absent or did not parse (find-malformed-json.ts says so then)
 * @returns null when there is nothing to explain: no output, or every item of its `documents` is a document
 */
export function unreadRetrieverDocuments(attribute: string, output: unknown): MalformedAttribute | null {
  if (output === null || output === undefined) return null;
  const list = typeof output === "object" && !Array.isArray(output) ? (output as { documents?: unknown }).documents : undefined;
  if (!Array.isArray(list)) {
    return { attribute, error: `the retriever's output holds no "documents" list (${describeValue(output)}), so the retrieval's documents are not available` };
  }
  const index = list.findIndex((item) => readDocumentList([item]) === null);
  if (index === -1) return null;
  return {
    attribute,
    error:
      `documents[${index}] is ${describeValue(list[index])}, not a LangChain Document ({"page_content", "metadata"}): ` +
      `the retriever returned an item that is no Document, and a retrieval's documents are read all or none, so its ${list.length} documents are not available; ` +
      `return Documents from the retriever (wrap other results in langchain_core.documents.Document) to have them read`,
  };
}
