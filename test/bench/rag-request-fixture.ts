/**
 * One realistic RAG request for the overhead benchmark and the "collector
 * down" test: six stages (query rewrite, retrieve, rerank, context, generate,
 * cite) with ten chunks of 500 characters, through ragscope's wrappers — and
 * the same six spans with the same attributes written with @opentelemetry/api
 * directly, as a hand-written instrumentation would.
 */
import { trace, type Attributes } from "@opentelemetry/api";
import { traceCite, traceContext, traceGenerate, traceQueryRewrite, traceRequest, traceRerank, traceRetrieve, type ChunkRecord } from "../../instrumentation/index.js";

const CHUNK_COUNT = 10;
const CHUNK_LENGTH = 500;

function text(seed: number, length: number): string {
  const words = ["年假", "policy", "结转", "employees", "审批", "carry-over", "申请", "days", "规定", "manager"];
  let out = "";
  for (let index = 0; out.length < length; index += 1) out += `${words[(seed + index * 7) % words.length]} `;
  return out.slice(0, length);
}

export const chunks: ChunkRecord[] = Array.from({ length: CHUNK_COUNT }, (_, index) => ({
  chunkId: `leave_policy_v3#${index}`,
  documentId: "leave_policy",
  documentVersion: "v3",
  sectionId: `s${index}`,
  text: text(index, CHUNK_LENGTH),
  score: 1 - index / 20,
  effectiveFrom: "2026-01-01",
  acl: ["staff"],
}));
const reranked = [...chunks].reverse();
const contextText = reranked.slice(0, 5).map((chunk) => chunk.text).join("\n\n");
const answer = text(99, 300);
const query = "未使用的年假可以结转到下一年吗？ How many days carry over?";

/** The request through ragscope's wrappers; returns the answer. */
export function wrappedRequest(): Promise<string> {
  return traceRequest({ query, tenantId: "acme", principalId: "u1", principalGroups: ["staff"] }, async () => {
    const rewritten = await traceQueryRewrite({ query }, () => `${query} (annual leave carry-over)`);
    const retrieved = await traceRetrieve({ query: rewritten, topK: CHUNK_COUNT }, () => chunks);
    const ranked = await traceRerank({ query: rewritten, input: retrieved, model: "reranker-v2", topK: CHUNK_COUNT }, () => reranked);
    const packed = await traceContext({ tokenBudget: 2000 }, () => ({ text: contextText, chunkIds: ranked.slice(0, 5).map((chunk) => chunk.chunkId), droppedChunks: ranked.slice(5).map((chunk) => ({ chunkId: chunk.chunkId, reason: "token_budget" })), tokenCount: 1200, tokenBudget: 2000 }));
    const generation = await traceGenerate({ model: "gpt-4o-mini", provider: "openai", prompt: packed.text }, () => ({ text: answer, inputTokens: 1250, outputTokens: 180, cost: 0.0004, timeToFirstTokenMs: 240 }));
    await traceCite(() => [packed.chunkIds[0]!]);
    return generation.text;
  });
}

function chunkAttributes(prefix: string, ownPrefix: string, list: ChunkRecord[]): Attributes {
  const attributes: Attributes = {};
  list.forEach((chunk, index) => {
    attributes[`${prefix}.${index}.document.id`] = chunk.chunkId;
    attributes[`${prefix}.${index}.document.content`] = chunk.text;
    attributes[`${prefix}.${index}.document.score`] = chunk.score;
    attributes[`${prefix}.${index}.document.metadata`] = JSON.stringify({ document_id: chunk.documentId, document_version: chunk.documentVersion, section_id: chunk.sectionId });
    attributes[`${ownPrefix}.${index}.document_id`] = chunk.documentId;
    attributes[`${ownPrefix}.${index}.document_version`] = chunk.documentVersion;
    attributes[`${ownPrefix}.${index}.section_id`] = chunk.sectionId;
    attributes[`${ownPrefix}.${index}.effective_from`] = chunk.effectiveFrom;
    attributes[`${ownPrefix}.${index}.acl`] = chunk.acl;
    attributes[`${ownPrefix}.${index}.rank`] = index + 1;
  });
  return attributes;
}

/** The same spans and attributes with @opentelemetry/api directly. */
export async function rawRequest(): Promise<string> {
  const tracer = trace.getTracer("raw");
  const stage = async <T>(name: string, start: Attributes, fn: () => T | Promise<T>, end: (value: T) => Attributes): Promise<T> =>
    tracer.startActiveSpan(name, { attributes: start }, async (span) => {
      const value = await fn();
      span.setAttributes(end(value));
      span.end();
      return value;
    });
  return stage(
    "rag.request",
    { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.schema_version": "1", "input.value": query, "ragscope.query": query, "ragscope.tenant_id": "acme", "ragscope.principal_id": "u1", "ragscope.principal_groups": ["staff"] },
    async () => {
      const rewritten = await stage("rag.query_rewrite", { "openinference.span.kind": "CHAIN", "ragscope.stage": "query_rewrite", "ragscope.schema_version": "1", "input.value": query, "ragscope.query": query }, () => `${query} (annual leave carry-over)`, (value) => ({ "output.value": value, "ragscope.query.rewritten": value }));
      const retrieved = await stage("rag.retrieve", { "openinference.span.kind": "RETRIEVER", "ragscope.stage": "retrieve", "ragscope.schema_version": "1", "input.value": rewritten, "ragscope.retrieval.top_k": CHUNK_COUNT }, () => chunks, (value) => chunkAttributes("retrieval.documents", "ragscope.documents", value));
      const ranked = await stage(
        "rag.rerank",
        { "openinference.span.kind": "RERANKER", "ragscope.stage": "rerank", "ragscope.schema_version": "1", "input.value": rewritten, "reranker.query": rewritten, "reranker.model_name": "reranker-v2", "reranker.top_k": CHUNK_COUNT, ...chunkAttributes("reranker.input_documents", "ragscope.rerank.input_documents", retrieved) },
        () => reranked,
        (value) => chunkAttributes("reranker.output_documents", "ragscope.rerank.output_documents", value),
      );
      const packed = await stage("rag.context", { "openinference.span.kind": "CHAIN", "ragscope.stage": "context", "ragscope.schema_version": "1", "ragscope.context.token_budget": 2000 }, () => ({ text: contextText, chunkIds: ranked.slice(0, 5).map((chunk) => chunk.chunkId), dropped: ranked.slice(5).map((chunk) => chunk.chunkId) }), (value) => ({
        "ragscope.context.chunk_ids": value.chunkIds,
        "ragscope.context.dropped_chunk_ids": value.dropped,
        "ragscope.context.dropped_reasons": value.dropped.map(() => "token_budget"),
        "ragscope.context.token_count": 1200,
        "ragscope.context.text": value.text,
      }));
      const generated = await stage(
        "rag.generate",
        { "openinference.span.kind": "LLM", "ragscope.stage": "generate", "ragscope.schema_version": "1", "llm.model_name": "gpt-4o-mini", "llm.provider": "openai", "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": packed.text },
        () => answer,
        (value) => ({
          "llm.output_messages.0.message.role": "assistant",
          "llm.output_messages.0.message.content": value,
          "output.value": value,
          "ragscope.answer": value,
          "llm.token_count.prompt": 1250,
          "llm.token_count.completion": 180,
          "llm.token_count.total": 1430,
          "llm.cost.total": 0.0004,
          "ragscope.generation.time_to_first_token_ms": 240,
        }),
      );
      await stage("rag.cite", { "openinference.span.kind": "CHAIN", "ragscope.stage": "cite", "ragscope.schema_version": "1" }, () => [packed.chunkIds[0]!], (value) => ({ "ragscope.citations.chunk_ids": value }));
      return generated;
    },
    (value) => ({ "output.value": value, "ragscope.answer": value }),
  );
}
