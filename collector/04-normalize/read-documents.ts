/**
 * Reads the documents a retrieval or rerank span recorded, whatever the
 * convention, into ObservedDocuments. Every field is taken from the first
 * source that carries it, in one documented order (collector/04-normalize/
 * README.md, "Document fields"); a field no source carries is null. Nothing is
 * ever taken from another document: each document is read from its own
 * attributes, its own entry in the span's output documents and its own
 * metadata only.
 *
 * Sources, for document N of a span:
 * 1. ragscope's `<ragscope prefix>.N.<field>` (document version, effective
 *    time, ACL…), which no convention carries;
 * 2. OpenInference's `<prefix>.N.document.{id,content,score}`;
 * 3. the same document in the span's output (`output.value`, the retriever's
 *    returned LangChain documents `{ id, pageContent, metadata }`, in Python
 *    `{ id, page_content, metadata }`: Arize's
 *    LangChain instrumentation writes content and metadata as attributes but
 *    the LangChain `Document.id` only there);
 * 4. the document's metadata (`document.metadata` JSON, else the output
 *    document's `metadata`), under the keys frameworks use (`metadataKeys`).
 * A structured record (GenAI's `{ id, score, content, metadata }`, an
 * OpenLLMetry `db.query.result` event, a LangChain document in a chain's
 * input) goes through the same precedence from step 2 on (toObservedDocument),
 * so the chunk ids of retrieved and packed documents agree.
 */
import { DocumentField, OpenInference } from "../../contracts/span-attributes.js";
import type { Attributes } from "../00-otlp/span-record.js";
import { flattenedIndexes, indexGaps, readJson, readJsonObject, readNumber, readString, readStringList, toNumber } from "./attribute-readers.js";
import type { ObservedDocument } from "./stage-observation.js";

/** Metadata keys read for each field, in order. Exported for the README's table (documents-precedence test). */
export const metadataKeys = {
  chunkId: ["chunk_id", "chunkId", "id"],
  documentId: ["document_id", "documentId", "doc_id", "source_id", "source"],
  documentVersion: ["document_version", "documentVersion", "version"],
  sectionId: ["section_id", "sectionId", "section"],
  score: ["score", "relevance_score", "similarity_score"],
  effectiveFrom: ["effective_from", "effective_time", "valid_from"],
  effectiveTo: ["effective_to", "valid_to", "expires_at"],
  tenantId: ["tenant_id", "tenant"],
} as const;

/** What a structured document record names its parts (GenAI's `{ id, score, … }`, LangChain's `{ id, pageContent, metadata }`). */
export interface DocumentFields {
  id?: unknown;
  score?: unknown;
  text?: unknown;
  metadata?: unknown;
}

/** The value as an id: a non-empty text, or a finite number as text; null otherwise. */
export function identifier(value: unknown): string | null {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return null;
}

function fromMetadata(metadata: Record<string, unknown> | null, keys: readonly string[]): string | null {
  if (!metadata) return null;
  for (const key of keys) {
    const value = identifier(metadata[key]);
    if (value !== null) return value;
  }
  return null;
}

function scoreFromMetadata(metadata: Record<string, unknown> | null): number | null {
  if (!metadata) return null;
  for (const key of metadataKeys.score) {
    const value = metadata[key];
    const score = toNumber(typeof value === "number" || typeof value === "string" ? value : undefined);
    if (score !== null) return score;
  }
  return null;
}

function aclFromMetadata(metadata: Record<string, unknown> | null): string[] | null {
  const value = metadata?.acl;
  return Array.isArray(value) ? value.map(String) : null;
}

/** The value as a score: a finite number, or text that is one; null otherwise. */
export function toScore(value: unknown): number | null {
  return toNumber(typeof value === "number" || typeof value === "string" ? value : undefined);
}

/**
 * One document from a structured record, following the precedence of the
 * module comment from step 2 on: the record's own id, score and text, then
 * its metadata.
 */
export function toObservedDocument(fields: DocumentFields): ObservedDocument {
  const metadata = parseObject(fields.metadata);
  return {
    chunkId: identifier(fields.id) ?? fromMetadata(metadata, metadataKeys.chunkId),
    documentId: fromMetadata(metadata, metadataKeys.documentId),
    documentVersion: fromMetadata(metadata, metadataKeys.documentVersion),
    sectionId: fromMetadata(metadata, metadataKeys.sectionId),
    text: typeof fields.text === "string" ? fields.text : null,
    score: toScore(fields.score) ?? scoreFromMetadata(metadata),
    effectiveFrom: fromMetadata(metadata, metadataKeys.effectiveFrom),
    effectiveTo: fromMetadata(metadata, metadataKeys.effectiveTo),
    acl: aclFromMetadata(metadata),
    tenantId: fromMetadata(metadata, metadataKeys.tenantId),
  };
}

/** A LangChain document as it appears in a span's JSON input or output, its text under LangChain.js's name. */
export interface LangChainDocument {
  pageContent: string;
  metadata?: unknown;
  id?: unknown;
  score?: unknown;
}

/**
 * The value as a LangChain document, or null when it is none. LangChain.js
 * serialises a Document as `{ pageContent, metadata, id }`; Python LangChain
 * (pydantic) as `{ id, metadata, page_content, type: "Document" }`
 * (test/probe: openinference-instrumentation-langchain 0.1.80 on langchain-core 1.8);
 * LangChain's own serialisation (`Document.to_json()`, which Traceloop's
 * Python instrumentation writes into a chain step's input and output) as
 * `{ lc: 1, type: "constructor", id: [..., "Document"], kwargs: { id, page_content, metadata } }`
 * (test/golden/traces/langchain-python-traceloop), read from its `kwargs`.
 */
export function asLangChainDocument(value: unknown): LangChainDocument | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const record = (serialisedDocumentFields(value) ?? value) as { pageContent?: unknown; page_content?: unknown; metadata?: unknown; id?: unknown; score?: unknown };
  const text = typeof record.pageContent === "string" ? record.pageContent : typeof record.page_content === "string" ? record.page_content : null;
  return text === null ? null : { pageContent: text, metadata: record.metadata, id: record.id, score: record.score };
}

/**
 * The constructor arguments of a Document in LangChain's serialised form, or
 * null when the value is not one: `lc` 1, `type` "constructor", a class path
 * ending in `Document`, and its `kwargs` an object. Only a Document's: other
 * serialised classes (messages, prompt values) are no documents.
 */
function serialisedDocumentFields(value: object): object | null {
  const serialised = value as { lc?: unknown; type?: unknown; id?: unknown; kwargs?: unknown };
  if (serialised.lc !== 1 || serialised.type !== "constructor" || !Array.isArray(serialised.id) || serialised.id.at(-1) !== "Document") return null;
  const fields = serialised.kwargs;
  return typeof fields === "object" && fields !== null && !Array.isArray(fields) ? fields : null;
}

/** Every item of the list as a LangChain document; null when the list is empty or any item is none. */
export function asLangChainDocuments(list: readonly unknown[]): LangChainDocument[] | null {
  const documents = list.map(asLangChainDocument);
  return documents.length > 0 && documents.every((document) => document !== null) ? (documents as LangChainDocument[]) : null;
}

/** A LangChain document's fields, for toObservedDocument. */
export function langChainDocumentFields(document: LangChainDocument): DocumentFields {
  return { id: document.id, text: document.pageContent, metadata: document.metadata, score: document.score };
}

/**
 * A JSON list of LangChain documents as a chain step passed or returned it —
 * the documents themselves, or `[document, score]` pairs (what a vector
 * store's `similaritySearchWithScore` returns) — as document records: the
 * pair's score is the record's own score, ahead of the metadata's. Null when
 * the value is not such a list, or is empty (an empty list says nothing about
 * what the step was).
 */
export function readDocumentList(value: unknown): DocumentFields[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const records: DocumentFields[] = [];
  for (const item of value) {
    const document = asLangChainDocument(item);
    const paired = Array.isArray(item) && item.length === 2 && typeof item[1] === "number" ? asLangChainDocument(item[0]) : null;
    if (document !== null) {
      records.push(langChainDocumentFields(document));
    } else if (paired !== null) {
      records.push({ ...langChainDocumentFields(paired), score: item[1] as number });
    } else {
      return null;
    }
  }
  return records;
}

/**
 * The documents a span returned, from its JSON `output.value`: a list of
 * LangChain documents, or an object holding one under `documents` (Arize's
 * LangChain instrumentation) or `output`. Null when the output is not such a list.
 */
export function readOutputDocuments(attributes: Attributes): LangChainDocument[] | null {
  if (readString(attributes, OpenInference.outputMimeType) !== "application/json") return null;
  const output = readJson(attributes, OpenInference.outputValue);
  const list = Array.isArray(output)
    ? output
    : typeof output === "object" && output !== null
      ? [(output as { documents?: unknown }).documents, (output as { output?: unknown }).output].find(Array.isArray)
      : undefined;
  return Array.isArray(list) ? asLangChainDocuments(list) : null;
}

/**
 * @param openInferencePrefix e.g. `retrieval.documents`
 * @param ragscopePrefix e.g. `ragscope.documents`, or null when none applies
 * @param outputDocuments the span's returned documents (readOutputDocuments), aligned by index; null when none
 * @returns null when the span carries no documents list at all, or one with a gap (an index below its highest
 *   that no prefix carries: unread-index-gaps.ts names it)
 */
export function readDocuments(
  attributes: Attributes,
  openInferencePrefix: string,
  ragscopePrefix: string | null,
  outputDocuments: readonly LangChainDocument[] | null = null,
): ObservedDocument[] | null {
  const indexes = new Set(flattenedIndexes(attributes, openInferencePrefix));
  if (ragscopePrefix) for (const index of flattenedIndexes(attributes, ragscopePrefix)) indexes.add(index);
  if (indexes.size === 0) return outputDocuments ? outputDocuments.map((document) => toObservedDocument(langChainDocumentFields(document))) : null;
  const sorted = [...indexes].sort((left, right) => left - right);
  // A missing index is a missing rank, not a list one shorter: read without it, each document after it would rank
  // one place higher than recorded (raising Hit@k and MRR, which follow trec_eval and take the list's order as the
  // ranks), and no neighbour may fill its place. The documents are then not available.
  if (indexGaps(sorted).missing > 0) return null;

  const documents: ObservedDocument[] = [];
  for (const index of sorted) {
    const base = `${openInferencePrefix}.${index}.`;
    const own = ragscopePrefix ? `${ragscopePrefix}.${index}.` : null;
    const ownString = (field: string) => (own ? readString(attributes, `${own}${field}`) : null);
    const content = readString(attributes, `${base}${OpenInference.documentContent}`);
    const returned = sameDocument(outputDocuments?.[index], content);
    // The attribute's metadata first; the returned document's when the attribute is absent or not a JSON object.
    const metadata = readJsonObject(attributes, `${base}${OpenInference.documentMetadata}`) ?? parseObject(returned?.metadata);
    const fallback = toObservedDocument({ ...(returned ? langChainDocumentFields(returned) : {}), metadata });
    documents.push({
      chunkId: identifier(attributes[`${base}${OpenInference.documentId}`]) ?? fallback.chunkId,
      documentId: ownString(DocumentField.documentId) ?? fallback.documentId,
      documentVersion: ownString(DocumentField.documentVersion) ?? fallback.documentVersion,
      sectionId: ownString(DocumentField.sectionId) ?? fallback.sectionId,
      text: content ?? fallback.text,
      score: readNumber(attributes, `${base}${OpenInference.documentScore}`) ?? fallback.score,
      effectiveFrom: ownString(DocumentField.effectiveFrom) ?? fallback.effectiveFrom,
      effectiveTo: ownString(DocumentField.effectiveTo) ?? fallback.effectiveTo,
      acl: (own ? readStringList(attributes, `${own}${DocumentField.acl}`) : null) ?? fallback.acl,
      tenantId: ownString(DocumentField.tenantId) ?? fallback.tenantId,
    });
  }
  return documents;
}

/**
 * The output document at the attribute's index, when it is the same document:
 * its text equals the attribute's content (or the attribute has none). A list
 * that does not line up is not used, rather than lend one document's id to another.
 */
function sameDocument(candidate: LangChainDocument | undefined, content: string | null): LangChainDocument | null {
  if (candidate === undefined) return null;
  return content === null || candidate.pageContent === content ? candidate : null;
}

/** The value as an object: itself, or JSON text of one; null otherwise. */
export function parseObject(value: unknown): Record<string, unknown> | null {
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
