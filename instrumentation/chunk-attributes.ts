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
import { readEffectiveTime } from "./records/effective-time.js";
import type { AttributeRecorder } from "./safe-attributes.js";

export interface DocumentPrefixes {
  /** e.g. `retrieval.documents` or `reranker.output_documents`. */
  readonly openInference: string;
  /** e.g. `ragscope.documents` or `ragscope.rerank.output_documents`. */
  readonly ragscope: string;
  /**
   * Where the list's length is recorded, before its documents: a list of none then reads as returned, not as missing,
   * and a list an SDK cut at its attribute limit (it drops what is set last) is told from a whole one.
   */
  readonly count?: string;
  /** Where the number of the list's elements that could not be recorded goes, when there are any. */
  readonly unrecorded?: string;
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
  recordChunks(recorder, list.value.chunks, prefixes, captureText, list.value.length);
}

/**
 * Records each chunk at the index of its place in the list (its rank − 1). An element that could not be recorded
 * leaves its place empty rather than letting the chunks after it move up (a relevant chunk read one place higher
 * would raise Hit@k and MRR): the count is the list's length, and how many are missing is recorded beside it, so the
 * collector tells such a list from a whole one and does not read it.
 * @param length how many elements the list held, the unrecorded ones included
 */
export function recordChunks(
  recorder: AttributeRecorder,
  chunks: readonly RankedChunk[],
  prefixes: DocumentPrefixes,
  captureText: boolean,
  length: number = chunks.length,
): void {
  const table = keyTable(prefixes);
  if (prefixes.count !== undefined) recorder.set(prefixes.count, length);
  if (prefixes.unrecorded !== undefined && length > chunks.length) recorder.set(prefixes.unrecorded, length - chunks.length);
  for (const { record, rank } of chunks) {
    const keys = documentKeys(table, prefixes, rank - 1);
    recorder.set(keys.id, record.chunkId);
    if (captureText) recorder.set(keys.content, record.text);
    // The field's name is built only for a score that is not a number: this runs for every chunk.
    recorder.set(keys.score, typeof record.score === "number" ? record.score : recorder.number(`${prefixes.openInference}: the score of chunk ${rank}`, record.score));
    recorder.set(keys.metadata, documentMetadata(record));
    recorder.set(keys.documentId, record.documentId);
    recorder.set(keys.documentVersion, record.documentVersion);
    recorder.set(keys.sectionId, record.sectionId);
    const effective = readEffectiveTime(record.effectiveFrom, record.effectiveTo);
    if (effective.ok) {
      recorder.set(keys.effectiveFrom, effective.value.from);
      recorder.set(keys.effectiveTo, effective.value.to);
    } else {
      recorder.problem(`${prefixes.openInference}: chunk ${rank}'s ${effective.error}`);
    }
    recorder.set(keys.acl, record.acl);
    recorder.set(keys.tenantId, record.tenantId);
    recorder.set(keys.rank, rank);
  }
}

/** The twelve attribute keys of the document at one index under one pair of prefixes. */
interface DocumentKeys {
  readonly id: string;
  readonly content: string;
  readonly score: string;
  readonly metadata: string;
  readonly documentId: string;
  readonly documentVersion: string;
  readonly sectionId: string;
  readonly effectiveFrom: string;
  readonly effectiveTo: string;
  readonly acl: string;
  readonly tenantId: string;
  readonly rank: string;
}

/**
 * Built once per prefix pair and index, then the same string objects are
 * reused: building twelve keys per chunk on every span (and hashing each new
 * string again in every map and object it meets: the recorder, OTel's span,
 * the redactor, the structural-key memo) was the largest part of recording a
 * retrieval (test/bench/sdk-export.bench.ts). Bounded: applications use a
 * handful of prefixes; past the bounds keys are built each time.
 */
const keyTables = new Map<string, DocumentKeys[]>();
const MAX_KEY_TABLES = 64;
const MAX_CACHED_INDEX = 1024;

/** The key table of a prefix pair, or undefined past MAX_KEY_TABLES (keys are then built each time). */
function keyTable(prefixes: DocumentPrefixes): DocumentKeys[] | undefined {
  const tableKey = `${prefixes.openInference}\u0000${prefixes.ragscope}`;
  let table = keyTables.get(tableKey);
  if (table === undefined && keyTables.size < MAX_KEY_TABLES) {
    table = [];
    keyTables.set(tableKey, table);
  }
  return table;
}

function documentKeys(table: DocumentKeys[] | undefined, prefixes: DocumentPrefixes, index: number): DocumentKeys {
  if (table === undefined || index >= MAX_CACHED_INDEX) return buildDocumentKeys(prefixes, index);
  // Filled in order, so the table stays a packed array.
  for (let next = table.length; next <= index; next += 1) table.push(buildDocumentKeys(prefixes, next));
  return table[index]!;
}

function buildDocumentKeys(prefixes: DocumentPrefixes, index: number): DocumentKeys {
  const openInference = (suffix: string) => internalized(flattenedKey(prefixes.openInference, index, suffix));
  const ragscope = (field: string) => internalized(flattenedKey(prefixes.ragscope, index, field));
  return {
    id: openInference(OpenInference.documentId),
    content: openInference(OpenInference.documentContent),
    score: openInference(OpenInference.documentScore),
    metadata: openInference(OpenInference.documentMetadata),
    documentId: ragscope(DocumentField.documentId),
    documentVersion: ragscope(DocumentField.documentVersion),
    sectionId: ragscope(DocumentField.sectionId),
    effectiveFrom: ragscope(DocumentField.effectiveFrom),
    effectiveTo: ragscope(DocumentField.effectiveTo),
    acl: ragscope(DocumentField.acl),
    tenantId: ragscope(DocumentField.tenantId),
    rank: ragscope(DocumentField.rank),
  };
}

/**
 * The key as V8's property-name form (flat, hash computed): a template literal
 * makes a rope that every map and object it is used with would flatten and
 * hash again.
 */
function internalized(text: string): string {
  return Object.keys({ [text]: 0 })[0]!;
}

/** Each metadata field's name as JSON, with its colon. */
const METADATA_KEY = {
  documentId: `${JSON.stringify(DocumentField.documentId)}:`,
  documentVersion: `${JSON.stringify(DocumentField.documentVersion)}:`,
  sectionId: `${JSON.stringify(DocumentField.sectionId)}:`,
};

/**
 * The OpenInference `document.metadata` JSON, or undefined when nothing is
 * known. Written field by field (what JSON.stringify writes for an object of
 * these fields in this order) rather than building an object per chunk and
 * stringifying it: a retrieval writes one per chunk.
 */
function documentMetadata(record: RankedChunk["record"]): string | undefined {
  let fields = "";
  if (typeof record.documentId === "string") fields += `,${METADATA_KEY.documentId}${JSON.stringify(record.documentId)}`;
  if (typeof record.documentVersion === "string") fields += `,${METADATA_KEY.documentVersion}${JSON.stringify(record.documentVersion)}`;
  if (typeof record.sectionId === "string") fields += `,${METADATA_KEY.sectionId}${JSON.stringify(record.sectionId)}`;
  return fields === "" ? undefined : `{${fields.slice(1)}}`;
}
