/**
 * ragscope's span processor: a bounded queue whose losses are counted, exports
 * off the application's call, failures and timeouts counted, flush and
 * shutdown that always end.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { BasicTracerProvider, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { RagscopeSpanProcessor } from "../../../instrumentation/index.js";

/** An exporter whose answers the test decides. */
class ScriptedExporter implements SpanExporter {
  readonly batches: ReadableSpan[][] = [];
  readonly pending: ((result: ExportResult) => void)[] = [];
  constructor(private readonly mode: "succeed" | "fail" | "hang" | "throw") {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.batches.push(spans);
    if (this.mode === "throw") throw new Error("exporter bug");
    if (this.mode === "succeed") done({ code: ExportResultCode.SUCCESS });
    else if (this.mode === "fail") done({ code: ExportResultCode.FAILED, error: new Error("ECONNREFUSED") });
    else this.pending.push(done);
  }
  async shutdown(): Promise<void> {}
}

function endSpans(processor: RagscopeSpanProcessor, count: number): void {
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const tracer = provider.getTracer("test");
  for (let index = 0; index < count; index += 1) tracer.startSpan(`s${index}`).end();
}

describe("RagscopeSpanProcessor", () => {
  test("onEnd only queues: nothing is exported in the application's call", async () => {
    const exporter = new ScriptedExporter("succeed");
    const processor = new RagscopeSpanProcessor(exporter, { scheduledDelayMillis: 10 });
    endSpans(processor, 3);
    assert.equal(exporter.batches.length, 0);
    assert.equal(processor.statistics().queued, 3);
    await processor.forceFlush();
    assert.deepEqual(exporter.batches.map((batch) => batch.length), [3]);
    assert.deepEqual(processor.statistics(), { queued: 0, exported: 3, droppedQueueFull: 0, failed: 0, sampledOut: 0, droppedAfterShutdown: 0 });
  });

  test("exports on its own after the scheduled delay, and as soon as a batch is full", async (context) => {
    // The processor's timers run on a mocked clock: the test moves time, so a busy machine changes nothing.
    context.mock.timers.enable({ apis: ["setTimeout"] });
    const settled = () => new Promise((resolve) => setImmediate(resolve));
    const batchSizes = () => exporter.batches.map((batch) => batch.length);
    const exporter = new ScriptedExporter("succeed");
    const processor = new RagscopeSpanProcessor(exporter, { scheduledDelayMillis: 20, maxExportBatchSize: 4 });
    endSpans(processor, 9);
    assert.deepEqual(batchSizes(), [], "nothing in the application's call");
    context.mock.timers.tick(0);
    await settled();
    context.mock.timers.tick(0);
    await settled();
    assert.deepEqual(batchSizes(), [4, 4], "full batches go at once");
    context.mock.timers.tick(19);
    await settled();
    assert.deepEqual(batchSizes(), [4, 4], "the rest waits for the scheduled delay");
    context.mock.timers.tick(1);
    await settled();
    assert.deepEqual(batchSizes(), [4, 4, 1], "and goes when it has passed");
    assert.equal(processor.statistics().exported, 9);
  });

  test("a collector that never answers: memory stays bounded, drops and timeouts are counted", async () => {
    const exporter = new ScriptedExporter("hang");
    const processor = new RagscopeSpanProcessor(exporter, { maxQueueSize: 50, maxExportBatchSize: 10, scheduledDelayMillis: 1, exportTimeoutMillis: 30 });
    endSpans(processor, 10);
    await new Promise((resolve) => setTimeout(resolve, 5)); // one export of 10 is now in flight and hangs
    endSpans(processor, 1000);
    const statistics = processor.statistics();
    assert.ok(statistics.queued <= 50, `queue held ${statistics.queued}`);
    assert.equal(statistics.droppedQueueFull, 1000 - 50);
    await assert.rejects(processor.forceFlush(), /could not be exported/);
    const after = processor.statistics();
    assert.equal(after.exported, 0);
    assert.equal(after.failed + after.droppedQueueFull, 1010, "every span is accounted for");
  });

  test("failed exports and a throwing exporter count their spans as failed", async () => {
    for (const mode of ["fail", "throw"] as const) {
      const processor = new RagscopeSpanProcessor(new ScriptedExporter(mode), { scheduledDelayMillis: 1 });
      endSpans(processor, 7);
      await assert.rejects(processor.forceFlush());
      assert.equal(processor.statistics().failed, 7, mode);
    }
  });

  test("shutdown with the collector down ends after one failed batch; later spans are ignored", async () => {
    const exporter = new ScriptedExporter("fail");
    const processor = new RagscopeSpanProcessor(exporter, { maxExportBatchSize: 10, scheduledDelayMillis: 1000 });
    endSpans(processor, 35);
    await processor.shutdown();
    assert.equal(exporter.batches.length, 1, "no batch after the first failure");
    assert.equal(processor.statistics().failed, 35);
    assert.equal(processor.shutdown(), processor.shutdown(), "idempotent");
    endSpans(processor, 5);
    assert.equal(processor.statistics().queued, 0);
  });

  test("unsampled spans are never queued", async () => {
    const exporter = new ScriptedExporter("succeed");
    const processor = new RagscopeSpanProcessor(exporter, { scheduledDelayMillis: 1 });
    const provider = new BasicTracerProvider({ spanProcessors: [processor], sampler: { shouldSample: () => ({ decision: 1 }) } });
    provider.getTracer("t").startSpan("recorded-not-sampled").end();
    await processor.forceFlush();
    assert.equal(exporter.batches.length, 0);
  });

  test("at most maxConcurrentExports exports in flight; the next starts when one ends", async (context) => {
    context.mock.timers.enable({ apis: ["setTimeout"] });
    const settled = () => new Promise((resolve) => setImmediate(resolve));
    const exporter = new ScriptedExporter("hang");
    const processor = new RagscopeSpanProcessor(exporter, { maxConcurrentExports: 3, maxExportBatchSize: 10, scheduledDelayMillis: 1000 });
    endSpans(processor, 100);
    for (let turn = 0; turn < 5; turn += 1) {
      context.mock.timers.tick(0);
      await settled();
    }
    assert.deepEqual(exporter.batches.map((batch) => batch.length), [10, 10, 10], "three full batches in flight, no more");
    exporter.pending[0]!({ code: ExportResultCode.SUCCESS });
    await settled();
    context.mock.timers.tick(0);
    await settled();
    assert.equal(exporter.batches.length, 4, "one ended, the next started");
    assert.equal(processor.statistics().exported, 10);
    assert.equal(processor.pending(), 90, "queued and in flight");
  });

  test("batches and the queue are bounded in bytes too", async () => {
    const exporter = new ScriptedExporter("succeed");
    const text = "x".repeat(1000); // a span of ~1,250 estimated bytes
    const processor = new RagscopeSpanProcessor(exporter, { maxExportBatchBytes: 3000, maxQueueBytes: 6000, scheduledDelayMillis: 1000 });
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    for (let index = 0; index < 10; index += 1) provider.getTracer("t").startSpan(`s${index}`, { attributes: { text } }).end();
    const statistics = processor.statistics();
    assert.equal(statistics.queued, 4, "four spans fit 6000 bytes");
    assert.equal(statistics.droppedQueueFull, 6);
    await processor.forceFlush();
    assert.deepEqual(exporter.batches.map((batch) => batch.length), [2, 2], "two spans fit a batch of 3000 bytes");
  });

  test("at shutdown the whole number of spans dropped with the queue full is said, not only the first warning's", async () => {
    const warnings: string[] = [];
    const exporter = new ScriptedExporter("succeed");
    const processor = new RagscopeSpanProcessor(exporter, { maxQueueSize: 5, scheduledDelayMillis: 60_000, warn: (message) => warnings.push(message) });
    endSpans(processor, 2_005);
    assert.equal(warnings.length, 1, "one warning an interval");
    assert.match(warnings[0]!, /1 spans lost so far$/);
    await processor.shutdown();
    assert.equal(processor.statistics().droppedQueueFull, 2_000);
    assert.match(warnings.at(-1)!, /^ragscope: this process lost 2000 spans bound for .* in all: 2000 dropped because the span queue was full \(5 spans/);
    const quiet: string[] = [];
    const healthy = new RagscopeSpanProcessor(new ScriptedExporter("succeed"), { scheduledDelayMillis: 1, warn: (message) => quiet.push(message) });
    endSpans(healthy, 3);
    await healthy.shutdown();
    assert.deepEqual(quiet, [], "nothing dropped, nothing said");
  });

  test("limits come from OTEL_BSP_* when no option is given", () => {
    const processor = new RagscopeSpanProcessor(new ScriptedExporter("hang"), {}, { OTEL_BSP_MAX_QUEUE_SIZE: "3" });
    endSpans(processor, 5);
    assert.equal(processor.statistics().queued, 3);
    assert.equal(processor.statistics().droppedQueueFull, 2);
  });
});
