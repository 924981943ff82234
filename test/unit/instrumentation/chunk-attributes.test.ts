/**
 * The flattened document keys (reused from a table per prefix pair since
 * issue 13) are the keys the OpenInference flattening rule gives, for each
 * prefix pair and index, whatever was recorded before.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { recordChunks, type DocumentPrefixes } from "../../../instrumentation/chunk-attributes.js";
import { AttributeRecorder } from "../../../instrumentation/safe-attributes.js";

const retrieval: DocumentPrefixes = { openInference: "retrieval.documents", ragscope: "ragscope.documents" };
const rerankOutput: DocumentPrefixes = { openInference: "reranker.output_documents", ragscope: "ragscope.rerank.output_documents" };

function record(count: number, prefixes: DocumentPrefixes): Record<string, unknown> {
  const recorder = new AttributeRecorder();
  const chunks = Array.from({ length: count }, (_, index) => ({
    record: { chunkId: `c${index}`, text: `text ${index}`, score: index / 10, documentId: `d${index}`, documentVersion: "v1", sectionId: `s${index}`, effectiveFrom: "2026-01-01", effectiveTo: "2027-01-01", acl: ["staff"], tenantId: "acme" },
    rank: index + 1,
  }));
  recordChunks(recorder, chunks, prefixes, true);
  return recorder.attributes;
}

function expected(count: number, prefixes: DocumentPrefixes): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (let index = 0; index < count; index += 1) {
    const openInference = `${prefixes.openInference}.${index}.`;
    const ragscope = `${prefixes.ragscope}.${index}.`;
    Object.assign(attributes, {
      [`${openInference}document.id`]: `c${index}`,
      [`${openInference}document.content`]: `text ${index}`,
      [`${openInference}document.score`]: index / 10,
      [`${openInference}document.metadata`]: JSON.stringify({ document_id: `d${index}`, document_version: "v1", section_id: `s${index}` }),
      [`${ragscope}document_id`]: `d${index}`,
      [`${ragscope}document_version`]: "v1",
      [`${ragscope}section_id`]: `s${index}`,
      [`${ragscope}effective_from`]: "2026-01-01",
      [`${ragscope}effective_to`]: "2027-01-01",
      [`${ragscope}acl`]: ["staff"],
      [`${ragscope}tenant_id`]: "acme",
      [`${ragscope}rank`]: index + 1,
    });
  }
  return attributes;
}

describe("chunk attribute keys", () => {
  test("each prefix pair and index gets its own keys, shorter and longer lists alike, past the remembered indexes too", () => {
    for (const [count, prefixes] of [[2, retrieval], [5, rerankOutput], [3, retrieval], [7, retrieval], [1, rerankOutput], [1_030, retrieval]] as const) {
      assert.deepEqual(record(count, prefixes), expected(count, prefixes), `${count} chunks under ${prefixes.openInference}`);
    }
  });

  test("document.metadata is the JSON of the fields a chunk has, escaped as JSON.stringify escapes them, and absent when it has none", () => {
    const chunks = [
      { documentId: 'say "hi"\\ \n 年假 😀', documentVersion: "v\u0001", sectionId: "§2" },
      { documentId: "only-id" },
      { documentVersion: "v2", sectionId: "s9" },
      { sectionId: "lone \ud800 surrogate" },
      {},
    ];
    const recorder = new AttributeRecorder();
    recordChunks(recorder, chunks.map((fields, index) => ({ record: { chunkId: `c${index}`, text: "t", ...fields }, rank: index + 1 })), retrieval, true);
    const metadata = chunks.map((_, index) => recorder.attributes[`retrieval.documents.${index}.document.metadata`]);
    const reference = chunks.map(({ documentId, documentVersion, sectionId }: { documentId?: string; documentVersion?: string; sectionId?: string }) =>
      JSON.stringify({ ...(documentId === undefined ? {} : { document_id: documentId }), ...(documentVersion === undefined ? {} : { document_version: documentVersion }), ...(sectionId === undefined ? {} : { section_id: sectionId }) }),
    );
    assert.deepEqual(metadata, [...reference.slice(0, 4), undefined]);
    assert.deepEqual(JSON.parse(metadata[0] as string), { document_id: 'say "hi"\\ \n 年假 😀', document_version: "v\u0001", section_id: "§2" });
  });
});
