/**
 * The application of the SDK export benchmark (sdk-export.bench.ts), run as a
 * process of its own: `setupRagscope()` from the built package with default
 * settings (the endpoint from RAGSCOPE_ENDPOINT), then RAGSCOPE_BENCH_TRACES 8-span requests at the
 * highest rate it can, yielding to the event loop between requests as a
 * server handling requests does, then `shutdown()`. It prints one JSON line:
 * spans emitted, how long emitting and exporting took, and the SDK's counts.
 *
 * RAGSCOPE_BENCH_SDK_PATH=otel-batch instead exports through the OTel SDK's
 * BatchSpanProcessor and OTLP/HTTP protobuf exporter with their defaults
 * (2048 spans queued, 512 a batch, one export at a time) — the path the SDK
 * used before its export writer — for a before/after figure in one run.
 */
import { readFileSync } from "node:fs";
import { trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { BatchSpanProcessor, BasicTracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
// The built package, as an application that installed ragscope imports it (`npm run bench` builds it first).
import * as ragscope from "ragscope/instrumentation";
import { createEightSpanRequest, SPANS_PER_REQUEST } from "./eight-span-request.js";

const { setupRagscope, createRedactor, RedactingSpanExporter } = ragscope;
const eightSpanRequest = createEightSpanRequest(ragscope);

const traces = Number(process.env.RAGSCOPE_BENCH_TRACES ?? 5_000);
const path = process.env.RAGSCOPE_BENCH_SDK_PATH ?? "ragscope";
const endpoint = process.env.RAGSCOPE_ENDPOINT ?? "http://127.0.0.1:4318";

interface Outcome {
  exported: number;
  dropped: number;
  failed: number;
}

/** The previous path: OTel's batch processor in front of the OTLP/HTTP protobuf exporter, redaction included. */
function startOtelBatchPath(): { shutdown(): Promise<Outcome> } {
  const counts = { exported: 0, failed: 0, ended: 0 };
  const otlp = new OTLPTraceExporter({ url: `${endpoint}/v1/traces` });
  const exporter = new RedactingSpanExporter(
    {
      export: (spans: ReadableSpan[], done) =>
        otlp.export(spans, (result) => {
          if (result.code === 0) counts.exported += spans.length;
          else counts.failed += spans.length;
          done(result);
        }),
      shutdown: () => otlp.shutdown(),
    },
    createRedactor({}),
  );
  const processor = new BatchSpanProcessor(exporter);
  const provider = new BasicTracerProvider({
    spanProcessors: [processor, { onStart() {}, onEnd: () => void (counts.ended += 1), forceFlush: async () => {}, shutdown: async () => {} }],
    spanLimits: { attributeCountLimit: 4096 },
  });
  trace.setGlobalTracerProvider(provider);
  return {
    async shutdown() {
      await provider.shutdown();
      // The batch processor drops silently when its queue is full: what ended and was neither exported nor failed was dropped.
      return { exported: counts.exported, failed: counts.failed, dropped: counts.ended - counts.exported - counts.failed };
    },
  };
}

function startRagscopePath(): { shutdown(): Promise<Outcome> } {
  const handle = setupRagscope({ serviceName: "sdk-export-bench" });
  return {
    async shutdown() {
      await handle.shutdown();
      const statistics = handle.statistics();
      return { exported: statistics.exported, failed: statistics.failed, dropped: statistics.droppedQueueFull };
    },
  };
}

const running = path === "otel-batch" ? startOtelBatchPath() : startRagscopePath();
if (path === "otel-batch") {
  const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
  const { context } = await import("@opentelemetry/api");
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}
/**
 * CPU time of the application's own thread (the one that runs the requests):
 * process.cpuUsage() counts every thread, the export worker's too. Linux's
 * per-thread counters, in clock ticks (1/100 s; the runs take seconds); null
 * elsewhere.
 */
function applicationThreadCpuSeconds(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the file, 12 and 13 after the name.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

const started = process.hrtime.bigint();
const cpuAtStart = process.cpuUsage();
const threadCpuAtStart = applicationThreadCpuSeconds();
for (let index = 0; index < traces; index += 1) {
  await eightSpanRequest(index);
  // A server between two requests: timers and sockets (the exports) get their turn.
  await new Promise((resolve) => setImmediate(resolve));
}
const emitted = process.hrtime.bigint();
const outcome = await running.shutdown();
const finished = process.hrtime.bigint();
const cpu = process.cpuUsage(cpuAtStart);
const threadCpu = applicationThreadCpuSeconds();
process.stdout.write(
  `${JSON.stringify({
    path,
    spans: traces * SPANS_PER_REQUEST,
    emitSeconds: Number(emitted - started) / 1e9,
    totalSeconds: Number(finished - started) / 1e9,
    // On a machine shared with other work the wall-clock rates vary; the CPU the application spent does much less.
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    applicationThreadCpuSeconds: threadCpu === null || threadCpuAtStart === null ? null : threadCpu - threadCpuAtStart,
    ...outcome,
  })}\n`,
);
