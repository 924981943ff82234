/**
 * A retrieval around other retrievals (LlamaIndex's QueryFusionRetriever around the retrievers it asked) whose own
 * ranking could not be read (an index gap: its SDK dropped attributes). Its inner retrievals' lists are steps towards
 * that ranking, not the ranking: joined in its place they would rank each chunk as many times as it was found, in no
 * order the pipeline used. The ranking is then not available (collector/06-rebuild/rebuild-case-result.ts), and the
 * Case Result says so on the outer span. A wrapper that recorded nothing and names nothing unread is no such block:
 * nested-stage-spans.test.ts reads the inner retrieval's documents through it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Attributes, SpanRecord } from "../../../collector/00-otlp/span-record.js";
import { createTraceNormalizer } from "../../../collector/04-normalize/normalize-spans.js";
import { rebuildCaseResult } from "../../../collector/06-rebuild/rebuild-case-result.js";
import { spanRecord } from "./span-fixture.js";

const normalize = createTraceNormalizer();

function span(spanId: string, parentSpanId: string, name: string, attributes: Attributes): SpanRecord {
  return spanRecord({ spanId: spanId.padStart(16, "0"), parentSpanId: parentSpanId === "" ? "" : parentSpanId.padStart(16, "0"), name, attributes });
}

function retriever(documents: ([id: string, score: number] | null)[]): Attributes {
  const attributes: Attributes = { "openinference.span.kind": "RETRIEVER", "input.value": "q?" };
  documents.forEach((document, index) => {
    if (document === null) return;
    attributes[`retrieval.documents.${index}.document.id`] = document[0];
    attributes[`retrieval.documents.${index}.document.content`] = `text of ${document[0]}`;
    attributes[`retrieval.documents.${index}.document.score`] = document[1];
  });
  return attributes;
}

test("a fusion retriever whose fused list has a gap: no ranking, rather than the inner retrievers' lists joined in its place", () => {
  const spans = [
    span("1", "", "RetrieverQueryEngine.query", { "openinference.span.kind": "CHAIN", "input.value": "q?", "output.value": "a." }),
    span("2", "1", "QueryFusionRetriever.retrieve", retriever([["a", 0.033], null, ["c", 0.016]])),
    span("4", "2", "VectorIndexRetriever.retrieve", retriever([["b", 0.6], ["a", 0.59], ["c", 0.33]])),
    span("5", "2", "VectorIndexRetriever.retrieve", retriever([["a", 0.7], ["b", 0.5]])),
  ];
  const result = rebuildCaseResult({ traceId: spans[0]!.traceId, spans, complete: true, reason: "complete", reopened: false, sources: [], bytes: 0, lastSpanAt: 0 }, normalize(spans));
  assert.equal(result.rag_observation.retrieved_chunks, null, "not b, a, c, a, b");
  const notes = result.rag_observation.malformed_attributes.filter((note) => note.span_id === "0000000000000002");
  assert.deepEqual(notes.map((note) => [note.attribute, note.kind]), [["retrieval.documents.1", "unreadable_value"], ["retrieved_chunks", "unreadable_value"]]);
});
