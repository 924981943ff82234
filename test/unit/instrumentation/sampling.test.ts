/**
 * Head sampling by trace id: a pure function of the id, so a request keeps all
 * its spans or none — through the SDK sampler ragscope installs and through
 * ragscope's processor on an application's own provider alike.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, ParentBasedSampler, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { RagscopeSpanProcessor, TraceIdRatioSampler, isTraceSampled, traceGenerate, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { startTestReceiver } from "./otlp-test-receiver.js";
import { SDK, runSdkScript } from "./sdk-script.js";

const randomTraceId = () => randomBytes(16).toString("hex");

describe("isTraceSampled", () => {
  test("the same id always gets the same decision; 0 keeps none, 1 keeps all", () => {
    const ids = Array.from({ length: 200 }, randomTraceId);
    for (const id of ids) {
      assert.equal(isTraceSampled(id, 0.3), isTraceSampled(id, 0.3));
      assert.equal(isTraceSampled(id, 0), false);
      assert.equal(isTraceSampled(id, 1), true);
    }
  });

  test("keeps about the requested fraction, and a lower rate keeps a subset of a higher one", () => {
    const ids = Array.from({ length: 20_000 }, randomTraceId);
    const kept = ids.filter((id) => isTraceSampled(id, 0.25));
    assert.ok(Math.abs(kept.length / ids.length - 0.25) < 0.02, `kept ${kept.length}`);
    for (const id of ids) if (isTraceSampled(id, 0.1)) assert.equal(isTraceSampled(id, 0.25), true);
  });

  test("decides on the rightmost 56 bits (the W3C random part)", () => {
    assert.equal(isTraceSampled(`${"f".repeat(18)}${"0".repeat(14)}`, 0.5), false);
    assert.equal(isTraceSampled(`${"0".repeat(18)}${"f".repeat(14)}`, 0.5), true);
  });
});

async function runRequests(count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    await traceRequest({ query: `q${index}` }, async () => {
      await traceRetrieve({ query: "q" }, () => [{ chunkId: "c" }]);
      await traceGenerate({ model: "m" }, () => ({ text: "a" }));
      return "a";
    });
  }
}

function groupByTrace(traceIds: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of traceIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

describe("a sampled request keeps all its spans", () => {
  test("through the SDK sampler (ParentBased + TraceIdRatioSampler)", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ sampler: new ParentBasedSampler({ root: new TraceIdRatioSampler(0.5) }), spanProcessors: [new SimpleSpanProcessor(exporter)] });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
    try {
      await runRequests(200);
      const spans = exporter.getFinishedSpans();
      const perTrace = groupByTrace(spans.map((span) => span.spanContext().traceId));
      assert.ok(perTrace.size > 60 && perTrace.size < 140, `${perTrace.size} of 200 requests kept`);
      for (const [traceId, count] of perTrace) {
        assert.equal(count, 3, `trace ${traceId} kept ${count} of 3 spans`);
        assert.equal(isTraceSampled(traceId, 0.5), true);
      }
    } finally {
      await provider.shutdown();
      trace.disable();
      context.disable();
    }
  });

  test("through ragscope's processor on an always-on provider", async () => {
    const sent: string[] = [];
    const processor = new RagscopeSpanProcessor(
      { export: (spans, done) => (spans.forEach((span) => sent.push(span.spanContext().traceId)), done({ code: 0 })), shutdown: async () => undefined },
      { sampleRate: 0.3, scheduledDelayMillis: 5 },
    );
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
    try {
      await runRequests(200);
      await processor.forceFlush();
      const perTrace = groupByTrace(sent);
      assert.ok(perTrace.size > 30 && perTrace.size < 100, `${perTrace.size} of 200 requests kept`);
      for (const count of perTrace.values()) assert.equal(count, 3);
      assert.equal(processor.statistics().sampledOut, (200 - perTrace.size) * 3);
    } finally {
      await provider.shutdown();
      trace.disable();
      context.disable();
    }
  });
});

describe("statistics() of an application that setupRagscope started, with sampling", () => {
  test("counts as sampledOut every span sampling left out, and the collector receives exactly the others", async () => {
    const receiver = await startTestReceiver();
    try {
      const script = `
        import { setupRagscope, traceRequest, traceRetrieve, traceGenerate } from ${SDK};
        const ragscope = setupRagscope({ serviceName: "sampled-app" });
        for (let index = 0; index < 40; index += 1) {
          await traceRequest({ query: "q" + index }, async () => {
            await traceRetrieve({ query: "q" }, () => [{ chunkId: "c" }]);
            await traceGenerate({ model: "m" }, () => ({ text: "a" }));
            return "a";
          });
        }
        await ragscope.shutdown();
        console.log(JSON.stringify(ragscope.statistics()));
      `;
      const result = await runSdkScript(script, { RAGSCOPE_ENDPOINT: receiver.endpoint, RAGSCOPE_SAMPLE_RATE: "0.5" });
      assert.equal(result.code, 0, result.stderr);
      const statistics = JSON.parse(result.stdout) as { exported: number; sampledOut: number };
      const keptTraces = new Set(receiver.spans.map((span) => span.traceId)).size;
      assert.equal(receiver.spans.length, keptTraces * 3, "a kept request keeps its three spans");
      assert.equal(statistics.exported, receiver.spans.length);
      assert.ok(keptTraces < 40, "some requests were sampled out (one in 2^40 runs keeps all)");
      assert.equal(statistics.sampledOut, (40 - keptTraces) * 3, "each span of each request left out is counted");
    } finally {
      await receiver.close();
    }
  });
});
