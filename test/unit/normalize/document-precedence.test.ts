/**
 * Document fields are read in the documented order (collector/04-normalize/
 * README.md, "Document fields"), each from its own document only; a value no
 * source carries is null. The rebuild never completes a document without an id
 * from another document.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createMapperRegistry, createTraceNormalizer } from "../../../collector/04-normalize/normalize-spans.js";
import { openInferenceMapper } from "../../../collector/04-normalize/openinference-mapper.js";
import { openLlmetryMapper } from "../../../collector/04-normalize/openllmetry-mapper.js";
import type { RetrieveObservation } from "../../../collector/04-normalize/stage-observation.js";
import { rebuildCaseResult } from "../../../collector/06-rebuild/rebuild-case-result.js";
import { spanRecord } from "./span-fixture.js";

function retrieverSpan(attributes: Record<string, string | number>, outputDocuments?: unknown[]) {
  return spanRecord({
    attributes: {
      "openinference.span.kind": "RETRIEVER",
      ...(outputDocuments ? { "output.value": JSON.stringify({ documents: outputDocuments }), "output.mime_type": "application/json" } : {}),
      ...attributes,
    },
  });
}

function documents(attributes: Record<string, string | number>, outputDocuments?: unknown[]) {
  return (openInferenceMapper.map(retrieverSpan(attributes, outputDocuments)) as RetrieveObservation).documents!;
}

describe("document field precedence", () => {
  test("chunk id: OpenInference document.id, then the returned Document.id, then metadata chunk_id / chunkId / id", () => {
    const read = documents(
      {
        "retrieval.documents.0.document.id": "attribute-id",
        "retrieval.documents.0.document.content": "a",
        "retrieval.documents.0.document.metadata": JSON.stringify({ chunk_id: "metadata-id" }),
        "retrieval.documents.1.document.content": "b",
        "retrieval.documents.1.document.metadata": JSON.stringify({ chunk_id: "metadata-id-b" }),
        "retrieval.documents.2.document.content": "c",
        "retrieval.documents.2.document.metadata": JSON.stringify({ id: 42 }),
        "retrieval.documents.3.document.content": "d",
        "retrieval.documents.3.document.metadata": JSON.stringify({ source: "handbook.pdf" }),
      },
      [
        { id: "output-id-a", pageContent: "a", metadata: {} },
        { id: "output-id-b", pageContent: "b", metadata: {} },
        { pageContent: "c", metadata: {} },
        { pageContent: "d", metadata: {} },
      ],
    );
    assert.deepEqual(
      read.map((document) => document.chunkId),
      ["attribute-id", "output-id-b", "42", null],
    );
    assert.equal(read[3]!.documentId, "handbook.pdf", "metadata source names the document");
  });

  test("score: OpenInference document.score, then metadata score / relevance_score / similarity_score; none is null", () => {
    const read = documents({
      "retrieval.documents.0.document.content": "a",
      "retrieval.documents.0.document.score": 0.8,
      "retrieval.documents.0.document.metadata": JSON.stringify({ score: 0.1 }),
      "retrieval.documents.1.document.content": "b",
      "retrieval.documents.1.document.metadata": JSON.stringify({ relevance_score: "0.6" }),
      "retrieval.documents.2.document.content": "c",
      "retrieval.documents.2.document.metadata": JSON.stringify({ similarity_score: 0.4 }),
      "retrieval.documents.3.document.content": "d",
      "retrieval.documents.3.document.metadata": JSON.stringify({ score: "high" }),
    });
    assert.deepEqual(
      read.map((document) => document.score),
      [0.8, 0.6, 0.4, null],
    );
  });

  test("versions and sections from metadata; a document that names none keeps null", () => {
    const read = documents({
      "retrieval.documents.0.document.content": "a",
      "retrieval.documents.0.document.metadata": JSON.stringify({ document_id: "leave", version: 3, section: "s2" }),
      "retrieval.documents.1.document.content": "b",
      "retrieval.documents.1.document.metadata": JSON.stringify({}),
    });
    assert.deepEqual(
      read.map((document) => [document.documentId, document.documentVersion, document.sectionId]),
      [
        ["leave", "3", "s2"],
        [null, null, null],
      ],
    );
  });

  test("Python LangChain's documents ({ id, page_content, metadata, type }): the id from the returned document, as LangChain.js's", () => {
    const read = documents(
      {
        "retrieval.documents.0.document.content": "first",
        "retrieval.documents.0.document.metadata": JSON.stringify({ document_id: "doc-1" }),
        "retrieval.documents.1.document.content": "second",
      },
      [
        { id: "c1", metadata: { document_id: "doc-1" }, page_content: "first", type: "Document" },
        // Not the same document as attribute 1 (another text): it lends nothing.
        { id: "c9", metadata: {}, page_content: "other", type: "Document" },
      ],
    );
    assert.deepEqual(
      read.map((document) => [document.chunkId, document.documentId, document.text]),
      [
        ["c1", "doc-1", "first"],
        [null, null, "second"],
      ],
    );
  });

  test("a Python LangChain step from documents to text is the context assembly, its chunk ids from each document", () => {
    const observation = openInferenceMapper.map(
      spanRecord({
        attributes: {
          "openinference.span.kind": "CHAIN",
          "input.value": JSON.stringify([
            { id: "c1", metadata: {}, page_content: "one", type: "Document" },
            { id: null, metadata: { chunk_id: "c2" }, page_content: "two", type: "Document" },
          ]),
          "input.mime_type": "application/json",
          "output.value": "one\n\ntwo",
        },
      }),
    );
    assert.deepEqual(observation, { stage: "context", chunkIds: ["c1", "c2"], droppedChunks: null, truncatedChunkIds: null, text: "one\n\ntwo", tokenCount: null, tokenBudget: null });
  });

  test("returned documents that do not line up with the attributes lend them nothing", () => {
    const read = documents(
      { "retrieval.documents.0.document.content": "first", "retrieval.documents.1.document.content": "second" },
      [
        { id: "x", pageContent: "second", metadata: { score: 0.9, document_id: "doc-x" } },
        { id: "y", pageContent: "first", metadata: { score: 0.1 } },
      ],
    );
    assert.deepEqual(
      read.map((document) => [document.chunkId, document.score, document.documentId]),
      [
        [null, null, null],
        [null, null, null],
      ],
    );
  });

  test("a retriever that records only its output documents: read from there", () => {
    const read = documents({}, [{ id: "only", pageContent: "text", metadata: { score: 0.5, document_id: "doc" } }]);
    assert.deepEqual(
      read.map((document) => [document.chunkId, document.text, document.score, document.documentId]),
      [["only", "text", 0.5, "doc"]],
    );
  });
});

describe("rebuild with documents that carry no id", () => {
  test("a document's missing document id stays null, never taken from the document before it", () => {
    const normalize = createTraceNormalizer();
    const root = spanRecord({ spanId: "aaaaaaaaaaaaaaaa", parentSpanId: "", attributes: { "openinference.span.kind": "CHAIN", "input.value": "q" } });
    const retriever = spanRecord({
      spanId: "bbbbbbbbbbbbbbbb",
      parentSpanId: "aaaaaaaaaaaaaaaa",
      attributes: {
        "openinference.span.kind": "RETRIEVER",
        "retrieval.documents.0.document.content": "first",
        "retrieval.documents.0.document.metadata": JSON.stringify({ document_id: "doc-1", score: 0.9 }),
        "retrieval.documents.1.document.content": "second",
        "retrieval.documents.1.document.metadata": JSON.stringify({ score: 0.7 }),
      },
    });
    const spans = [root, retriever];
    const result = rebuildCaseResult({ traceId: root.traceId, spans, complete: true, reason: "complete", reopened: false, sources: [], bytes: 0, lastSpanAt: 0 }, normalize(spans));
    assert.deepEqual(
      result.rag_observation.retrieved_chunks!.map((chunk) => [chunk.chunk_id, chunk.document_id, chunk.score]),
      [
        [null, "doc-1", 0.9],
        [null, null, 0.7],
      ],
    );
  });
});

describe("OpenLLMetry chain steps that return or pack LangChain documents", () => {
  const step = (input: unknown, output: unknown) =>
    spanRecord({
      attributes: {
        "gen_ai.operation.name": "workflow",
        "traceloop.span.kind": "workflow",
        "traceloop.entity.input": JSON.stringify(input),
        "traceloop.entity.output": JSON.stringify(output),
      },
    });

  test("[document, score] pairs in traceloop.entity.output: each field from its own entry, the pair's score ahead of the metadata's", () => {
    const normalize = createMapperRegistry();
    const read = normalize(
      step({ input: "q?" }, {
        output: [
          [{ pageContent: "first", id: "c1", metadata: { document_id: "doc-1", score: 0.2, section_id: "s1" } }, 0.9],
          [{ pageContent: "second", metadata: { chunk_id: "c2" } }, 0.7],
          [{ pageContent: "third", metadata: {} }, 0.5],
        ],
      }),
    );
    assert.equal(read.convention, "openllmetry", "Traceloop's `workflow` operation is not a GenAI one");
    const observation = read.observation as RetrieveObservation;
    assert.equal(observation.stage, "retrieve");
    assert.equal(observation.query, "q?");
    assert.deepEqual(
      observation.documents!.map((document) => [document.chunkId, document.documentId, document.sectionId, document.score, document.text]),
      [
        ["c1", "doc-1", "s1", 0.9, "first"],
        ["c2", null, null, 0.7, "second"],
        [null, null, null, 0.5, "third"],
      ],
    );
  });

  test("bare documents (the Traceloop SDK's task output): score from the metadata only where the document has one", () => {
    const observation = openLlmetryMapper.map(step({ args: ["q?"], kwargs: {} }, [{ pageContent: "a", metadata: { id: "a1", score: 0.4 } }, { pageContent: "b", metadata: { id: "b1" } }]));
    assert.equal(observation.stage, "retrieve");
    assert.deepEqual((observation as RetrieveObservation).documents!.map((document) => [document.chunkId, document.score]), [
      ["a1", 0.4],
      ["b1", null],
    ]);
  });

  test("documents in, text out: the packed chunks, with the retriever's ids", () => {
    const observation = openLlmetryMapper.map(step({ input: [[{ pageContent: "a", metadata: { chunk_id: "a1" } }, 0.9], [{ pageContent: "b" }, 0.1]] }, { output: "a\n\nb" }));
    assert.deepEqual(observation, { stage: "context", chunkIds: ["a1", null], droppedChunks: null, truncatedChunkIds: null, text: "a\n\nb", tokenCount: null, tokenBudget: null });
  });

  test("an empty list, a list with anything but documents, or text in and out carries no stage", () => {
    assert.equal(openLlmetryMapper.map(step({ input: "q?" }, { output: [] })).stage, "other");
    assert.equal(openLlmetryMapper.map(step({ input: "q?" }, { output: [{ pageContent: "a" }, "stray"] })).stage, "other");
    assert.equal(openLlmetryMapper.map(step({ input: "q?" }, { output: "text" })).stage, "other");
  });
});
