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
import { readDocumentList } from "./read-documents.js";

/** How much of an item the reason quotes: enough to recognise it (a Python repr begins with its type), bounded for any span. */
const QUOTED_CHARACTERS = 120;
/** How many of an object item's keys the reason names. */
const NAMED_KEYS = 8;

/**
 * @param attribute the attribute the output was read from, e.g. `traceloop.entity.output`
 * @param output the attribute's parsed JSON; null when it is absent or did not parse (find-malformed-json.ts says so then)
 * @returns null when there is nothing to explain: no output, or every item of its `documents` is a document
 */
export function unreadRetrieverDocuments(attribute: string, output: unknown): MalformedAttribute | null {
  if (output === null || output === undefined) return null;
  const list = typeof output === "object" && !Array.isArray(output) ? (output as { documents?: unknown }).documents : undefined;
  if (!Array.isArray(list)) {
    return { attribute, error: `the retriever's output holds no "documents" list (${describeItem(output)}), so the retrieval's documents are not available` };
  }
  const index = list.findIndex((item) => readDocumentList([item]) === null);
  if (index === -1) return null;
  return {
    attribute,
    error:
      `documents[${index}] is ${describeItem(list[index])}, not a LangChain Document ({"page_content", "metadata"}): ` +
      `the retriever returned an item that is no Document, and a retrieval's documents are read all or none, so its ${list.length} documents are not available; ` +
      `return Documents from the retriever (wrap other results in langchain_core.documents.Document) to have them read`,
  };
}

function describeItem(item: unknown): string {
  if (typeof item === "string") return `the text ${JSON.stringify(quoted(item))}`;
  if (item === null) return "null";
  if (Array.isArray(item)) return `a list of ${item.length} items`;
  if (typeof item === "object") {
    const keys = Object.keys(item);
    if (keys.length === 0) return "an empty object";
    return `an object with the keys ${quoted(keys.slice(0, NAMED_KEYS).map((key) => JSON.stringify(key)).join(", "))}${keys.length > NAMED_KEYS ? ` and ${keys.length - NAMED_KEYS} more` : ""}`;
  }
  return `the ${typeof item} ${quoted(String(item))}`;
}

/** The text cut to QUOTED_CHARACTERS code points, marked when cut. */
function quoted(text: string): string {
  const characters = [...text];
  return characters.length <= QUOTED_CHARACTERS ? text : `${characters.slice(0, QUOTED_CHARACTERS).join("")}…`;
}
