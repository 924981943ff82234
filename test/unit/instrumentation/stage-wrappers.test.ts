import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { SpanStatusCode } from "@opentelemetry/api";
import {
  configureRagscope,
  traceCite,
  traceContext,
  traceGenerate,
  traceQueryRewrite,
  traceRequest,
  traceRerank,
  traceRetrieve,
  type ChunkRecord,
  type ContextRecord,
  type GenerationRecord,
} from "../../../instrumentation/index.js";
import { spanNamed, startInMemoryTracing, type InMemoryTracing } from "./in-memory-tracing.js";

const retrievedChunks: ChunkRecord[] = [
  {
    chunkId: "leave-policy#3",
    documentId: "leave-policy",
    documentVersion: "2024-01",
    sectionId: "3",
    text: "Employees accrue 25 days of annual leave.",
    score: 0.91,
    effectiveFrom: "2024-01-01",
    effectiveTo: "2024-12-31",
    acl: ["staff"],
    tenantId: "acme",
  },
  { chunkId: "leave-policy#4", documentId: "leave-policy", documentVersion: "2024-01", text: "Carry-over is capped at 5 days.", score: 0.78 },
  { chunkId: "travel-policy#1", text: "Travel must be booked through the portal.", score: 0.4 },
];

const contextRecord: ContextRecord = {
  text: "[1] Employees accrue 25 days of annual leave.\n[2] Carry-over is capped",
  chunkIds: ["leave-policy#3", "leave-policy#4"],
  droppedChunks: [{ chunkId: "travel-policy#1", reason: "token_budget" }],
  truncatedChunkIds: ["leave-policy#4"],
  tokenCount: 120,
};

const generation: GenerationRecord = {
  text: "You accrue 25 days of annual leave [1].",
  inputTokens: 300,
  outputTokens: 12,
  cost: 0.0021,
  timeToFirstTokenMs: 180,
  abstained: false,
};

const query = "How many days of annual leave do I get?";
const prompt = `Answer from the context.\n${contextRecord.text}\nQuestion: ${query}`;

/** A small RAG pipeline with every stage wrapped, as a service would write it. */
async function runPipeline(): Promise<{ answer: string; citations: string[] }> {
  return traceRequest(
    {
      query,
      runId: "run-1",
      caseId: "case-7",
      caseVersion: "3",
      datasetId: "hr-faq",
      datasetVersion: "v2",
      tenantId: "acme",
      principalId: "employee-42",
      principalGroups: ["staff", "hr"],
      route: "/ask",
      sessionId: "session-9",
      userId: "employee-42",
    },
    async () => {
      const rewritten = await traceQueryRewrite({ query }, async () => "annual leave days per year");
      const retrieved = await traceRetrieve({ query: rewritten, topK: 3, retriever: "bm25" }, async () => retrievedChunks);
      const reranked = await traceRerank({ query: rewritten, input: retrieved, model: "rerank-small", topK: 2 }, async () => [
        retrieved[1]!,
        retrieved[0]!,
      ]);
      assert.equal(reranked.length, 2);
      const packed = await traceContext({ tokenBudget: 128 }, () => contextRecord);
      const generated = await traceGenerate(
        { model: "gpt-4o-mini", provider: "openai", prompt, promptVersion: "leave-v3" },
        async () => generation,
      );
      const citations = await traceCite(() => [packed.chunkIds[0]!]);
      return { answer: generated.text, citations };
    },
    (result) => result.answer,
  );
}

describe("stage wrappers", () => {
  let tracing: InMemoryTracing;
  before(() => {
    tracing = startInMemoryTracing();
  });
  beforeEach(() => {
    tracing.reset();
    configureRagscope({ captureText: true });
  });
  after(async () => {
    configureRagscope({ captureText: true });
    await tracing.stop();
  });

  test("a full pipeline produces rag.request with six child stage spans in one trace", async () => {
    const result = await runPipeline();
    assert.deepEqual(result, { answer: generation.text, citations: ["leave-policy#3"] });

    const spans = tracing.spans();
    assert.equal(spans.length, 7);
    const root = spanNamed(spans, "rag.request");
    assert.equal(root.parentSpanContext, undefined);
    const childNames = ["rag.query_rewrite", "rag.retrieve", "rag.rerank", "rag.context", "rag.generate", "rag.cite"];
    for (const name of childNames) {
      const child = spanNamed(spans, name);
      assert.equal(child.spanContext().traceId, root.spanContext().traceId, `${name} trace id`);
      assert.equal(child.parentSpanContext?.spanId, root.spanContext().spanId, `${name} parent`);
    }
    const expectedStages: Record<string, [string, string]> = {
      "rag.request": ["request", "CHAIN"],
      "rag.query_rewrite": ["query_rewrite", "CHAIN"],
      "rag.retrieve": ["retrieve", "RETRIEVER"],
      "rag.rerank": ["rerank", "RERANKER"],
      "rag.context": ["context", "CHAIN"],
      "rag.generate": ["generate", "LLM"],
      "rag.cite": ["cite", "CHAIN"],
    };
    for (const span of spans) {
      const [stage, kind] = expectedStages[span.name]!;
      assert.equal(span.attributes["ragscope.stage"], stage);
      assert.equal(span.attributes["openinference.span.kind"], kind);
      assert.equal(span.attributes["ragscope.schema_version"], "1");
      assert.equal(span.status.code, SpanStatusCode.UNSET);
      assert.equal(span.instrumentationScope.name, "ragscope");
    }
  });

  test("rag.request carries the query, answer, linkage and principal", async () => {
    await runPipeline();
    const attributes = spanNamed(tracing.spans(), "rag.request").attributes;
    assert.equal(attributes["input.value"], query);
    assert.equal(attributes["ragscope.query"], query);
    assert.equal(attributes["output.value"], generation.text);
    assert.equal(attributes["ragscope.answer"], generation.text);
    assert.equal(attributes["ragscope.run_id"], "run-1");
    assert.equal(attributes["ragscope.case_id"], "case-7");
    assert.equal(attributes["ragscope.case_version"], "3");
    assert.equal(attributes["ragscope.dataset_id"], "hr-faq");
    assert.equal(attributes["ragscope.dataset_version"], "v2");
    assert.equal(attributes["ragscope.tenant_id"], "acme");
    assert.equal(attributes["ragscope.principal_id"], "employee-42");
    assert.deepEqual(attributes["ragscope.principal_groups"], ["staff", "hr"]);
    assert.equal(attributes["ragscope.route"], "/ask");
    assert.equal(attributes["session.id"], "session-9");
    assert.equal(attributes["user.id"], "employee-42");
  });

  test("linkage attributes are absent when not given (online traffic)", async () => {
    await traceRequest({ query: "hello" }, () => "hi");
    const attributes = spanNamed(tracing.spans(), "rag.request").attributes;
    for (const key of ["ragscope.run_id", "ragscope.case_id", "ragscope.case_version", "ragscope.dataset_id", "session.id"]) {
      assert.equal(key in attributes, false, key);
    }
    assert.equal(attributes["output.value"], "hi", "a string value is the answer without toAnswer");
  });

  test("rag.query_rewrite records the original and rewritten query", async () => {
    await runPipeline();
    const attributes = spanNamed(tracing.spans(), "rag.query_rewrite").attributes;
    assert.equal(attributes["input.value"], query);
    assert.equal(attributes["output.value"], "annual leave days per year");
    assert.equal(attributes["ragscope.query.rewritten"], "annual leave days per year");
  });

  test("rag.retrieve flattens every chunk in OpenInference and ragscope form", async () => {
    await runPipeline();
    const attributes = spanNamed(tracing.spans(), "rag.retrieve").attributes;
    assert.equal(attributes["input.value"], "annual leave days per year");
    assert.equal(attributes["ragscope.retrieval.top_k"], 3);
    assert.equal(attributes["ragscope.retrieval.retriever"], "bm25");
    retrievedChunks.forEach((chunk, index) => {
      assert.equal(attributes[`retrieval.documents.${index}.document.id`], chunk.chunkId);
      assert.equal(attributes[`retrieval.documents.${index}.document.content`], chunk.text);
      assert.equal(attributes[`retrieval.documents.${index}.document.score`], chunk.score);
      assert.equal(attributes[`ragscope.documents.${index}.rank`], index + 1);
    });
    assert.equal(attributes["retrieval.documents.3.document.id"], undefined);
    assert.deepEqual(JSON.parse(String(attributes["retrieval.documents.0.document.metadata"])), {
      document_id: "leave-policy",
      document_version: "2024-01",
      section_id: "3",
    });
    assert.deepEqual(JSON.parse(String(attributes["retrieval.documents.1.document.metadata"])), {
      document_id: "leave-policy",
      document_version: "2024-01",
    });
    assert.equal("retrieval.documents.2.document.metadata" in attributes, false, "no metadata when nothing is known");
    assert.equal(attributes["ragscope.documents.0.document_id"], "leave-policy");
    assert.equal(attributes["ragscope.documents.0.document_version"], "2024-01");
    assert.equal(attributes["ragscope.documents.0.section_id"], "3");
    assert.equal(attributes["ragscope.documents.0.effective_from"], "2024-01-01");
    assert.equal(attributes["ragscope.documents.0.effective_to"], "2024-12-31");
    assert.deepEqual(attributes["ragscope.documents.0.acl"], ["staff"]);
    assert.equal(attributes["ragscope.documents.0.tenant_id"], "acme");
    assert.equal("ragscope.documents.2.document_id" in attributes, false);
  });

  test("rag.rerank records the input order and the output order", async () => {
    await runPipeline();
    const attributes = spanNamed(tracing.spans(), "rag.rerank").attributes;
    assert.equal(attributes["reranker.query"], "annual leave days per year");
    assert.equal(attributes["reranker.model_name"], "rerank-small");
    assert.equal(attributes["reranker.top_k"], 2);
    retrievedChunks.forEach((chunk, index) => {
      assert.equal(attributes[`reranker.input_documents.${index}.document.id`], chunk.chunkId);
      assert.equal(attributes[`ragscope.rerank.input_documents.${index}.rank`], index + 1);
    });
    assert.equal(attributes["reranker.output_documents.0.document.id"], "leave-policy#4");
    assert.equal(attributes["reranker.output_documents.0.document.score"], 0.78);
    assert.equal(attributes["reranker.output_documents.1.document.id"], "leave-policy#3");
    assert.equal(attributes["reranker.output_documents.2.document.id"], undefined);
    assert.equal(attributes["ragscope.rerank.output_documents.0.rank"], 1);
    assert.equal(attributes["ragscope.rerank.output_documents.1.rank"], 2);
    assert.equal(attributes["ragscope.rerank.output_documents.1.section_id"], "3");
    assert.deepEqual(attributes["ragscope.rerank.output_documents.1.acl"], ["staff"]);
  });

  test("rag.rerank records each list's length before its documents, so a limit that drops the last attributes keeps it", async () => {
    await runPipeline();
    const attributes = spanNamed(tracing.spans(), "rag.rerank").attributes;
    assert.equal(attributes["ragscope.rerank.input_document_count"], retrievedChunks.length);
    assert.equal(attributes["ragscope.rerank.output_document_count"], 2);
    // The span keeps its attributes in the order they were set: the order an SDK past its limit keeps them in.
    const keys = Object.keys(attributes);
    const firstKey = (prefix: string) => keys.findIndex((key) => key.startsWith(prefix));
    assert.ok(keys.indexOf("ragscope.rerank.input_document_count") < firstKey("reranker.input_documents."));
    assert.ok(keys.indexOf("ragscope.rerank.input_document_count") < firstKey("ragscope.rerank.input_documents."));
    assert.ok(keys.indexOf("ragscope.rerank.output_document_count") < firstKey("reranker.output_documents."));
  });

  test("rag.context records packing order, drops with reasons, truncation and tokens", async () => {
    await runPipeline();
    const attributes = spanNamed(tracing.spans(), "rag.context").attributes;
    assert.deepEqual(attributes["ragscope.context.chunk_ids"], ["leave-policy#3", "leave-policy#4"]);
    assert.deepEqual(attributes["ragscope.context.dropped_chunk_ids"], ["travel-policy#1"]);
    assert.deepEqual(attributes["ragscope.context.dropped_reasons"], ["token_budget"]);
    assert.deepEqual(attributes["ragscope.context.truncated_chunk_ids"], ["leave-policy#4"]);
    assert.equal(attributes["ragscope.context.token_count"], 120);
    assert.equal(attributes["ragscope.context.token_budget"], 128);
    assert.equal(attributes["ragscope.context.text"], contextRecord.text);
  });

  test("rag.generate records model, messages, tokens, cost, time to first token and abstention", async () => {
    await runPipeline();
    const attributes = spanNamed(tracing.spans(), "rag.generate").attributes;
    assert.equal(attributes["llm.model_name"], "gpt-4o-mini");
    assert.equal(attributes["llm.provider"], "openai");
    assert.equal(attributes["llm.prompt_template.version"], "leave-v3");
    assert.equal(attributes["llm.input_messages.0.message.role"], "user");
    assert.equal(attributes["llm.input_messages.0.message.content"], prompt);
    assert.equal(attributes["llm.output_messages.0.message.role"], "assistant");
    assert.equal(attributes["llm.output_messages.0.message.content"], generation.text);
    assert.equal(attributes["llm.token_count.prompt"], 300);
    assert.equal(attributes["llm.token_count.completion"], 12);
    assert.equal(attributes["llm.token_count.total"], 312);
    assert.equal(attributes["llm.cost.total"], 0.0021);
    assert.equal(attributes["output.value"], generation.text);
    assert.equal(attributes["ragscope.answer"], generation.text);
    assert.equal(attributes["ragscope.generation.time_to_first_token_ms"], 180);
    assert.equal(attributes["ragscope.answer.abstained"], false);
  });

  test("rag.cite records the cited chunk ids", async () => {
    await runPipeline();
    assert.deepEqual(spanNamed(tracing.spans(), "rag.cite").attributes["ragscope.citations.chunk_ids"], ["leave-policy#3"]);
  });

  test("values pass through unchanged, from sync and async functions, with extractors", async () => {
    const appValue = { hits: retrievedChunks, latencyMs: 4 };
    const fromAsync = await traceRetrieve({ query }, async () => appValue, (value) => value.hits);
    assert.equal(fromAsync, appValue);
    const fromSync = await traceRetrieve({ query }, () => appValue, (value) => value.hits);
    assert.equal(fromSync, appValue);
    const rewritten = await traceQueryRewrite({ query }, () => "rewritten");
    assert.equal(rewritten, "rewritten");
    const generated = { completion: { text: "42" }, usage: 7 };
    const passed = await traceGenerate({ model: "m" }, () => generated, (value) => ({ text: value.completion.text, outputTokens: value.usage }));
    assert.equal(passed, generated);
    const spans = tracing.spans();
    assert.equal(spans.length, 4);
    assert.equal(spans[0]!.attributes["retrieval.documents.2.document.id"], "travel-policy#1");
    assert.equal(spanNamed(spans, "rag.generate").attributes["llm.token_count.completion"], 7);
    assert.equal("llm.token_count.total" in spanNamed(spans, "rag.generate").attributes, false, "no total without both counts");
  });

  test("each function runs exactly once", async () => {
    let calls = 0;
    await traceRequest({ query }, async () => {
      calls += 1;
      await traceCite(() => {
        calls += 1;
        return ["a"];
      });
      return "done";
    });
    assert.equal(calls, 2);
  });
});
