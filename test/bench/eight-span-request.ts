/**
 * One RAG request of 8 spans through the SDK wrappers: request, query rewrite,
 * retrieve (ten chunks of 500 characters), rerank, context, a tool call,
 * generate, cite — the trace shape of issue 13's targets.
 *
 * `createEightSpanRequest` takes the wrappers, so the SDK export benchmark's
 * application can run them from the built package as a user's application
 * does (sdk-export-app.ts); `eightSpanRequest` runs them from the sources.
 *
 * Chunk texts: "repeated" sends the same ten chunks in every trace (the
 * fixture's); "unique" gives each trace chunk texts of its own (the trace's
 * number put in front of each text: same words, lengths within a few
 * characters). The evaluator remembers recent texts (evaluators/text/
 * bounded-memo.ts), so with repeated texts every trace after the first is
 * cheaper than traffic whose retrieved texts rarely recur.
 */
import { trace } from "@opentelemetry/api";
import * as sources from "../../instrumentation/index.js";
import type { ChunkRecord } from "../../instrumentation/index.js";
import { chunks } from "./rag-request-fixture.js";

export const SPANS_PER_REQUEST = 8;

export type StageWrappers = Pick<typeof sources, "traceCite" | "traceContext" | "traceGenerate" | "traceQueryRewrite" | "traceRequest" | "traceRerank" | "traceRetrieve">;

export type ChunkTexts = "repeated" | "unique";

/** The ten chunks trace `index` retrieves: the fixture's, or with texts of the trace's own. */
export function chunksOfTrace(index: number, chunkTexts: ChunkTexts): ChunkRecord[] {
  if (chunkTexts === "repeated") return chunks;
  return chunks.map((chunk) => ({ ...chunk, chunkId: `${chunk.chunkId}-${index}`, text: `${index} ${chunk.text}` }));
}

export function createEightSpanRequest(wrappers: StageWrappers, chunkTexts: ChunkTexts = "repeated"): (index: number) => Promise<string> {
  const { traceCite, traceContext, traceGenerate, traceQueryRewrite, traceRequest, traceRerank, traceRetrieve } = wrappers;
  return (index) => {
    const retrievable = chunksOfTrace(index, chunkTexts);
    const query = `How many leave days carry over? (${index})`;
    return traceRequest({ query, tenantId: `tenant-${index % 3}`, principalId: "u1", principalGroups: ["staff"] }, async () => {
      const rewritten = await traceQueryRewrite({ query }, () => `${query} annual leave`);
      const retrieved = await traceRetrieve({ query: rewritten, topK: retrievable.length }, () => retrievable);
      const ranked = await traceRerank({ query: rewritten, input: retrieved, model: "reranker", topK: 5 }, () => retrieved.slice(0, 5));
      const packed = await traceContext({ tokenBudget: 2000 }, () => ({ text: ranked.map((chunk) => chunk.text).join("\n"), chunkIds: ranked.map((chunk) => chunk.chunkId), tokenCount: 1200, tokenBudget: 2000 }));
      await trace.getTracer("bench").startActiveSpan("tool.calendar_lookup", async (span) => {
        span.setAttribute("openinference.span.kind", "TOOL");
        span.end();
      });
      const generation = await traceGenerate({ model: "gpt-4o-mini", provider: "openai", prompt: packed.text }, () => ({ text: `Up to five days carry over (${index}).`, inputTokens: 1250, outputTokens: 40, cost: 0.0004, timeToFirstTokenMs: 200 }));
      await traceCite(() => [packed.chunkIds[0]!]);
      return generation.text;
    });
  };
}

export const eightSpanRequest = createEightSpanRequest(sources);
/** The same request with chunk texts of each trace's own. */
export const eightSpanRequestWithOwnChunks = createEightSpanRequest(sources, "unique");
