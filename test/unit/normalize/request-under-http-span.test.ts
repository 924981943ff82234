/**
 * A convention's request span (OpenInference CHAIN, OTel GenAI invoke_workflow, OpenLLMetry workflow) is the
 * request wherever no span above it is one a mapper reads: under an HTTP server's span (FastAPI, Express export
 * theirs around the application's), or under a caller's span in another service that this trace does not hold.
 * Read as a step there, the question came from the retrieval's rewritten query, the answer from the LLM call's text,
 * and the session and run linkage were lost. A request span inside another convention span stays a step.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Attributes, SpanRecord } from "../../../collector/00-otlp/span-record.js";
import { createTraceNormalizer } from "../../../collector/04-normalize/normalize-spans.js";
import { rebuildCaseResult } from "../../../collector/06-rebuild/rebuild-case-result.js";
import { spanRecord } from "./span-fixture.js";

const normalize = createTraceNormalizer();
const QUESTION = "How long do refunds take?";
const ANSWER = "Refunds take up to 7 days. [refund-1]";

function span(spanId: string, parentSpanId: string, name: string, attributes: Attributes): SpanRecord {
  return spanRecord({ spanId: spanId.padStart(16, "0"), parentSpanId: parentSpanId === "" ? "" : parentSpanId.padStart(16, "0"), name, attributes });
}

const httpServer = (spanId: string) => span(spanId, "", "POST /chat", { "http.request.method": "POST", "http.route": "/chat" });

function rebuilt(spans: SpanRecord[]) {
  return rebuildCaseResult({ traceId: spans[0]!.traceId, spans, complete: true, reason: "complete", reopened: false, sources: [], bytes: 0, lastSpanAt: 0 }, normalize(spans));
}

/** OpenInference: a chain with the question, answer, session and run linkage; a retriever with its rewritten query; an LLM call. */
function openInference(chainParent: string): SpanRecord[] {
  return [
    span("2", chainParent, "RAGChain", {
      "openinference.span.kind": "CHAIN",
      "input.value": QUESTION,
      "output.value": ANSWER,
      "session.id": "sess-9",
      "user.id": "user-7",
      metadata: JSON.stringify({ "ragscope.run_id": "run-1", "ragscope.case_id": "case-1", "ragscope.case_version": "1" }),
    }),
    span("3", "2", "retrieve", { "openinference.span.kind": "RETRIEVER", "input.value": "refund processing duration days", "retrieval.documents.0.document.id": "refund-1", "retrieval.documents.0.document.content": "Refunds take up to 7 days.", "retrieval.documents.0.document.score": 0.9 }),
    span("4", "2", "llm", { "openinference.span.kind": "LLM", "llm.output_messages.0.message.content": "Refunds take up to 7 days." }),
  ];
}

describe("a convention's request span below spans no mapper reads", () => {
  test("OpenInference: the same question, answer, session and run linkage under an HTTP server span as at the root", () => {
    const atRoot = rebuilt(openInference(""));
    const underHttp = rebuilt([httpServer("1"), ...openInference("1")]);
    for (const result of [atRoot, underHttp]) {
      assert.equal(result.rag_observation.query, QUESTION);
      assert.equal(result.output, ANSWER);
      assert.deepEqual([result.run_id, result.case_id, result.case_version], ["run-1", "case-1", "1"]);
      assert.equal(result.rag_observation.session_id, "sess-9");
      assert.equal(result.rag_observation.user_id, "user-7");
    }
  });

  test("OpenInference: under a caller's span in another service (its parent not in the trace), still the request", () => {
    const result = rebuilt(openInference("ab12"));
    assert.equal(result.rag_observation.query, QUESTION);
    assert.equal(result.run_id, "run-1");
  });

  test("a chain inside another convention's chain is a step, as before: the outer one is the request", () => {
    const outer = span("1", "", "Workflow", { "openinference.span.kind": "CHAIN", "input.value": "outer question?", "output.value": "outer answer." });
    const result = rebuilt([outer, ...openInference("1")]);
    assert.equal(result.rag_observation.query, "outer question?");
    assert.equal(result.output, "outer answer.");
    assert.equal(result.run_id, "");
  });

  test("OTel GenAI: invoke_workflow under an HTTP server span reads its messages and conversation id", () => {
    const spans = [
      httpServer("1"),
      span("2", "1", "invoke_workflow rag", {
        "gen_ai.operation.name": "invoke_workflow",
        "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: QUESTION }] }]),
        "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: ANSWER }], finish_reason: "stop" }]),
        "gen_ai.conversation.id": "conv-77",
      }),
      span("3", "2", "retrieval", { "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": "refund processing duration days" }),
      span("4", "2", "chat m", { "gen_ai.operation.name": "chat", "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "Refunds take up to 7 days." }] }]) }),
    ];
    const result = rebuilt(spans);
    assert.equal(result.rag_observation.query, QUESTION);
    assert.equal(result.output, ANSWER);
    assert.equal(result.rag_observation.session_id, "conv-77");
  });

  test("OpenLLMetry: a workflow under an HTTP server span reads its input and association properties", () => {
    const spans = [
      httpServer("1"),
      span("2", "1", "rag.workflow", {
        "traceloop.span.kind": "workflow",
        "traceloop.entity.input": JSON.stringify({ args: [QUESTION], kwargs: {} }),
        "traceloop.entity.output": JSON.stringify(ANSWER),
        "traceloop.association.properties.ragscope.run_id": "olm-run",
        "traceloop.association.properties.ragscope.case_id": "case-1",
        "traceloop.association.properties.ragscope.case_version": "1",
      }),
    ];
    const result = rebuilt(spans);
    assert.equal(result.rag_observation.query, QUESTION);
    assert.equal(result.output, ANSWER);
    assert.equal(result.run_id, "olm-run");
  });

  test("OTel GenAI: an invoke_agent at the top is the request and still records its calls' usage, alone or around a call", () => {
    const agent = (spanId: string, parent: string) =>
      span(spanId, parent, "invoke_agent helper", {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: QUESTION }] }]),
        "gen_ai.usage.input_tokens": 500,
        "gen_ai.usage.output_tokens": 50,
      });
    const retrieval = span("3", "2", "retrieval", { "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": "refunds" });
    const chat = span("4", "2", "chat m", { "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 10 });
    const tokens = (spans: SpanRecord[]) => {
      const generation = rebuilt(spans).rag_observation.generation;
      return [generation.input_tokens, generation.output_tokens, generation.total_tokens];
    };
    // Alone: a remote agent, whose usage is the only record of its calls.
    assert.deepEqual(tokens([agent("2", ""), retrieval]), [500, 50, 550]);
    // Around a call that records less: the larger, as a wrapper under a workflow is read (request-usage.ts).
    assert.deepEqual(tokens([agent("2", ""), retrieval, chat]), [500, 50, 550]);
    const nested = [span("1", "", "invoke_workflow", { "gen_ai.operation.name": "invoke_workflow" }), agent("2", "1"), retrieval, chat];
    assert.deepEqual(tokens(nested), [500, 50, 550]);
    assert.equal(rebuilt([agent("2", ""), retrieval]).rag_observation.query, QUESTION);
  });

  test("OTel GenAI: a streamed call's gen_ai.response.time_to_first_chunk (seconds) is its time to first token", () => {
    const spans = [
      span("2", "", "invoke_workflow rag", { "gen_ai.operation.name": "invoke_workflow" }),
      span("4", "2", "chat m", { "gen_ai.operation.name": "chat", "gen_ai.request.stream": true, "gen_ai.response.time_to_first_chunk": 0.35 }),
    ];
    assert.equal(rebuilt(spans).rag_observation.generation.time_to_first_token_ms, 350);
    spans[1] = span("4", "2", "chat m", { "gen_ai.operation.name": "chat" });
    assert.equal(rebuilt(spans).rag_observation.generation.time_to_first_token_ms, null);
  });

  test("two chains below the HTTP span (a condense-question chain, then the RAG chain): neither is taken for the request", () => {
    const condense = span("9", "1", "condense_question", { "openinference.span.kind": "CHAIN", "input.value": "and for Germany?", "output.value": "How long do refunds take in Germany?" });
    const result = rebuilt([httpServer("1"), condense, ...openInference("1")]);
    assert.notEqual(result.output, "How long do refunds take in Germany?", "the condensed question is no answer");
    assert.equal(result.run_id, "");
  });

  test("a chain of 2,000 spans, and parent ids in a cycle: each span's place is worked out once, not by walking up from every span", () => {
    // Parent ids read through a counting getter: a walk from every span reads them ~n²/2 times (2,000,000 here).
    let reads = 0;
    const counted = (record: SpanRecord): SpanRecord => {
      const parentSpanId = record.parentSpanId;
      return Object.defineProperty({ ...record }, "parentSpanId", { get: () => ((reads += 1), parentSpanId), enumerable: true });
    };
    const chain = Array.from({ length: 2000 }, (_, index) => counted(span(String(index + 1), index === 0 ? "" : String(index), `step ${index}`, { "other.attribute": index })));
    assert.equal(normalize(chain).length, 2000);
    assert.ok(reads <= 10 * chain.length, `parent ids read ${reads} times for ${chain.length} spans`);
    reads = 0;
    const cycle = [span("a", "b", "a", {}), span("b", "c", "b", {}), span("c", "a", "c", {})].map(counted);
    assert.equal(normalize(cycle).length, 3);
    assert.ok(reads <= 30, `parent ids read ${reads} times in a cycle of 3`);
  });
});
