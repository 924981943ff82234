/**
 * What the collector does with traces it can read only in part, through the
 * embedded collector (OTLP/HTTP receiver → bus → worker → ClickHouse engine),
 * reading the store afterwards:
 * - JSON attributes that do not parse (a document's metadata, a GenAI
 *   retrieval's documents, an output message list) are counted and listed on
 *   the stored Case Result, not read silently as "no retrieval";
 * - a context whose packed list names a chunk with an empty id is stored,
 *   that chunk without an id (null) at its position, with a note; an empty
 *   id among the cited, dropped or truncated ids is left out of its list,
 *   with a note, and never counted as a citation outside the context;
 * - token counts whose sum is beyond the largest number (Infinity, which the
 *   schema refuses: it used to dead-letter the whole request) are stored as
 *   not available, with a note naming the values, and the request is
 *   evaluated.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { SpanKind, trace } from "@opentelemetry/api";
import { caseResult as caseResultSchema } from "../../../contracts/case-result.js";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { startEmbeddedCollector, type EmbeddedCollector } from "../../../collector/wiring/run/embedded-collector.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";
import { queryRows } from "../../support/temporary-store.js";

const TRUNCATED_METADATA = '{"document_id": "leave_policy", "score": 0.9';
const TRUNCATED_DOCUMENTS = '[{"id": "c1", "score": 0.9}, {"id": "c2"';

describe("partly readable traces through the embedded collector", () => {
  let recorder: SpanRecorder;
  let dataPath: string;
  before(async () => {
    recorder = startSpanRecorder("partly-readable");
    dataPath = await mkdtemp(path.join(os.tmpdir(), "ragscope-case-result-checks-"));
  });
  after(async () => {
    await recorder.shutdown();
    await rm(dataPath, { recursive: true, force: true });
  });

  async function withCollector<Value>(database: string, work: (collector: EmbeddedCollector) => Promise<Value>): Promise<Value> {
    const config = loadSettings({ fixed: { "receiver.port": 0, "assembler.quietPeriodMs": 100, "clickhouse.dataPath": dataPath, "clickhouse.database": database } });
    assert.ok(config.ok);
    const collector = await startEmbeddedCollector(config.value);
    try {
      return await work(collector);
    } finally {
      await collector.close();
    }
  }

  async function storedResults(collector: EmbeddedCollector) {
    assert.ok(await collector.waitUntilIdle(10_000), "collector did not become idle");
    const rows = await queryRows<{ trace_id: string; payload: string }>(collector.store.connection, "SELECT trace_id, payload FROM {{database}}.case_results FINAL ORDER BY trace_id");
    return rows.map((row) => caseResultSchema.parse(JSON.parse(row.payload)));
  }

  test("malformed JSON in document and message attributes: counted and listed on the stored Case Result", async () => {
    recorder.reset();
    const tracer = trace.getTracer("partly-readable");
    // An OpenInference chain: one retrieved document with readable metadata, one with truncated metadata.
    tracer.startActiveSpan("rag_chain", { attributes: { "openinference.span.kind": "CHAIN", "input.value": "carry over?", "input.mime_type": "text/plain" } }, (root) => {
      tracer
        .startSpan("retriever", {
          attributes: {
            "openinference.span.kind": "RETRIEVER",
            "retrieval.documents.0.document.id": "leave_v3_s2",
            "retrieval.documents.0.document.content": "Five days carry over.",
            "retrieval.documents.0.document.metadata": JSON.stringify({ document_id: "leave_policy", score: 0.8 }),
            "retrieval.documents.1.document.id": "leave_v2_s2",
            "retrieval.documents.1.document.content": "Nothing carries over.",
            "retrieval.documents.1.document.metadata": TRUNCATED_METADATA,
          },
        })
        .end();
      root.end();
    });
    // An OTel GenAI workflow whose retrieval documents and answer messages are cut off.
    tracer.startActiveSpan("invoke_workflow rag", { attributes: { "gen_ai.operation.name": "invoke_workflow" } }, (root) => {
      tracer
        .startSpan("retrieval index", { kind: SpanKind.CLIENT, attributes: { "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": "carry over?", "gen_ai.retrieval.documents": TRUNCATED_DOCUMENTS } })
        .end();
      tracer
        .startSpan("chat model", { kind: SpanKind.CLIENT, attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.output.messages": '[{"role": "assistant", "parts": [' } })
        .end();
      root.end();
    });
    const spans = recorder.spans();
    const retrieverSpanId = spans.find((span) => span.name === "retriever")!.spanContext().spanId;

    const { results, counted } = await withCollector("malformed_json", async (collector) => {
      assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(spans)), 200);
      const results = await storedResults(collector);
      return { results, counted: collector.worker.counters.malformedJsonAttributes };
    });
    assert.equal(results.length, 2, "both traces are stored");
    assert.equal(counted, 3, "ragscope_malformed_json_attributes_total counts every attribute that did not parse");

    const openInference = results.find((result) => result.rag_observation.source_conventions.includes("openinference"))!;
    assert.deepEqual(
      openInference.rag_observation.malformed_attributes.map(({ span_id, span_name, attribute }) => ({ span_id, span_name, attribute })),
      [{ span_id: retrieverSpanId, span_name: "retriever", attribute: "retrieval.documents.1.document.metadata" }],
    );
    assert.match(openInference.rag_observation.malformed_attributes[0]!.error, /JSON/);
    // The document itself is kept; what its metadata held is not available, and not taken from the first document.
    assert.deepEqual(
      openInference.rag_observation.retrieved_chunks!.map((chunk) => [chunk.chunk_id, chunk.document_id, chunk.score]),
      [
        ["leave_v3_s2", "leave_policy", 0.8],
        ["leave_v2_s2", null, null],
      ],
    );

    const genAi = results.find((result) => result.rag_observation.source_conventions.includes("otel_genai"))!;
    assert.deepEqual(genAi.rag_observation.malformed_attributes.map((entry) => `${entry.span_name}: ${entry.attribute}`).sort(), [
      "chat model: gen_ai.output.messages",
      "retrieval index: gen_ai.retrieval.documents",
    ]);
    assert.equal(genAi.rag_observation.retrieved_chunks, null, "the documents are not available; the note says why");
    assert.equal(genAi.output, null);
  });

  test("a context whose packed list has an empty chunk id is stored, that chunk without an id and a note saying why", async () => {
    recorder.reset();
    const tracer = trace.getTracer("partly-readable");
    // A sender other than the SDK names a packed chunk it has no id for with an empty id.
    tracer.startActiveSpan("empty_chunk_id", { attributes: { "openinference.span.kind": "CHAIN", "input.value": "refund?", "input.mime_type": "text/plain" } }, (root) => {
      tracer.startSpan("rag.context", { attributes: { "ragscope.stage": "context", "ragscope.context.chunk_ids": ["refund-1", ""], "ragscope.context.truncated_chunk_ids": [""], "ragscope.context.text": "Refunds within 30 days." } }).end();
      root.end();
    });
    const spans = recorder.spans();
    const contextSpanId = spans.find((span) => span.name === "rag.context")!.spanContext().spanId;

    const { results, letters } = await withCollector("empty_packed_chunk_id", async (collector) => {
      assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(spans)), 200);
      return { results: await storedResults(collector), letters: [...collector.deadLetters.letters] };
    });
    assert.deepEqual(letters, [], "the request is not dead-lettered");
    assert.equal(results.length, 1, "the request is stored");
    const observation = results[0]!.rag_observation;
    assert.equal(observation.context, "Refunds within 30 days.");
    assert.deepEqual(observation.context_chunks, [
      { chunk_id: "refund-1", position: 1, truncated: false },
      { chunk_id: null, position: 2, truncated: false },
    ]);
    const notes = observation.malformed_attributes.filter((note) => note.span_id === contextSpanId);
    assert.deepEqual(
      notes.map(({ span_name, attribute, kind }) => ({ span_name, attribute, kind })),
      [
        { span_name: "rag.context", attribute: "ragscope.context.chunk_ids", kind: "unreadable_value" },
        { span_name: "rag.context", attribute: "ragscope.context.truncated_chunk_ids", kind: "unreadable_value" },
      ],
    );
    assert.match(notes[0]!.error, /element 1 is an empty chunk id/);
    assert.match(notes[1]!.error, /^element 0 of the 1 truncated chunk ids received is an empty chunk id \(""\)/);
  });

  test("a citation click whose chunk id is empty: the chunk it is about is not known (null), with a note, not a chunk named \"\"", async () => {
    recorder.reset();
    const tracer = trace.getTracer("partly-readable");
    tracer.startActiveSpan("clicked", { attributes: { "openinference.span.kind": "CHAIN", "input.value": "refund?", "input.mime_type": "text/plain" } }, (root) => {
      tracer.startSpan("rag.feedback", { attributes: { "ragscope.stage": "feedback", "ragscope.feedback.kind": "citation_click", "ragscope.feedback.chunk_id": "" } }).end();
      tracer.startSpan("rag.feedback", { attributes: { "ragscope.stage": "feedback", "ragscope.feedback.kind": "citation_click", "ragscope.feedback.chunk_id": "refund-1" } }).end();
      root.end();
    });
    const spans = recorder.spans();
    const [emptySpanId] = spans.filter((span) => span.name === "rag.feedback" && span.attributes["ragscope.feedback.chunk_id"] === "").map((span) => span.spanContext().spanId);

    const results = await withCollector("empty_feedback_chunk_id", async (collector) => {
      assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(spans)), 200);
      return storedResults(collector);
    });
    assert.equal(results.length, 1);
    const observation = results[0]!.rag_observation;
    assert.deepEqual(observation.feedback.map((entry) => [entry.span_id, entry.kind, entry.chunk_id]).sort(), [
      [emptySpanId, "citation_click", null],
      [spans.find((span) => span.attributes["ragscope.feedback.chunk_id"] === "refund-1")!.spanContext().spanId, "citation_click", "refund-1"],
    ].sort());
    const notes = observation.malformed_attributes.filter((note) => note.span_id === emptySpanId);
    assert.deepEqual(notes.map(({ attribute, kind }) => ({ attribute, kind })), [{ attribute: "ragscope.feedback.chunk_id", kind: "unreadable_value" }]);
    assert.match(notes[0]!.error, /empty chunk id \(""\), which names no chunk/);
  });

  test("empty ids among the cited, dropped and truncated chunk ids are left out with a note, and no empty citation counts as a wrong one", async () => {
    recorder.reset();
    const tracer = trace.getTracer("partly-readable");
    // A sender other than the SDK writes an empty id where it has none, in every list of chunk ids it sends.
    tracer.startActiveSpan("empty_listed_ids", { attributes: { "openinference.span.kind": "CHAIN", "input.value": "refund?", "input.mime_type": "text/plain" } }, (root) => {
      tracer
        .startSpan("rag.context", {
          attributes: {
            "ragscope.stage": "context",
            "ragscope.context.chunk_ids": ["refund-1", "refund-2"],
            "ragscope.context.dropped_chunk_ids": ["", "refund-3"],
            "ragscope.context.dropped_reasons": ["token_budget", "duplicate"],
            "ragscope.context.truncated_chunk_ids": ["", "refund-2"],
            "ragscope.context.text": "Refunds within 30 days. Refunds need a receipt.",
          },
        })
        .end();
      tracer.startSpan("rag.generate", { attributes: { "ragscope.stage": "generate", "ragscope.answer": "Within 30 days [refund-1]." } }).end();
      tracer.startSpan("rag.cite", { attributes: { "ragscope.stage": "cite", "ragscope.citations.chunk_ids": ["refund-1", ""] } }).end();
      root.end();
    });
    const spans = recorder.spans();
    const spanIdOf = (name: string) => spans.find((span) => span.name === name)!.spanContext().spanId;

    const { results, letters, validity } = await withCollector("empty_listed_chunk_ids", async (collector) => {
      assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(spans)), 200);
      const results = await storedResults(collector);
      const validity = await queryRows<{ value: number | null }>(collector.store.connection, "SELECT value FROM {{database}}.metric_values FINAL WHERE metric = 'citation_validity'");
      return { results, letters: [...collector.deadLetters.letters], validity };
    });
    assert.deepEqual(letters, [], "the request is not dead-lettered");
    assert.equal(results.length, 1, "the request is stored");
    const observation = results[0]!.rag_observation;
    assert.deepEqual(observation.citations, ["refund-1"], "the empty citation is no citation");
    assert.deepEqual(observation.dropped_chunks, [{ chunk_id: "refund-3", reason: "duplicate" }], "each reason stays with its id");
    assert.deepEqual(observation.context_chunks, [
      { chunk_id: "refund-1", position: 1, truncated: false },
      { chunk_id: "refund-2", position: 2, truncated: true },
    ]);
    assert.deepEqual(
      validity.map((row) => row.value),
      [1],
      "the one citation was packed: an empty one is not counted as a chunk outside the context (it read 0.5)",
    );
    const notesOf = (spanName: string) => observation.malformed_attributes.filter((note) => note.span_id === spanIdOf(spanName)).map(({ attribute, kind, error }) => ({ attribute, kind, error }));
    const emptyId = (index: number, count: number, what: string) => `element ${index} of the ${count} ${what} received is an empty chunk id (""), which names no chunk: left out of the list, never taken for a chunk`;
    assert.deepEqual(notesOf("rag.cite"), [{ attribute: "ragscope.citations.chunk_ids", kind: "unreadable_value", error: emptyId(1, 2, "cited chunk ids") }]);
    assert.deepEqual(notesOf("rag.context"), [
      { attribute: "ragscope.context.dropped_chunk_ids", kind: "unreadable_value", error: emptyId(0, 2, "dropped chunk ids") },
      { attribute: "ragscope.context.truncated_chunk_ids", kind: "unreadable_value", error: emptyId(0, 2, "truncated chunk ids") },
    ]);
  });

  test("token counts beyond 2^53 − 1: the request is stored, each such count null with a note, the request's sums of them not available", async () => {
    recorder.reset();
    const tracer = trace.getTracer("partly-readable");
    // One request: two LLM calls of 1e308 input tokens each, the first also with 1e308 output tokens. Read as sent,
    // they added up beyond the largest number (the request's sums, the first call's total, the dashboards' means).
    tracer.startActiveSpan("overflowing", { attributes: { "openinference.span.kind": "CHAIN", "input.value": "question", "input.mime_type": "text/plain" } }, (root) => {
      // Explicit times: the second call starts after the first, so it is the request's last whatever their span ids.
      const started = Date.now();
      tracer.startSpan("rag.generate.first", { startTime: started, attributes: { "ragscope.stage": "generate", "llm.token_count.prompt": 1e308, "llm.token_count.completion": 1e308, "llm.cost.total": 0.5 } }).end(started + 5);
      tracer.startSpan("rag.generate.second", { startTime: started + 10, attributes: { "ragscope.stage": "generate", "llm.token_count.prompt": 1e308, "llm.token_count.completion": 3, "llm.cost.total": 0.25 } }).end(started + 15);
      root.end(started + 20);
    });
    const spans = recorder.spans();
    const spanIdOf = (name: string) => spans.find((span) => span.name === name)!.spanContext().spanId;

    const { results, letters } = await withCollector("overflowing_sums", async (collector) => {
      assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(spans)), 200);
      return { results: await storedResults(collector), letters: [...collector.deadLetters.letters] };
    });
    assert.deepEqual(letters, [], "the request is not dead-lettered");
    assert.equal(results.length, 1, "the request is stored");
    const observation = results[0]!.rag_observation;
    // The first call's output is left out as well, so the request's output sum is not available: not 3 alone.
    assert.deepEqual(observation.generation, { model: null, input_tokens: null, output_tokens: null, total_tokens: null, cost: 0.75, time_to_first_token_ms: null });
    const notes = observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
    const valueNotes = (name: string) => notes.filter((note) => note.span_id === spanIdOf(name) && note.attribute !== "generation");
    const beyond = /^is 1e\+308, beyond 9007199254740991 \(2\^53 − 1\), the most ragscope reads as a token count: no request measures that much/;
    const first = valueNotes("rag.generate.first");
    assert.deepEqual(first.map((note) => note.attribute), ["generation.input_tokens", "generation.output_tokens", "generation.total_tokens"], JSON.stringify(notes));
    assert.match(first[0]!.error, beyond);
    assert.match(first[1]!.error, beyond);
    // Its total, derived from the two, is their sum: beyond the largest number.
    assert.match(first[2]!.error, /sum of the input \(1e\+308\) and output \(1e\+308\) token counts, which goes beyond the largest number/);
    const second = valueNotes("rag.generate.second");
    assert.deepEqual(second.map((note) => note.attribute), ["generation.input_tokens", "generation.total_tokens"], JSON.stringify(notes));
    for (const note of second) assert.match(note.error, beyond);
    // Each call says its usage is left out of the request's sums.
    assert.deepEqual(notes.filter((note) => note.attribute === "generation").map((note) => note.span_id), [spanIdOf("rag.generate.first"), spanIdOf("rag.generate.second")]);
  });
});
