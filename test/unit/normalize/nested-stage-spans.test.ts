/**
 * Stage spans nested in a span of the same stage (collector/06-rebuild/
 * nested-stage-spans.ts), as instrumentations that trace every method write
 * them (OpenInference's LlamaIndex instrumentation): a nest is one stage time,
 * and a retrieval inside a retrieval that recorded its ranking (LlamaIndex's
 * QueryFusionRetriever) adds no documents of its own.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Attributes, SpanRecord } from "../../../collector/00-otlp/span-record.js";
import { createTraceNormalizer } from "../../../collector/04-normalize/normalize-spans.js";
import { rebuildCaseResult } from "../../../collector/06-rebuild/rebuild-case-result.js";
import { spanRecord } from "./span-fixture.js";

const normalize = createTraceNormalizer();

function span(spanId: string, parentSpanId: string, name: string, attributes: Attributes): SpanRecord {
  return spanRecord({ spanId: spanId.padStart(16, "0"), parentSpanId: parentSpanId === "" ? "" : parentSpanId.padStart(16, "0"), name, attributes });
}

function rebuild(spans: SpanRecord[]) {
  return rebuildCaseResult({ traceId: spans[0]!.traceId, spans, complete: true, reason: "complete", reopened: false, sources: [], bytes: 0, lastSpanAt: 0 }, normalize(spans));
}

function retriever(documents: [id: string, score: number][]): Attributes {
  const attributes: Attributes = { "openinference.span.kind": "RETRIEVER", "input.value": "q?" };
  documents.forEach(([id, score], index) => {
    attributes[`retrieval.documents.${index}.document.id`] = id;
    attributes[`retrieval.documents.${index}.document.content`] = `text of ${id}`;
    attributes[`retrieval.documents.${index}.document.score`] = score;
  });
  return attributes;
}

const root = span("1", "", "RetrieverQueryEngine.query", { "openinference.span.kind": "CHAIN", "input.value": "q?", "output.value": "a." });

describe("retrievals inside a retrieval", () => {
  test("a fusion retriever: the fused ranking, not the fused list followed by each inner retriever's list", () => {
    const result = rebuild([
      root,
      span("2", "1", "QueryFusionRetriever.retrieve", retriever([["a", 0.033], ["b", 0.032], ["c", 0.016]])),
      span("3", "2", "QueryFusionRetriever._retrieve", { "openinference.span.kind": "RETRIEVER" }),
      span("4", "3", "VectorIndexRetriever.retrieve", retriever([["b", 0.6], ["a", 0.59], ["c", 0.33]])),
      span("5", "3", "VectorIndexRetriever.retrieve", retriever([["a", 0.7], ["b", 0.5]])),
      // A second retrieval of the request (a second hop), beside the first: its documents follow.
      span("6", "1", "VectorIndexRetriever.retrieve", retriever([["d", 0.4]])),
    ]);
    assert.deepEqual(
      result.rag_observation.retrieved_chunks?.map((chunk) => [chunk.rank, chunk.chunk_id, chunk.score]),
      [
        [1, "a", 0.033],
        [2, "b", 0.032],
        [3, "c", 0.016],
        [4, "d", 0.4],
      ],
    );
  });

  test("an outer retrieval that recorded no documents lends none and hides none: the inner retrieval's documents are read", () => {
    const result = rebuild([root, span("2", "1", "MyRetriever.retrieve", { "openinference.span.kind": "RETRIEVER" }), span("3", "2", "VectorIndexRetriever.retrieve", retriever([["a", 0.9]]))]);
    assert.deepEqual(
      result.rag_observation.retrieved_chunks?.map((chunk) => chunk.chunk_id),
      ["a"],
    );
  });
});

describe("stage timings of nested method spans", () => {
  const llm = (tokens: boolean): Attributes => ({
    "openinference.span.kind": "LLM",
    "llm.model_name": "m",
    ...(tokens ? { "llm.token_count.prompt": 100, "llm.token_count.completion": 20 } : {}),
  });

  test("a nest of spans of one stage is one stage time; a stage inside another stage keeps its own; tokens are read once, from where they are", () => {
    const result = rebuild([
      root,
      span("2", "1", "StructuredLLMRerank._postprocess_nodes", { "openinference.span.kind": "RERANKER" }),
      span("3", "2", "OpenAILike.structured_predict", llm(false)),
      span("4", "3", "OpenAILike.chat", llm(false)),
      span("5", "4", "OpenAILike.chat", llm(true)),
      span("6", "1", "OpenAILike.predict", llm(false)),
      span("7", "6", "OpenAILike.chat", llm(false)),
      span("8", "7", "OpenAILike.chat", llm(true)),
    ]);
    assert.deepEqual(
      result.rag_observation.stage_timings.map((timing) => [timing.stage, timing.span_name]),
      [
        ["request", "RetrieverQueryEngine.query"],
        ["rerank", "StructuredLLMRerank._postprocess_nodes"],
        ["generate", "OpenAILike.structured_predict"],
        ["generate", "OpenAILike.predict"],
      ],
    );
    assert.deepEqual([result.rag_observation.generation.input_tokens, result.rag_observation.generation.output_tokens], [200, 40]);
  });

  test("a nest as deep as a trace can be is still one stage time", () => {
    const depth = 20_000;
    const chain = Array.from({ length: depth }, (_, index) => span((index + 2).toString(16), (index + 1).toString(16), `llm-${index}`, llm(index === depth - 1)));
    const result = rebuild([root, ...chain]);
    assert.deepEqual(
      result.rag_observation.stage_timings.map((timing) => [timing.stage, timing.span_name]),
      [
        ["request", "RetrieverQueryEngine.query"],
        ["generate", "llm-0"],
      ],
    );
  });

  test("spans whose parents form a cycle (a malformed trace) enclose nothing: each is timed, and the rebuild ends", () => {
    const result = rebuild([root, span("2", "3", "OpenAILike.chat", llm(true)), span("3", "2", "OpenAILike.chat", llm(true))]);
    assert.deepEqual(
      result.rag_observation.stage_timings.map((timing) => [timing.stage, timing.span_name]),
      [
        ["request", "RetrieverQueryEngine.query"],
        ["generate", "OpenAILike.chat"],
        ["generate", "OpenAILike.chat"],
      ],
    );
  });
});
