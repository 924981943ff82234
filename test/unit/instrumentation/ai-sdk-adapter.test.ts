/**
 * The Vercel AI SDK wrappers with the SDK's own generateText / streamText and
 * its MockLanguageModelV3: the call is unchanged, the span carries model,
 * prompt, answer, usage and — for streams — time to first token.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { generateText, streamText } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import { SpanStatusCode } from "@opentelemetry/api";
import { traceGenerateText, traceRequest, traceStreamText } from "../../../instrumentation/index.js";
import { spanNamed, startInMemoryTracing, type InMemoryTracing } from "./in-memory-tracing.js";

const usage = {
  inputTokens: { total: 42, noCache: 42, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 7, text: 7, reasoning: undefined },
};

function generatingModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    modelId: "mock-model",
    doGenerate: async () => ({ content: [{ type: "text", text: "Five days carry over." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }),
  });
}

function streamingModel(delayMs: number): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    modelId: "mock-stream",
    doStream: async () => ({
      stream: new ReadableStream({
        async start(controller) {
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          for (const part of [
            { type: "stream-start", warnings: [] },
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Five " },
            { type: "text-delta", id: "t", delta: "days." },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
          ]) controller.enqueue(part as never);
          controller.close();
        },
      }),
    }),
  });
}

describe("AI SDK wrappers", () => {
  let tracing: InMemoryTracing;
  before(() => {
    tracing = startInMemoryTracing();
  });
  beforeEach(() => tracing.reset());
  after(async () => tracing.stop());

  test("traceGenerateText returns the SDK's own result and records a rag.generate span", async () => {
    const result = await traceRequest({ query: "carry over?" }, () => traceGenerateText(generateText, { model: generatingModel(), system: "Answer briefly.", prompt: "carry over?" }));
    assert.equal(result.text, "Five days carry over.");
    assert.equal(result.usage.inputTokens, 42, "the application's result is the SDK's");
    const span = spanNamed(tracing.spans(), "rag.generate");
    assert.equal(span.parentSpanContext?.spanId, spanNamed(tracing.spans(), "rag.request").spanContext().spanId);
    assert.equal(span.attributes["llm.model_name"], "mock-model");
    assert.equal(span.attributes["llm.provider"], "mock-provider");
    assert.equal(span.attributes["llm.input_messages.0.message.content"], "system: Answer briefly.\nuser: carry over?");
    assert.equal(span.attributes["ragscope.answer"], "Five days carry over.");
    assert.equal(span.attributes["llm.token_count.prompt"], 42);
    assert.equal(span.attributes["llm.token_count.completion"], 7);
    assert.equal(span.attributes["llm.token_count.total"], 49);
    assert.equal("ragscope.generation.time_to_first_token_ms" in span.attributes, false, "no stream, no time to first token");
  });

  test("a failing model: the same error reaches the caller, the span records it", async () => {
    const failure = new Error("rate limited");
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        throw failure;
      },
    });
    await assert.rejects(traceGenerateText(generateText, { model, prompt: "q", maxRetries: 0 }), (error) => error === failure || (error as { lastError?: unknown }).lastError === failure || String(error).includes("rate limited"));
    const span = spanNamed(tracing.spans(), "rag.generate");
    assert.equal(span.status.code, SpanStatusCode.ERROR);
  });

  test("traceStreamText: time to first token from the stream, usage and text at the end, the application's callbacks still run", async () => {
    const seen: string[] = [];
    const result = traceStreamText(streamText, {
      model: streamingModel(40),
      prompt: "carry over?",
      onChunk: ({ chunk }) => {
        seen.push(`chunk:${chunk.type}`);
      },
      onFinish: ({ text }) => {
        seen.push(`finish:${text}`);
      },
    }, { cost: ({ inputTokens, outputTokens }) => ((inputTokens ?? 0) + (outputTokens ?? 0)) / 1000 });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    assert.equal(text, "Five days.");
    await result.consumeStream();
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(seen.includes("finish:Five days."), seen.join(","));
    assert.ok(seen.includes("chunk:text-delta"));
    const span = spanNamed(tracing.spans(), "rag.generate");
    const firstToken = span.attributes["ragscope.generation.time_to_first_token_ms"] as number;
    assert.ok(firstToken >= 35, `time to first token ${firstToken} ms covers the model's 40 ms delay`);
    assert.equal(span.attributes["ragscope.answer"], "Five days.");
    assert.equal(span.attributes["llm.token_count.total"], 49);
    assert.equal(span.attributes["llm.cost.total"], 0.049);
    assert.equal(span.attributes["llm.model_name"], "mock-stream");
  });

  test("a stream that errors ends its span with the error", async () => {
    const model = new MockLanguageModelV3({
      doStream: async () => ({ stream: convertArrayToReadableStream([{ type: "error", error: new Error("upstream closed") }]) }),
    });
    const result = traceStreamText(streamText, { model, prompt: "q", onError: () => undefined });
    await result.consumeStream();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const span = spanNamed(tracing.spans(), "rag.generate");
    assert.equal(span.status.code, SpanStatusCode.ERROR);
    assert.match(span.status.message ?? "", /upstream closed/);
  });

  test("a stream its caller aborts ends its span with an AbortError (exception.type), which the collector reads as stopped by the user, not failed", async () => {
    const controller = new AbortController();
    // A provider that sends one delta and then waits: only the abort ends the stream, as a provider's connection does.
    const model = new MockLanguageModelV3({
      doStream: async ({ abortSignal }) => ({
        stream: new ReadableStream({
          async start(stream) {
            stream.enqueue({ type: "stream-start", warnings: [] });
            stream.enqueue({ type: "text-start", id: "t" });
            stream.enqueue({ type: "text-delta", id: "t", delta: "Refunds reach " });
            await new Promise((resolve) => abortSignal?.addEventListener("abort", resolve));
            stream.close();
          },
        }),
      }),
    });
    const result = traceStreamText(streamText, { model, prompt: "q", abortSignal: controller.signal });
    let text = "";
    try {
      for await (const delta of result.textStream) {
        text += delta;
        controller.abort();
      }
    } catch (error) {
      // Whether the AI SDK rethrows the abort to the reader depends on its version; the span is what is checked.
      assert.equal((error as Error).name, "AbortError");
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(text, "Refunds reach ");
    const span = spanNamed(tracing.spans(), "rag.generate");
    assert.equal(span.status.code, SpanStatusCode.ERROR);
    assert.deepEqual(span.events.filter((event) => event.name === "exception").map((event) => event.attributes?.["exception.type"]), ["AbortError"]);
  });

  test("without an onError of the application's, a stream's error is still logged as the AI SDK logs it (console.error)", async () => {
    const failure = new Error("provider overloaded mid-stream");
    const model = new MockLanguageModelV3({
      doStream: async () => ({ stream: convertArrayToReadableStream([{ type: "error", error: failure }]) }),
    });
    const logged: unknown[] = [];
    const original = console.error;
    console.error = (...values: unknown[]) => logged.push(...values);
    try {
      const result = traceStreamText(streamText, { model, prompt: "q" });
      await result.consumeStream();
      await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      console.error = original;
    }
    assert.ok(logged.includes(failure), `console.error got ${logged.map(String).join(", ")}`);
    assert.equal(spanNamed(tracing.spans(), "rag.generate").status.code, SpanStatusCode.ERROR);
  });
});
