/**
 * The OTel GenAI, OpenLLMetry and OpenInference mappers on single spans: what
 * each convention carries is read, what it does not carry is null.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createMapperRegistry } from "../../../collector/04-normalize/normalize-spans.js";
import { openInferenceMapper } from "../../../collector/04-normalize/openinference-mapper.js";
import { openLlmetryMapper } from "../../../collector/04-normalize/openllmetry-mapper.js";
import { otelGenAiMapper } from "../../../collector/04-normalize/otel-genai-mapper.js";
import { event, spanRecord } from "./span-fixture.js";

const normalize = createMapperRegistry();

describe("OTel GenAI mapper", () => {
  const carryOverDocuments = [
    { id: "c1", score: 0.9, content: "Five days carry over.", metadata: { document_id: "leave", section_id: "s2", document_version: "v3" } },
    { id: "c2", score: "0.5" },
  ];
  const retrievalOf = (documents: unknown[]) =>
    otelGenAiMapper.map(
      spanRecord({
        attributes: { "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": "carry over?", "gen_ai.retrieval.documents": JSON.stringify(documents) },
      }),
    );

  test("retrieval: documents from the JSON, with content and metadata ids when present", () => {
    assert.deepEqual(retrievalOf(carryOverDocuments), {
      stage: "retrieve",
      query: "carry over?",
      documents: [
        { chunkId: "c1", documentId: "leave", documentVersion: "v3", sectionId: "s2", text: "Five days carry over.", score: 0.9, effectiveFrom: null, effectiveTo: null, acl: null, tenantId: null },
        { chunkId: "c2", documentId: null, documentVersion: null, sectionId: null, text: null, score: 0.5, effectiveFrom: null, effectiveTo: null, acl: null, tenantId: null },
      ],
    });
  });

  test("retrieval: an item that is no document makes the list unreadable, and says why", () => {
    const { unreadable, ...read } = retrievalOf([carryOverDocuments[0], "not a document", carryOverDocuments[1]]);
    // All or none, as the other readers read documents: without the item, c2 would rank second, not third.
    assert.deepEqual(read, { stage: "retrieve", query: "carry over?", documents: null });
    assert.deepEqual(unreadable?.map((note) => note.attribute), ["gen_ai.retrieval.documents"]);
    assert.match(unreadable![0]!.error, /^\[1\] is the text "not a document", not a document object/);
  });

  test("retrieval without documents (content not opted in): documents not available", () => {
    const observation = otelGenAiMapper.map(spanRecord({ attributes: { "gen_ai.operation.name": "retrieval", "gen_ai.data_source.id": "idx" } }));
    assert.deepEqual(observation, { stage: "retrieve", query: null, documents: null });
  });

  test("chat: model, current and deprecated token names, answer from output messages", () => {
    const current = otelGenAiMapper.map(
      spanRecord({
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.request.model": "gpt-4o",
          "gen_ai.response.model": "gpt-4o-2024-08-06",
          "gen_ai.usage.input_tokens": 100,
          "gen_ai.usage.output_tokens": 20,
          "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "Five " }, { type: "text", content: "days." }] }]),
        },
      }),
    );
    assert.deepEqual(current, { stage: "generate", model: "gpt-4o-2024-08-06", inputTokens: 100, outputTokens: 20, totalTokens: 120, cost: null, timeToFirstTokenMs: null, answer: "Five days.", abstained: null });
    const deprecated = otelGenAiMapper.map(
      spanRecord({ attributes: { "gen_ai.operation.name": "text_completion", "gen_ai.request.model": "m", "gen_ai.usage.prompt_tokens": 7, "gen_ai.completion.0.content": "old style" } }),
    );
    assert.equal(deprecated.stage === "generate" && deprecated.inputTokens, 7);
    assert.equal(deprecated.stage === "generate" && deprecated.outputTokens, null);
    assert.equal(deprecated.stage === "generate" && deprecated.totalTokens, null, "no total without both counts");
    assert.equal(deprecated.stage === "generate" && deprecated.answer, "old style");
  });

  test("a root invoke_workflow is the request, linked by ragscope.* attributes; nested, it is not", () => {
    const attributes = {
      "gen_ai.operation.name": "invoke_workflow",
      "gen_ai.input.messages": JSON.stringify([{ role: "system", parts: [{ type: "text", content: "be brief" }] }, { role: "user", parts: [{ type: "text", content: "q?" }] }]),
      "gen_ai.conversation.id": "conv-1",
      "ragscope.case_id": "case-1",
    };
    const root = otelGenAiMapper.map(spanRecord({ parentSpanId: "", attributes }));
    assert.equal(root.stage, "request");
    assert.equal(root.stage === "request" && root.query, "q?");
    assert.equal(root.stage === "request" && root.caseId, "case-1");
    assert.equal(root.stage === "request" && root.sessionId, "conv-1");
    assert.equal(root.stage === "request" && root.answer, null);
    assert.deepEqual(otelGenAiMapper.map(spanRecord({ attributes })), { stage: "other" });
  });
});

describe("OpenLLMetry mapper", () => {
  test("db.query.result events become the ranking, in event order", () => {
    const observation = openLlmetryMapper.map(
      spanRecord({
        attributes: { "db.system": "pinecone", "db.vector.query.top_k": 2 },
        events: [
          event("db.query.embeddings", { "db.query.embeddings.vector": "[0.1]" }),
          event("db.query.result", { "db.query.result.id": "c9", "db.query.result.score": 0.8, "db.query.result.document": "text nine", "db.query.result.metadata": JSON.stringify({ document_id: "d9" }) }),
          event("db.query.result", { "db.query.result.id": "c3", "db.query.result.distance": 0.4 }),
        ],
      }),
    );
    assert.equal(observation.stage, "retrieve");
    if (observation.stage !== "retrieve") return;
    assert.equal(observation.query, null, "OpenLLMetry does not record the query text");
    assert.deepEqual(observation.documents?.map((document) => [document.chunkId, document.score, document.text, document.documentId]), [
      ["c9", 0.8, "text nine", "d9"],
      ["c3", null, null, null],
    ]);
  });

  test("LLM spans read OpenLLMetry's GenAI attributes and llm.usage.total_tokens", () => {
    const observation = openLlmetryMapper.map(
      spanRecord({ attributes: { "llm.request.type": "chat", "gen_ai.request.model": "gpt", "gen_ai.usage.prompt_tokens": 10, "llm.usage.total_tokens": 14, "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "hi" } }),
    );
    assert.deepEqual(observation, { stage: "generate", model: "gpt", inputTokens: 10, outputTokens: null, totalTokens: 14, cost: null, timeToFirstTokenMs: null, answer: "hi", abstained: null });
  });

  test("an embedding call (llm.request.type embedding, as OpenLLMetry's OpenAI instrumentation writes it) is no generation", () => {
    // Attributes of Python OpenLLMetry's `openai.embeddings` span (LLMRequestTypeValues.EMBEDDING).
    const observation = openLlmetryMapper.map(
      spanRecord({ name: "openai.embeddings", attributes: { "llm.request.type": "embedding", "gen_ai.system": "openai", "gen_ai.request.model": "text-embedding-3-small", "gen_ai.usage.prompt_tokens": 8, "llm.usage.total_tokens": 8 } }),
    );
    assert.deepEqual(observation, { stage: "other" });
  });

  test("a rerank call (llm.request.type rerank, as OpenLLMetry's Cohere instrumentation writes it) is the rerank, no generation", () => {
    // Attributes of Python OpenLLMetry's `cohere.rerank` span (span_utils.py: the documents as system prompts, the
    // query as the last user prompt, the ranking as completions "Doc <index>, Score: <relevance>").
    const observation = openLlmetryMapper.map(
      spanRecord({
        name: "cohere.rerank",
        attributes: {
          "llm.request.type": "rerank",
          "gen_ai.system": "Cohere",
          "gen_ai.request.model": "rerank-multilingual-v2.0",
          "gen_ai.prompt.0.role": "system",
          "gen_ai.prompt.0.content": "Carson City is the capital city of the American state of Nevada.",
          "gen_ai.prompt.1.role": "system",
          "gen_ai.prompt.1.content": "Washington, D.C. is the capital of the United States.",
          "gen_ai.prompt.2.role": "user",
          "gen_ai.prompt.2.content": "What is the capital of the United States?",
          "gen_ai.completion.0.role": "assistant",
          "gen_ai.completion.0.content": "Doc 1, Score: 0.98",
          "gen_ai.completion.1.role": "assistant",
          "gen_ai.completion.1.content": "Doc 0, Score: 0.07",
        },
      }),
    );
    // Texts without ids: the rebuild names them by the retrieval's texts (test/unit/normalize/openllmetry-rerank.test.ts).
    const textOnly = (text: string, score: number | null) => ({ chunkId: null, documentId: null, documentVersion: null, sectionId: null, text, score, effectiveFrom: null, effectiveTo: null, acl: null, tenantId: null });
    assert.deepEqual(observation, {
      stage: "rerank",
      query: "What is the capital of the United States?",
      input: [textOnly("Carson City is the capital city of the American state of Nevada.", null), textOnly("Washington, D.C. is the capital of the United States.", null)],
      output: [textOnly("Washington, D.C. is the capital of the United States.", 0.98), textOnly("Carson City is the capital city of the American state of Nevada.", 0.07)],
      documentsNamedByText: true,
    });
  });

  test("the root workflow: query from entity input, linkage from association properties", () => {
    const observation = openLlmetryMapper.map(
      spanRecord({
        parentSpanId: "",
        attributes: {
          "traceloop.span.kind": "workflow",
          "traceloop.entity.input": JSON.stringify({ args: [], kwargs: { question: "q?" } }),
          "traceloop.entity.output": JSON.stringify({ answer: "a." }),
          "traceloop.association.properties.ragscope.run_id": "run-1",
          "traceloop.association.properties.run_id": "not ours",
        },
      }),
    );
    assert.equal(observation.stage, "request");
    if (observation.stage !== "request") return;
    assert.deepEqual([observation.query, observation.answer, observation.runId, observation.caseId], ["q?", "a.", "run-1", null]);
  });
});

describe("Traceloop's Python LangChain instrumentation (opentelemetry-instrumentation-langchain 0.62)", () => {
  // The shapes of test/golden/traces/langchain-python-traceloop.otlp.json: a chain step's input and output beside the
  // callback's own arguments, LangChain objects in LangChain's serialised form, a retriever span of its own.
  const stepInput = (inputs: unknown) => JSON.stringify({ inputs, tags: ["seq:step:1"], metadata: {}, kwargs: { name: "step" } });
  const stepOutput = (outputs: unknown) => JSON.stringify({ outputs, kwargs: { tags: [] } });
  const serialised = (kwargs: Record<string, unknown>, className = "Document") => ({ lc: 1, type: "constructor", id: ["langchain", "schema", "document", className], kwargs });
  const retriever = (output: string, input = JSON.stringify({ query: "carry over?", tags: [], metadata: {}, kwargs: { name: "VectorStoreRetriever" } })) =>
    normalize(
      spanRecord({
        name: "vector_db_retrieve VectorStoreRetriever",
        attributes: { "gen_ai.operation.name": "vector_db_retrieve", "traceloop.span.kind": "task", "traceloop.entity.input": input, "traceloop.entity.output": output },
      }),
    );
  const step = (input: string, output: string) =>
    normalize(spanRecord({ attributes: { "gen_ai.operation.name": "execute_task", "traceloop.span.kind": "task", "traceloop.entity.input": input, "traceloop.entity.output": output } })).observation;

  test("the root chain (`invoke_agent`, no messages) is OpenLLMetry's request: query from its inputs, answer from its outputs", () => {
    const root = (input: unknown, output: unknown) =>
      normalize(
        spanRecord({
          parentSpanId: "",
          attributes: {
            "traceloop.span.kind": "workflow",
            "gen_ai.operation.name": "invoke_agent",
            "traceloop.entity.input": stepInput(input),
            "traceloop.entity.output": stepOutput(output),
            "traceloop.association.properties.ragscope.case_id": "case-1",
          },
        }),
      );
    const plain = root("carry over?", "Five days.");
    assert.equal(plain.convention, "openllmetry", "not the GenAI mapper's: it read no query and no answer from this span");
    assert.equal(plain.observation.stage, "request");
    if (plain.observation.stage !== "request") return;
    assert.deepEqual([plain.observation.query, plain.observation.answer, plain.observation.caseId], ["carry over?", "Five days.", "case-1"]);
    const named = root({ question: "carry over?", history: [] }, { answer: "Five days." }).observation;
    assert.deepEqual(named.stage === "request" && [named.query, named.answer], ["carry over?", "Five days."], "a chain called with a dict");
  });

  test("a chat or retrieval span with a Traceloop kind is still read from its GenAI record", () => {
    const chat = normalize(spanRecord({ attributes: { "gen_ai.operation.name": "chat", "traceloop.span.kind": "task", "gen_ai.usage.input_tokens": 3 } }));
    assert.deepEqual([chat.convention, chat.observation.stage], ["otel_genai", "generate"]);
    const retrieval = normalize(
      spanRecord({ attributes: { "gen_ai.operation.name": "retrieval", "traceloop.span.kind": "task", "gen_ai.retrieval.documents": JSON.stringify([{ id: "c1", score: 0.5 }]) } }),
    );
    assert.deepEqual([retrieval.convention, retrieval.observation.stage === "retrieve" && retrieval.observation.documents?.map((document) => document.chunkId)], ["otel_genai", ["c1"]]);
  });

  test("the retriever span: the query, each document's text and metadata; a chunk id only from the metadata (the span has no Document.id)", () => {
    const read = retriever(
      JSON.stringify({
        documents: [
          { page_content: "Five days carry over.", metadata: { chunk_id: "c1", document_id: "leave", section_id: "s2" } },
          { page_content: "Sick leave: ten days.", metadata: { document_id: "leave" } },
        ],
        count: 2,
      }),
    );
    assert.equal(read.convention, "openllmetry");
    assert.equal(read.observation.stage, "retrieve");
    if (read.observation.stage !== "retrieve") return;
    assert.equal(read.observation.query, "carry over?");
    assert.deepEqual(
      read.observation.documents?.map((document) => [document.chunkId, document.text, document.documentId, document.sectionId, document.score]),
      [
        ["c1", "Five days carry over.", "leave", "s2", null],
        [null, "Sick leave: ten days.", "leave", null, null],
      ],
    );
  });

  test("the retriever span: an empty list is a retrieval that found nothing; a list with an item that is no document, or JSON that does not parse, gives no documents", () => {
    assert.deepEqual(retriever(JSON.stringify({ documents: [], count: 0 })).observation, { stage: "retrieve", query: "carry over?", documents: [] });
    const withText = retriever(JSON.stringify({ documents: [{ page_content: "one", metadata: {} }, "Document(page_content='two')"], count: 2 })).observation;
    assert.ok(withText.stage === "retrieve");
    assert.deepEqual([withText.query, withText.documents], ["carry over?", null]);
    // Why, for the Case Result (unread-retriever-documents.ts): the item that is no document, by its index and text.
    assert.deepEqual(withText.unreadable?.map((unread) => unread.attribute), ["traceloop.entity.output"]);
    assert.ok(withText.unreadable![0]!.error.startsWith(`documents[1] is the text "Document(page_content='two')", not a LangChain Document`), withText.unreadable![0]!.error);
    // What the receiver's value limit leaves of a long output: cut mid-JSON.
    const truncated = JSON.stringify({ documents: [{ page_content: "one", metadata: {} }], count: 1 }).slice(0, 30);
    const cut = retriever(truncated, "{\"query\": \"carry");
    assert.deepEqual(cut.observation, { stage: "retrieve", query: null, documents: null });
    assert.deepEqual(
      cut.malformedJson.map((malformed) => malformed.attribute),
      ["traceloop.entity.input", "traceloop.entity.output"],
      "listed on the Case Result, not read as nothing recorded",
    );
  });

  test("serialised Documents: a step from Documents to text is the context (ids from the Documents), a step returning them a retrieval", () => {
    const documents = [
      serialised({ id: "c1", page_content: "Five days carry over.", metadata: { document_id: "leave" }, type: "Document" }),
      serialised({ page_content: "Sick leave: ten days.", metadata: { chunk_id: "c2" }, type: "Document" }),
    ];
    assert.deepEqual(step(stepInput(documents), stepOutput("Five days carry over.\n\nSick leave: ten days.")), {
      stage: "context",
      chunkIds: ["c1", "c2"],
      droppedChunks: null,
      truncatedChunkIds: null,
      text: "Five days carry over.\n\nSick leave: ten days.",
      tokenCount: null,
      tokenBudget: null,
    });
    const returned = step(stepInput("carry over?"), stepOutput(documents));
    assert.equal(returned.stage, "retrieve");
    if (returned.stage !== "retrieve") return;
    assert.equal(returned.query, "carry over?");
    assert.deepEqual(returned.documents?.map((document) => [document.chunkId, document.text, document.documentId]), [
      ["c1", "Five days carry over.", "leave"],
      ["c2", "Sick leave: ten days.", null],
    ]);
  });

  test("not documents: other serialised classes, a Document without text, a step's own object that has an `outputs` field", () => {
    const message = serialised({ content: "Five days.", type: "ai" }, "AIMessage");
    assert.deepEqual(step(stepInput("q"), stepOutput([message])), { stage: "other" });
    assert.deepEqual(step(stepInput("q"), stepOutput([serialised({ id: "c1", metadata: {} })])), { stage: "other" });
    assert.deepEqual(step(stepInput("q"), stepOutput([{ lc: 2, type: "constructor", id: ["Document"], kwargs: { page_content: "x" } }])), { stage: "other" });
    // The step returned {outputs: [...], extra: 1} itself: unwrapped once, it is that object, not a list.
    assert.deepEqual(step(stepInput("q"), stepOutput({ outputs: [serialised({ page_content: "x" })], extra: 1 })), { stage: "other" });
    // Without the callback's wrapping (a key that is not the callback's), the object is not taken apart.
    assert.deepEqual(step(stepInput("q"), JSON.stringify({ outputs: [serialised({ page_content: "x" })], extra: 1 })), { stage: "other" });
  });
});

describe("OpenInference mapper", () => {
  test("documents without any id are kept at their rank with an empty chunk id", () => {
    const observation = openInferenceMapper.map(
      spanRecord({ attributes: { "openinference.span.kind": "RETRIEVER", "input.value": "q", "retrieval.documents.0.document.content": "no ids here", "retrieval.documents.1.document.id": "c2" } }),
    );
    assert.equal(observation.stage === "retrieve" && observation.documents?.map((document) => [document.chunkId, document.text]).join("|"), ",no ids here|c2,");
  });

  test("JSON input and output values give the query and the answer; metadata JSON the linkage", () => {
    const observation = openInferenceMapper.map(
      spanRecord({
        parentSpanId: "",
        attributes: {
          "openinference.span.kind": "CHAIN",
          "input.value": JSON.stringify({ question: "q?", chat_history: [] }),
          "input.mime_type": "application/json",
          "output.value": JSON.stringify({ answer: "a." }),
          "output.mime_type": "application/json",
          metadata: JSON.stringify({ "ragscope.case_id": "case-1", "ragscope.case_version": "v2", run_id: "not ours" }),
        },
      }),
    );
    assert.equal(observation.stage, "request");
    if (observation.stage !== "request") return;
    assert.deepEqual([observation.query, observation.answer, observation.caseId, observation.caseVersion, observation.runId], ["q?", "a.", "case-1", "v2", null]);
  });

  test("a chain from documents to text is the context assembly; other nested chains are not stages", () => {
    const documents = [{ pageContent: "one", metadata: { chunk_id: "c1" } }, { pageContent: "two", metadata: {} }];
    const context = openInferenceMapper.map(
      spanRecord({ attributes: { "openinference.span.kind": "CHAIN", "input.value": JSON.stringify({ input: documents }), "input.mime_type": "application/json", "output.value": "one\n\ntwo", "output.mime_type": "text/plain" } }),
    );
    assert.deepEqual(context, { stage: "context", chunkIds: ["c1", null], droppedChunks: null, truncatedChunkIds: null, text: "one\n\ntwo", tokenCount: null, tokenBudget: null });
    const other = openInferenceMapper.map(spanRecord({ attributes: { "openinference.span.kind": "CHAIN", "input.value": "{\"a\":1}", "input.mime_type": "application/json" } }));
    assert.deepEqual(other, { stage: "other" });
  });

  test("LlamaIndex's synthesizer (text_chunks in, text out) is the context assembly: the chunks packed as LlamaIndex packs them, no ids", () => {
    const synthesizer = (textChunks: unknown, output: string | null = "The answer.") =>
      openInferenceMapper.map(
        spanRecord({
          attributes: {
            "openinference.span.kind": "CHAIN",
            "input.value": JSON.stringify({ query_str: "q?", text_chunks: textChunks }),
            "input.mime_type": "application/json",
            ...(output === null ? {} : { "output.value": output }),
          },
        }),
      );
    // PromptHelper.repack: each chunk stripped, blank chunks left out, a blank line between chunks.
    assert.deepEqual(synthesizer(["section: s2\n\nFive days carry over. ", "  ", "\nSick leave: ten days."]), {
      stage: "context",
      chunkIds: null,
      droppedChunks: null,
      truncatedChunkIds: null,
      text: "section: s2\n\nFive days carry over.\n\nSick leave: ten days.",
      tokenCount: null,
      tokenBudget: null,
    });
    assert.deepEqual(synthesizer([]), { stage: "other" }, "no chunks: not told apart from any other step");
    assert.deepEqual(synthesizer(["text", { node: "not text" }]), { stage: "other" }, "a list that is not all text is not read");
    assert.deepEqual(synthesizer(["text"], null), { stage: "other" }, "without a text output it is not a synthesis");
  });

  test("the model name from the invocation parameters when llm.model_name is absent", () => {
    const observation = openInferenceMapper.map(spanRecord({ attributes: { "openinference.span.kind": "LLM", "llm.invocation_parameters": JSON.stringify({ model: "claude" }) } }));
    assert.equal(observation.stage === "generate" && observation.model, "claude");
  });
});

describe("mapper registry priority", () => {
  test("ragscope > OpenInference > OTel GenAI > OpenLLMetry", () => {
    const both = spanRecord({ attributes: { "ragscope.stage": "cite", "ragscope.citations.chunk_ids": ["c1"], "openinference.span.kind": "CHAIN", "gen_ai.operation.name": "chat" } });
    assert.equal(normalize(both).convention, "ragscope");
    assert.equal(normalize(spanRecord({ attributes: { "openinference.span.kind": "LLM", "gen_ai.operation.name": "chat" } })).convention, "openinference");
    assert.equal(normalize(spanRecord({ attributes: { "gen_ai.operation.name": "chat", "llm.request.type": "chat" } })).convention, "otel_genai");
    assert.equal(normalize(spanRecord({ attributes: { "llm.request.type": "chat" } })).convention, "openllmetry");
    assert.equal(normalize(spanRecord({ attributes: { "http.method": "GET" } })).convention, "none");
  });
});

describe("LlamaIndex rerankers that OpenInference writes as CHAIN spans", () => {
  const node = (id: string, score: string) => `<NodeWithScore(node=TextNode(id_=${id}), score=${score})>`;
  const postprocessor = (name: string, output: string[]) =>
    normalize(
      spanRecord({
        name,
        attributes: {
          "openinference.span.kind": "CHAIN",
          "input.value": JSON.stringify({ nodes: [node("a", "0.7"), node("b", "None")], query_bundle: { query_str: "refunds?" } }),
          "input.mime_type": "application/json",
          "output.value": JSON.stringify(output),
          "output.mime_type": "application/json",
        },
      }),
    ).observation;

  test("a reranker's _postprocess_nodes span: input and output nodes by id and score, the query from the query bundle", () => {
    const observation = postprocessor("SentenceTransformerRerank._postprocess_nodes", [node("b", "0.93"), node("id with ), score= inside", "nan")]);
    assert.equal(observation.stage, "rerank");
    if (observation.stage !== "rerank") return;
    assert.equal(observation.query, "refunds?");
    assert.deepEqual(observation.input?.map((document) => [document.chunkId, document.score]), [["a", 0.7], ["b", null]]);
    assert.deepEqual(observation.output?.map((document) => [document.chunkId, document.score]), [["b", 0.93], ["id with ), score= inside", null]]);
  });

  test("a filter is no rerank, and an output that is not a list of nodes is not read as one", () => {
    assert.deepEqual(postprocessor("SimilarityPostprocessor._postprocess_nodes", [node("a", "0.7")]), { stage: "other" });
    assert.deepEqual(postprocessor("LLMRerank._postprocess_nodes", [node("a", "0.7"), "Empty Response"]), { stage: "other" });
  });
});
