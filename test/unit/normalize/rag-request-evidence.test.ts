/**
 * Which traces record a RAG request (collector/06-rebuild/rag-request-evidence.ts), span by span through the
 * mapper registry, as the evaluation worker reads them: the edges the end-to-end test
 * (test/e2e/traces-without-request.test.ts) does not send.
 *
 * An index built under OpenLLMetry's Python instrumentation whose SDK evicted each call's `llm.request.type` (the
 * oldest attribute, past the count limit: collector/04-normalize/llm-call-without-request-type.ts): `openai.embeddings`
 * and `cohere.embed`, each keeping only its response (model, tokens), 4 attributes dropped, `telemetry.sdk.language`
 * python. Their names say embedding, as the request type did: embedding_only (before: no_rag_stage). Beside them a call
 * whose name does not say (`replicate.run`): not known to be an embedding, so no_rag_stage; the same embedding spans
 * having lost nothing, or sent by the JS SDK (which keeps the request type, set first), are no LLM call: no_rag_stage.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createTraceNormalizer } from "../../../collector/04-normalize/normalize-spans.js";
import { whyNotARequest } from "../../../collector/06-rebuild/rag-request-evidence.js";
import type { SpanRecord } from "../../../collector/00-otlp/span-record.js";
import { spanRecord } from "./span-fixture.js";

const normalize = createTraceNormalizer();
const verdict = (...spans: SpanRecord[]) => whyNotARequest(normalize(spans));
const root = (overrides: Partial<SpanRecord> & { attributes: SpanRecord["attributes"] }) => spanRecord({ parentSpanId: "", spanId: "00f067aa0ba902b7", ...overrides });

describe("what records a RAG request", () => {
  test("embedding spans alone, in each convention: embedding_only", () => {
    assert.equal(verdict(root({ name: "get_text_embedding_batch", attributes: { "openinference.span.kind": "EMBEDDING" } }), spanRecord({ attributes: { "openinference.span.kind": "EMBEDDING" } })), "embedding_only");
    assert.equal(verdict(root({ name: "embeddings text-embedding-3-small", attributes: { "gen_ai.operation.name": "embeddings", "gen_ai.request.model": "text-embedding-3-small" } })), "embedding_only");
    assert.equal(verdict(root({ name: "openai.embeddings", attributes: { "llm.request.type": "embedding", "gen_ai.usage.prompt_tokens": 8 } })), "embedding_only");
  });

  test("OpenLLMetry embedding calls whose Python SDK evicted the request type, named as embeddings: embedding_only", () => {
    const evicted = (name: string, language = "python", dropped = 4) =>
      spanRecord({
        name,
        attributes: { "gen_ai.response.model": "text-embedding-3-small", "llm.usage.total_tokens": 5, "gen_ai.usage.input_tokens": 5 },
        droppedAttributesCount: dropped,
        resource: { "service.name": "policy-indexer", "telemetry.sdk.language": language },
      });
    const indexRoot = (name: string, language?: string, dropped?: number) => ({ ...evicted(name, language, dropped), parentSpanId: "", spanId: "00f067aa0ba902b7" });
    assert.equal(verdict(indexRoot("openai.embeddings"), evicted("cohere.embed")), "embedding_only", "what the same calls with their request type read");
    assert.equal(verdict(indexRoot("openai.embeddings"), evicted("replicate.run")), "no_rag_stage", "a call whose name does not say it is an embedding");
    assert.equal(verdict(indexRoot("openai.embeddings", "python", 0)), "no_rag_stage", "lost nothing: no request type, no LLM call");
    assert.equal(verdict(indexRoot("openai.embeddings", "nodejs")), "no_rag_stage", "the JS SDK keeps the request type: no LLM call");
  });

  test("a root chain that carries no question, no linkage and did not fail, with no stage under it: no_rag_stage", () => {
    const splitter = root({ name: "SentenceSplitter.__call__", attributes: { "openinference.span.kind": "CHAIN", "input.value": '{"nodes": ["<Document(id_=1)>"]}', "input.mime_type": "application/json" } });
    assert.equal(verdict(splitter, spanRecord({ attributes: { "openinference.span.kind": "EMBEDDING" } })), "no_rag_stage", "an embedding span beside a chain: not only embeddings");
    assert.equal(verdict(root({ name: "GET /healthz", attributes: { "http.request.method": "GET" } })), "no_rag_stage");
    assert.equal(verdict(root({ name: "invoke_workflow ingest", attributes: { "gen_ai.operation.name": "invoke_workflow" } })), "no_rag_stage");
  });

  test("the SDK's request span, by its stage attribute or by its name, alone: a request", () => {
    assert.equal(verdict(root({ name: "handle", attributes: { "ragscope.stage": "request" } })), null);
    assert.equal(verdict(root({ name: "rag.request", attributes: {} })), null);
  });

  test("a query embedding inside a retrieval, and user events alone (late feedback): requests", () => {
    assert.equal(verdict(root({ name: "retrieve", attributes: { "openinference.span.kind": "RETRIEVER" } }), spanRecord({ attributes: { "openinference.span.kind": "EMBEDDING" } })), null);
    assert.equal(verdict(spanRecord({ name: "rag.feedback", attributes: { "ragscope.stage": "feedback", "ragscope.feedback.kind": "thumbs_down" } })), null);
  });

  test("an OpenLLMetry workflow linked to a case, with nothing under it: a request (its run must see the case)", () => {
    assert.equal(verdict(root({ name: "rag.workflow", attributes: { "traceloop.span.kind": "workflow", "traceloop.association.properties.ragscope.case_id": "leave_days" } })), null);
  });

  test("no spans at all is no request", () => {
    assert.equal(verdict(), "no_rag_stage");
  });
});
