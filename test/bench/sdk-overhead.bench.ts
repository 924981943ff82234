/**
 * SDK overhead: one RAG request — a root span and six stage spans (query
 * rewrite, retrieve, rerank, context, generate, cite) with ten chunks of 500
 * characters (rag-request-fixture.ts) — through ragscope's wrappers, against
 * the same spans and attributes written with @opentelemetry/api directly, in
 * one run and on one tracer provider. The target is at most 1.3× the raw cost.
 *
 * Both sides run on the OTel SDK's provider with Node's async context
 * manager; the span processor only counts ended spans, so the figures are the
 * cost on the application's call path. Redaction runs on the export path, off
 * the request; its cost per request is measured separately and printed too.
 * Rounds alternate raw and wrapped so drift (JIT, GC, a busy machine) hits both;
 * each figure is the median of the rounds' per-request times.
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createRedactor } from "../../instrumentation/index.js";
import { median, type BenchmarkResult } from "./benchmark.js";
import { rawRequest, wrappedRequest } from "./rag-request-fixture.js";

const ROUNDS = 30;
const REQUESTS_PER_ROUND = 200;
const WARM_UP_REQUESTS = 2_000;

class CollectingProcessor implements SpanProcessor {
  ended = 0;
  last: ReadableSpan[] = [];
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.ended += 1;
    if (this.last.length < 7) this.last.push(span);
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

async function microsecondsPerRequest(request: () => Promise<string>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let index = 0; index < REQUESTS_PER_ROUND; index += 1) await request();
  return Number(process.hrtime.bigint() - start) / 1e3 / REQUESTS_PER_ROUND;
}

export async function benchmark(): Promise<BenchmarkResult> {
  const processor = new CollectingProcessor();
  const provider = new BasicTracerProvider({ spanProcessors: [processor], spanLimits: { attributeCountLimit: 4096 } });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  try {
    for (let index = 0; index < WARM_UP_REQUESTS; index += 1) {
      await rawRequest();
      await wrappedRequest();
    }
    const raw: number[] = [];
    const wrapped: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      if (round % 2 === 0) {
        raw.push(await microsecondsPerRequest(rawRequest));
        wrapped.push(await microsecondsPerRequest(wrappedRequest));
      } else {
        wrapped.push(await microsecondsPerRequest(wrappedRequest));
        raw.push(await microsecondsPerRequest(rawRequest));
      }
    }
    // Redaction of one request's spans, as the export path does it.
    processor.last = [];
    await wrappedRequest();
    // A new redactor per run: its memory of recent texts starts empty, as for a request whose texts were never seen.
    const redactionRuns = 200;
    const redactionStart = process.hrtime.bigint();
    for (let index = 0; index < redactionRuns; index += 1) {
      const redactor = createRedactor({ hashKey: "bench" });
      for (const span of processor.last) redactor.redactAttributes(span.attributes);
    }
    const redactionMicroseconds = Number(process.hrtime.bigint() - redactionStart) / 1e3 / redactionRuns;

    const rawMedian = median(raw);
    const wrappedMedian = median(wrapped);
    return {
      title: "SDK overhead: one RAG request (7 spans, 10 chunks × 500 characters), wrappers vs @opentelemetry/api",
      figures: [
        { name: "raw @opentelemetry/api", value: Math.round(rawMedian * 10) / 10, unit: "µs/request" },
        { name: "ragscope wrappers", value: Math.round(wrappedMedian * 10) / 10, unit: "µs/request" },
        { name: "ratio (target ≤ 1.3)", value: Math.round((wrappedMedian / rawMedian) * 100) / 100, unit: "×" },
        { name: "redaction on the export path (texts not seen before)", value: Math.round(redactionMicroseconds * 10) / 10, unit: "µs/request" },
        { name: "rounds × requests", value: `${ROUNDS} × ${REQUESTS_PER_ROUND}` },
      ],
    };
  } finally {
    await provider.shutdown();
    trace.disable();
    context.disable();
  }
}
