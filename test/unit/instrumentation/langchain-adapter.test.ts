/**
 * The LangChain callback handler beyond the golden chain: inside traceRequest
 * it adds no second request; errors end spans as errors; streaming models get a
 * time to first token; documents without ids keep their rank and text, in the
 * retrieval and in the context they are packed into.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { SpanStatusCode } from "@opentelemetry/api";
import { Document } from "@langchain/core/documents";
import { BaseRetriever } from "@langchain/core/retrievers";
import { RunnableLambda, RunnableSequence } from "@langchain/core/runnables";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { RagscopeCallbackHandler } from "../../../instrumentation/adapters/langchain.js";
import { instrumentationErrors, traceRequest } from "../../../instrumentation/index.js";
import { spanNamed, startInMemoryTracing, type InMemoryTracing } from "./in-memory-tracing.js";

class ListRetriever extends BaseRetriever {
  override lc_namespace = ["test"];
  constructor(private readonly documents: Document[] | Error) {
    super();
  }
  override async _getRelevantDocuments(): Promise<Document[]> {
    if (this.documents instanceof Error) throw this.documents;
    return this.documents;
  }
}

describe("RagscopeCallbackHandler", () => {
  let tracing: InMemoryTracing;
  before(() => {
    tracing = startInMemoryTracing();
  });
  beforeEach(() => tracing.reset());
  after(async () => tracing.stop());

  test("inside traceRequest the chain adds stages to that request, not a second request", async () => {
    const chain = RunnableLambda.from(async (question: string, config) => {
      const documents = await new ListRetriever([new Document({ pageContent: "text without ids", metadata: { source: "handbook.pdf" } })]).invoke(question, config);
      return documents.length;
    });
    const count = await traceRequest({ query: "q" }, () => chain.invoke("q", { callbacks: [new RagscopeCallbackHandler()] }));
    assert.equal(count, 1);
    const spans = tracing.spans();
    assert.deepEqual(spans.map((span) => span.name).sort(), ["rag.request", "rag.retrieve"]);
    const retrieve = spanNamed(spans, "rag.retrieve");
    assert.equal(retrieve.parentSpanContext?.spanId, spanNamed(spans, "rag.request").spanContext().spanId);
    assert.equal(retrieve.attributes["retrieval.documents.0.document.id"], "", "no id is made up");
    assert.equal(retrieve.attributes["retrieval.documents.0.document.content"], "text without ids");
    assert.equal(retrieve.attributes["ragscope.documents.0.document_id"], "handbook.pdf");
    assert.equal(retrieve.attributes["ragscope.documents.0.rank"], 1);
  });

  test("a Document without an id keeps the context: packed at its position with an empty id, the others with theirs", async () => {
    const documents = [
      new Document({ pageContent: "Refunds within 30 days.", metadata: { chunk_id: "refund-1" } }),
      new Document({ pageContent: "Keep the receipt." }),
      new Document({ pageContent: "Store credit otherwise.", metadata: { chunk_id: "refund-3" } }),
    ];
    const formatDocuments = RunnableLambda.from((packed: Document[]) => packed.map((document) => document.pageContent).join("\n\n")).withConfig({ runName: "formatDocuments" });
    const chain = RunnableSequence.from([new ListRetriever(documents), formatDocuments]);
    const errorsBefore = instrumentationErrors();
    const context = await chain.invoke("refund?", { callbacks: [new RagscopeCallbackHandler()] });
    assert.equal(context, "Refunds within 30 days.\n\nKeep the receipt.\n\nStore credit otherwise.");
    const recorded = spanNamed(tracing.spans(), "rag.context");
    assert.deepEqual(recorded.attributes["ragscope.context.chunk_ids"], ["refund-1", "", "refund-3"], "the collector reads the empty id as a chunk without an id");
    assert.equal(recorded.attributes["ragscope.context.text"], context);
    assert.equal(instrumentationErrors(), errorsBefore, "no problem is counted or said on stderr: the adapter built the record, not the application");
  });

  test("a failing retriever ends its span and the request as errors; the error reaches the caller", async () => {
    const failure = new Error("index offline");
    const chain = RunnableLambda.from(async (question: string, config) => new ListRetriever(failure).invoke(question, config));
    await assert.rejects(chain.invoke("q", { callbacks: [new RagscopeCallbackHandler()] }), (error) => error === failure);
    const spans = tracing.spans();
    for (const name of ["rag.retrieve", "rag.request"]) assert.equal(spanNamed(spans, name).status.code, SpanStatusCode.ERROR, name);
    assert.equal(spanNamed(spans, "rag.retrieve").status.message, "index offline");
  });

  test("a streaming model gets a time to first token", async () => {
    const model = new FakeListChatModel({ responses: ["streamed answer"], sleep: 5 });
    let text = "";
    for await (const chunk of await model.stream("q", { callbacks: [new RagscopeCallbackHandler()] })) text += chunk.content;
    assert.equal(text, "streamed answer");
    const generate = spanNamed(tracing.spans(), "rag.generate");
    const firstToken = generate.attributes["ragscope.generation.time_to_first_token_ms"] as number;
    assert.ok(firstToken >= 4 && firstToken < 1000, `time to first token ${firstToken}`);
    assert.equal(generate.attributes["ragscope.answer"], "streamed answer");
    assert.equal(generate.attributes["llm.provider"], "FakeListChatModel");
  });

  const policyDocuments = () => [
    new Document({ pageContent: "Refunds within 30 days.", metadata: { chunk_id: "refund-1" } }),
    new Document({ pageContent: "Old refund rule.", metadata: { chunk_id: "refund-old", obsolete: true } }),
    new Document({ pageContent: "Store credit otherwise.", metadata: { chunk_id: "refund-3" } }),
  ];
  const formatDocuments = () => RunnableLambda.from((packed: Document[]) => packed.map((document) => document.pageContent).join("\n\n")).withConfig({ runName: "formatDocuments" });

  test("streamed (chain.stream), the step from documents to text is still the context: LangChain gives it its input only at its end", async () => {
    const chain = RunnableSequence.from([new ListRetriever(policyDocuments()), formatDocuments(), new FakeListChatModel({ responses: ["Within 30 days."] })]);
    let answer = "";
    for await (const chunk of await chain.stream("refund?", { callbacks: [new RagscopeCallbackHandler()] })) answer += chunk.content;
    assert.equal(answer, "Within 30 days.");
    const spans = tracing.spans();
    assert.deepEqual(spans.map((span) => span.name).sort(), ["rag.context", "rag.generate", "rag.request", "rag.retrieve"]);
    const recorded = spanNamed(spans, "rag.context");
    assert.deepEqual(recorded.attributes["ragscope.context.chunk_ids"], ["refund-1", "refund-old", "refund-3"]);
    assert.equal(recorded.attributes["ragscope.context.text"], "Refunds within 30 days.\n\nOld refund rule.\n\nStore credit otherwise.");
    assert.equal(recorded.parentSpanContext?.spanId, spanNamed(spans, "rag.request").spanContext().spanId);
  });

  test("a step from documents to documents (a filter) is no context: only the step that makes the text is, with the chunks it packed", async () => {
    const dropObsolete = RunnableLambda.from((documents: Document[]) => documents.filter((document) => document.metadata.obsolete !== true)).withConfig({ runName: "dropObsolete" });
    const chain = RunnableSequence.from([new ListRetriever(policyDocuments()), dropObsolete, formatDocuments()]);
    const errorsBefore = instrumentationErrors();
    await chain.invoke("refund?", { callbacks: [new RagscopeCallbackHandler()] });
    const contexts = tracing.spans().filter((span) => span.name === "rag.context");
    assert.equal(contexts.length, 1);
    assert.deepEqual(contexts[0]!.attributes["ragscope.context.chunk_ids"], ["refund-1", "refund-3"]);
    assert.equal(instrumentationErrors(), errorsBefore, "nothing said on stderr about a context text that is no text");
  });

  test("a retrieval inside a tool (an agent's) belongs to the request, not to a trace of its own", async () => {
    const search = tool(async ({ query }: { query: string }, config) => (await new ListRetriever(policyDocuments()).invoke(query, config)).length, {
      name: "search_policies",
      description: "search the policies",
      schema: z.object({ query: z.string() }),
    });
    const agent = RunnableLambda.from(async (question: string, config) => search.invoke({ query: question }, config));
    await agent.invoke("refund?", { callbacks: [new RagscopeCallbackHandler()] });
    const spans = tracing.spans();
    const request = spanNamed(spans, "rag.request");
    const retrieve = spanNamed(spans, "rag.retrieve");
    assert.equal(retrieve.spanContext().traceId, request.spanContext().traceId);
    assert.equal(retrieve.parentSpanContext?.spanId, request.spanContext().spanId);
  });

  test("a model that names no model records none, not its class name", async () => {
    await new FakeListChatModel({ responses: ["a"] }).invoke("q", { callbacks: [new RagscopeCallbackHandler()] });
    assert.equal(spanNamed(tracing.spans(), "rag.generate").attributes["llm.model_name"], undefined);
  });
});
