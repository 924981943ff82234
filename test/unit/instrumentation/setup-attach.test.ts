/**
 * setupRagscope with an OpenTelemetry setup already in place: ragscope adds
 * its processor to the application's provider instead of replacing it; the
 * application's own exporter keeps every span.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { trace, type Tracer, type TracerProvider } from "@opentelemetry/api";
import { setupRagscope, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { startInMemoryTracing, type InMemoryTracing } from "./in-memory-tracing.js";
import { startTestReceiver, type TestReceiver } from "./otlp-test-receiver.js";

const chunks = Array.from({ length: 20 }, (_, index) => ({ chunkId: `c${index}`, documentId: `d${index}`, documentVersion: "1", sectionId: "s", text: "t", score: 1 / (index + 1) }));

async function request(): Promise<string> {
  return traceRequest({ query: "q" }, async () => {
    await traceRetrieve({ query: "q" }, () => chunks);
    return "answer";
  });
}

describe("setupRagscope on an application's own tracer provider", () => {
  let receiver: TestReceiver;
  let tracing: InMemoryTracing;
  before(async () => {
    receiver = await startTestReceiver();
    tracing = startInMemoryTracing();
  });
  after(async () => {
    await tracing.stop();
    await receiver.close();
  });

  test("adds ragscope's processor; both the application's exporter and ragscope's receive the spans", async () => {
    const handle = setupRagscope({ endpoint: receiver.endpoint, protocol: "http/json" });
    try {
      assert.equal(handle.mode, "attached");
      assert.equal(handle.tracerProvider, tracing.provider, "the application's provider stays registered");
      assert.equal(await request(), "answer");
      await handle.forceFlush();
      assert.deepEqual(tracing.spans().map((span) => span.name).sort(), ["rag.request", "rag.retrieve"], "the application's exporter still gets every span");
      assert.deepEqual(receiver.spans.map((span) => span.name).sort(), ["rag.request", "rag.retrieve"]);
      const retrieve = receiver.spans.find((span) => span.name === "rag.retrieve")!;
      assert.ok("ragscope.documents.19.rank" in retrieve.attributes, "the provider's attribute count limit was raised above 128");
      assert.deepEqual(handle.statistics(), { queued: 0, exported: 2, droppedQueueFull: 0, failed: 0, sampledOut: 0, droppedAfterShutdown: 0 });
    } finally {
      await handle.shutdown();
    }
    tracing.reset();
    receiver.spans.length = 0;
    await request();
    assert.equal(tracing.spans().length, 2, "after shutdown the application's tracing goes on");
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(receiver.spans.length, 0, "ragscope's processor was taken out again");
  });
});

describe("setupRagscope on a provider that is not the OTel SDK's", () => {
  class OpaqueProvider implements TracerProvider {
    getTracer(): Tracer {
      return trace.getTracer("none");
    }
  }
  after(() => trace.disable());

  test("does not replace it, warns, and reports unattached", async () => {
    assert.equal(trace.setGlobalTracerProvider(new OpaqueProvider()), true);
    const handle = setupRagscope({ endpoint: "http://127.0.0.1:9" });
    try {
      assert.equal(handle.mode, "unattached");
      assert.ok(trace.getTracerProvider() instanceof Object);
    } finally {
      await handle.shutdown();
    }
  });
});
