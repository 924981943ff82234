/**
 * Reads a flattened list of documents: OpenInference's
 * `<prefix>.N.document.{id,content,score,metadata}` joined with ragscope's
 * `<ragscope prefix>.N.<field>` (document version, effective time, ACL…), which
 * no convention carries. When only OpenInference is present, the document id,
 * version and section are looked up in `document.metadata`, where frameworks
 * such as LangChain keep them.
 *
 * A document that carries no chunk id anywhere (Arize's LangChain
 * instrumentation writes only content and metadata) is kept at its rank with
 * an empty chunk id: it was retrieved, and its text can still be matched to
 * gold evidence; an id is never made up.
 */
import { DocumentField, OpenInference } from "../../contracts/span-attributes.js";
import type { Attributes } from "../otlp/span-record.js";
import { flattenedIndexes, readJsonObject, readNumber, readString, readStringList, toNumber } from "./attribute-readers.js";
import type { ObservedDocument } from "./stage-observation.js";

const metadataKeys = {
  chunkId: ["chunk_id", "chunkId", "id"],
  documentId: ["document_id", "documentId", "doc_id", "source_id", "source"],
  documentVersion: ["document_version", "documentVersion", "version"],
  sectionId: ["section_id", "sectionId", "section"],
  effectiveFrom: ["effective_from", "effective_time", "valid_from"],
  effectiveTo: ["effective_to", "valid_to", "expires_at"],
  tenantId: ["tenant_id", "tenant"],
} as const;

function fromMetadata(metadata: Record<string, unknown> | null, keys: readonly string[]): string | null {
  if (!metadata) return null;
  for (const key of keys) {
    const value = metadata[key];
    if (typeof value === "string" && value !== "") return value;
    if (typeof value === "number") return String(value);
  }
  return null;
}

function aclFromMetadata(metadata: Record<string, unknown> | null): string[] | null {
  const value = metadata?.acl;
  return Array.isArray(value) ? value.map(String) : null;
}

/**
 * @param openInferencePrefix e.g. `retrieval.documents`
 * @param ragscopePrefix e.g. `ragscope.documents`, or null when none applies
 * @returns null when the span carries no documents list at all
 */
export function readDocuments(attributes: Attributes, openInferencePrefix: string, ragscopePrefix: string | null): ObservedDocument[] | null {
  const indexes = new Set(flattenedIndexes(attributes, openInferencePrefix));
  if (ragscopePrefix) for (const index of flattenedIndexes(attributes, ragscopePrefix)) indexes.add(index);
  if (indexes.size === 0) return null;

  const documents: ObservedDocument[] = [];
  for (const index of [...indexes].sort((left, right) => left - right)) {
    const base = `${openInferencePrefix}.${index}.`;
    const own = ragscopePrefix ? `${ragscopePrefix}.${index}.` : null;
    const metadata = readJsonObject(attributes, `${base}${OpenInference.documentMetadata}`);
    const ownString = (field: string) => (own ? readString(attributes, `${own}${field}`) : null);
    documents.push({
      chunkId: readString(attributes, `${base}${OpenInference.documentId}`) ?? fromMetadata(metadata, metadataKeys.chunkId) ?? "",
      documentId: ownString(DocumentField.documentId) ?? fromMetadata(metadata, metadataKeys.documentId),
      documentVersion: ownString(DocumentField.documentVersion) ?? fromMetadata(metadata, metadataKeys.documentVersion),
      sectionId: ownString(DocumentField.sectionId) ?? fromMetadata(metadata, metadataKeys.sectionId),
      text: readString(attributes, `${base}${OpenInference.documentContent}`),
      score: readNumber(attributes, `${base}${OpenInference.documentScore}`),
      effectiveFrom: ownString(DocumentField.effectiveFrom) ?? fromMetadata(metadata, metadataKeys.effectiveFrom),
      effectiveTo: ownString(DocumentField.effectiveTo) ?? fromMetadata(metadata, metadataKeys.effectiveTo),
      acl: (own ? readStringList(attributes, `${own}${DocumentField.acl}`) : null) ?? aclFromMetadata(metadata),
      tenantId: ownString(DocumentField.tenantId) ?? fromMetadata(metadata, metadataKeys.tenantId),
    });
  }
  return documents;
}

/** What a structured document record names its parts (GenAI's `{ id, score, … }`, LangChain's `{ pageContent, metadata }`). */
export interface DocumentFields {
  id?: unknown;
  score?: unknown;
  text?: unknown;
  metadata?: unknown;
}

/**
 * One document from a structured record: GenAI's retrieval document, an
 * OpenLLMetry `db.query.result` event, a LangChain document in a chain's JSON
 * input. Ids missing from the record are looked up in its metadata; a chunk
 * id found nowhere is empty (see the module comment).
 */
export function toObservedDocument(fields: DocumentFields): ObservedDocument {
  const metadata = parseObject(fields.metadata);
  const id = typeof fields.id === "string" && fields.id !== "" ? fields.id : typeof fields.id === "number" ? String(fields.id) : null;
  return {
    chunkId: id ?? fromMetadata(metadata, metadataKeys.chunkId) ?? "",
    documentId: fromMetadata(metadata, metadataKeys.documentId),
    documentVersion: fromMetadata(metadata, metadataKeys.documentVersion),
    sectionId: fromMetadata(metadata, metadataKeys.sectionId),
    text: typeof fields.text === "string" ? fields.text : null,
    score: toNumber(typeof fields.score === "number" || typeof fields.score === "string" ? fields.score : undefined),
    effectiveFrom: fromMetadata(metadata, metadataKeys.effectiveFrom),
    effectiveTo: fromMetadata(metadata, metadataKeys.effectiveTo),
    acl: aclFromMetadata(metadata),
    tenantId: fromMetadata(metadata, metadataKeys.tenantId),
  };
}

function parseObject(value: unknown): Record<string, unknown> | null {
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
