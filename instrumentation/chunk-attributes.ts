/**
 * Flattens chunk lists into span attributes.
 *
 * Each chunk is written twice, at the same zero-based index N
 * (shared/reference/interop.md §1, "Flattening"):
 * - the OpenInference document, `<prefix>.N.document.{id,content,score,metadata}`,
 *   so any OpenInference reader sees the retrieval; `document.metadata` is a
 *   JSON string carrying the document id, version and section;
 * - ragscope's fields no convention carries, `<ragscope prefix>.N.<field>`
 *   (contracts/span-attributes.ts DocumentField): version, effective time, ACL,
 *   tenant and the pipeline's 1-based rank.
 */
import { DocumentField, OpenInference, flattenedKey } from "../contracts/span-attributes.js";
import { readChunkList, type RankedChunk } from "./records/chunk-record.js";
import type { AttributeRecorder } from "./safe-attributes.js";

export interface DocumentPrefixes {
  /** e.g. `retrieval.documents` or `reranker.output_documents`. */
  readonly openInference: string;
  /** e.g. `ragscope.documents` or `ragscope.rerank.output_documents`. */
  readonly ragscope: string;
}

/**
 * Records an unchecked chunk list (what an extractor returned); what cannot be
 * read is noted as a problem on the recorder, the readable chunks are kept.
 */
export function recordChunkList(
  recorder: AttributeRecorder,
  value: unknown,
  prefixes: DocumentPrefixes,
  captureText: boolean,
): void {
  const list = readChunkList(value);
  if (!list.ok) {
    recorder.problem(`${prefixes.openInference}: ${list.error}`);
    return;
  }
  for (const reason of list.value.rejected) recorder.problem(`${prefixes.openInference}: ${reason}`);
  recordChunks(recorder, list.value.chunks, prefixes, captureText);
}

export function recordChunks(
  recorder: AttributeRecorder,
  chunks: readonly RankedChunk[],
  prefixes: DocumentPrefixes,
  captureText: boolean,
): void {
  chunks.forEach(({ record, rank }, index) => {
    const openInferenceKey = (suffix: string) => flattenedKey(prefixes.openInference, index, suffix);
    recorder.set(openInferenceKey(OpenInference.documentId), record.chunkId);
    if (captureText) recorder.set(openInferenceKey(OpenInference.documentContent), record.text);
    recorder.set(openInferenceKey(OpenInference.documentScore), record.score);
    recorder.set(openInferenceKey(OpenInference.documentMetadata), documentMetadata(record));

    const ragscopeKey = (field: string) => flattenedKey(prefixes.ragscope, index, field);
    recorder.set(ragscopeKey(DocumentField.documentId), record.documentId);
    recorder.set(ragscopeKey(DocumentField.documentVersion), record.documentVersion);
    recorder.set(ragscopeKey(DocumentField.sectionId), record.sectionId);
    recorder.set(ragscopeKey(DocumentField.effectiveFrom), record.effectiveFrom);
    recorder.set(ragscopeKey(DocumentField.effectiveTo), record.effectiveTo);
    recorder.set(ragscopeKey(DocumentField.acl), record.acl);
    recorder.set(ragscopeKey(DocumentField.tenantId), record.tenantId);
    recorder.set(ragscopeKey(DocumentField.rank), rank);
  });
}

/** The OpenInference `document.metadata` JSON, or undefined when nothing is known. */
function documentMetadata(record: RankedChunk["record"]): string | undefined {
  const metadata: Record<string, string> = {};
  if (typeof record.documentId === "string") metadata[DocumentField.documentId] = record.documentId;
  if (typeof record.documentVersion === "string") metadata[DocumentField.documentVersion] = record.documentVersion;
  if (typeof record.sectionId === "string") metadata[DocumentField.sectionId] = record.sectionId;
  return Object.keys(metadata).length > 0 ? JSON.stringify(metadata) : undefined;
}
