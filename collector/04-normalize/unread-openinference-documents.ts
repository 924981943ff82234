/**
 * What of an OpenInference document list its reader (read-documents.ts
 * `readDocuments`) could not read, for the Case Result's `malformed_attributes`
 * (kind `unreadable_value`):
 * - in `<prefix>.N.document.*` (`retrieval.documents`, the reranker's lists):
 *   an id that is no text or number, a score that is no number, content that
 *   is no text, metadata that is no JSON object — each read as absent, the
 *   field then taken from the document's other sources or not available — and
 *   a document with neither content nor an id from any source; an index
 *   missing below the highest (the list is then not available:
 *   unread-index-gaps.ts);
 * - in a retriever's JSON `output.value`, where the returned LangChain
 *   documents give ids the attributes lack: an item that is no Document (the
 *   list is read all or none, so none of its ids is used), or, when the span
 *   has no `retrieval.documents` attributes, an output that holds no documents
 *   list at all. Only when it costs something: the span's documents are then
 *   not available, or one of them has no chunk id. LlamaIndex writes its
 *   retrievers' output as `<NodeWithScore(…)>` texts beside attributes that
 *   carry every id: nothing is missing, and nothing is said.
 * A value that is JSON text and does not parse is find-malformed-json.ts's to name.
 */
import { OpenInference } from "../../contracts/span-attributes.js";
import type { Attributes } from "../00-otlp/span-record.js";
import { flattenedIndexes, readNumber, readString } from "./attribute-readers.js";
import type { MalformedAttribute } from "./find-malformed-json.js";
import { describeValue } from "./explain-unread-value.js";
import { parsedJsonValue } from "./parsed-json-value.js";
import { asLangChainDocument, identifier, langChainDocumentFields, parseObject, readOutputDocuments } from "./read-documents.js";
import type { ObservedDocument } from "./stage-observation.js";
import { UNREAD_PARTS_CONSEQUENCE, unreadDocumentFields } from "./unread-document-fields.js";
import { unreadIndexGaps } from "./unread-index-gaps.js";

const present = (value: unknown) => value !== undefined && value !== null;

/**
 * @param documents what readDocuments read from the same attributes, in index order
 * @param droppedBySdk the span's attributes its SDK dropped (attributesDroppedBySdk), for the gap's note
 */
export function unreadAttributeDocuments(attributes: Attributes, prefix: string, documents: readonly ObservedDocument[] | null, droppedBySdk: number): MalformedAttribute[] {
  const notes: MalformedAttribute[] = [...unreadIndexGaps(attributes, [prefix], `the documents of ${prefix} are not available`, droppedBySdk)];
  flattenedIndexes(attributes, prefix).forEach((index, position) => {
    const base = `${prefix}.${index}.`;
    const idKey = `${base}${OpenInference.documentId}`;
    if (present(attributes[idKey]) && identifier(attributes[idKey]) === null) {
      notes.push({ attribute: idKey, error: `is ${describeValue(attributes[idKey])}, not an id (a non-empty text or a number): not read; the chunk id comes from the returned document or the metadata when they carry one, else is not available` });
    }
    const scoreKey = `${base}${OpenInference.documentScore}`;
    if (present(attributes[scoreKey]) && readNumber(attributes, scoreKey) === null) {
      notes.push({ attribute: scoreKey, error: `is ${describeValue(attributes[scoreKey])}, not a number: not read; the score comes from the metadata when it carries one, else is not available` });
    }
    const contentKey = `${base}${OpenInference.documentContent}`;
    if (present(attributes[contentKey]) && readString(attributes, contentKey) === null) {
      notes.push({ attribute: contentKey, error: `is ${describeValue(attributes[contentKey])}, not text: not read; the text comes from the returned document when it is there, else is not available` });
    }
    const metadataKey = `${base}${OpenInference.documentMetadata}`;
    const metadata = parsedJsonValue(attributes, metadataKey);
    if (metadata !== undefined && parseObject(metadata) === null) {
      notes.push({ attribute: metadataKey, error: `is ${describeValue(metadata)}, not a JSON object: not read; the ids, version and times it would give come from the returned document's metadata when it is there, else are not available` });
    }
    const document = documents?.[position];
    if (document !== undefined && document.chunkId === null && document.text === null) {
      notes.push({
        attribute: `${prefix}.${index}`,
        error: `carries neither ${OpenInference.documentContent} nor an id (${OpenInference.documentId}, the returned document's id or its metadata's): the document's text and chunk id are not available`,
      });
    }
  });
  return notes;
}

/** The retriever's returned documents in its JSON `output.value`, when they leave something unread; see the module comment. */
export function unreadOutputDocuments(attributes: Attributes, documents: readonly ObservedDocument[] | null, attributeDocuments: boolean): MalformedAttribute[] {
  if (readString(attributes, OpenInference.outputMimeType) !== "application/json") return [];
  const output = parsedJsonValue(attributes, OpenInference.outputValue);
  if (output === undefined) return [];
  const key = OpenInference.outputValue;
  const listName = Array.isArray(output) ? "" : typeof output === "object" && output !== null ? (["documents", "output"] as const).find((name) => Array.isArray((output as Record<string, unknown>)[name])) : undefined;
  if (listName === undefined) {
    if (attributeDocuments) return [];
    return [{ attribute: key, error: `is ${describeValue(output)}, which holds no list of documents (a list, or one under "documents" or "output"), and the span has no ${OpenInference.retrievalDocumentsPrefix} attributes: the retrieval's documents are not available` }];
  }
  const list = (listName === "" ? output : (output as Record<string, unknown>)[listName]) as unknown[];
  const missing = documents === null || documents.some((document) => document.chunkId === null);
  const unreadIndex = list.findIndex((item) => asLangChainDocument(item) === null);
  if (unreadIndex !== -1) {
    if (!missing) return [];
    return [
      {
        attribute: key,
        error:
          `${listName}[${unreadIndex}] is ${describeValue(list[unreadIndex])}, not a LangChain Document ({"pageContent", "metadata"}): the returned documents are read all or none, so none of its ${list.length} is read` +
          (documents === null ? `; the retrieval's documents are not available` : `; the ids they would give the documents of ${OpenInference.retrievalDocumentsPrefix} are not read`),
      },
    ];
  }
  // Every item a Document: the parts of them that could not be read.
  const notes: MalformedAttribute[] = [];
  (readOutputDocuments(attributes) ?? []).forEach((document, index) => {
    const phrases = unreadDocumentFields(langChainDocumentFields(document), { id: "id", score: "score", text: "pageContent", metadata: "metadata" });
    if (phrases.length > 0) notes.push({ attribute: key, error: `${listName}[${index}]: ${phrases.join("; ")}; ${UNREAD_PARTS_CONSEQUENCE}` });
  });
  return notes;
}
