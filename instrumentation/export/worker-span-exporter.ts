/**
 * The span exporter the processor hands its batches to on machines with more
 * than two cores, or with RAGSCOPE_EXPORT_WORKER=true (setup-options.ts): redaction,
 * OTLP encoding and HTTP run on a worker thread (export-worker.ts), so the
 * application's thread pays for turning a batch into plain data and one
 * `postMessage`, not for pattern matching, protobuf and sockets
 * (test/bench/sdk-export.bench.ts has the figures).
 *
 * The processor in front (ragscope-span-processor.ts) keeps every guarantee it
 * had: its queue is bounded in spans and bytes, at most `maxConcurrentExports`
 * batches are with the worker at once (so the worker's memory is bounded by
 * the same limits), each batch has its export timeout, and at the shutdown
 * deadline `abort` ends the worker's requests. `shutdown` terminates the
 * thread.
 *
 * - The worker is `unref()`-ed while it has no batch, and kept referenced while
 *   it has one — as a request in flight on this thread would be — so it never
 *   keeps an idle application alive, and a batch being sent is not cut off by
 *   the event loop draining.
 * - If the worker cannot start (a bundler that left its file out), the batches
 *   posted to it are exported on this thread instead, and so is everything
 *   after (`inThread`), said once on standard error. If it stops after it
 *   started, the batches it held fail (counted, reported: it may have sent
 *   them, and sending them again could duplicate them) and the rest go the
 *   same way on this thread.
 */
import { Worker } from "node:worker_threads";
import { diag } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { reportInstrumentationError } from "../instrumentation-errors.js";
import type { ExportWorkerData, FromExportWorker, ToExportWorker } from "./export-worker-messages.js";
import { isAbortable, type AbortableSpanExporter } from "./otlp-http-writer.js";
import { PartialSuccess } from "./otlp-failure-answer.js";
import { writeToStandardError } from "./ragscope-span-processor.js";
import { toPlainBatch } from "./span-transfer.js";

/** The worker's module beside this one: compiled JavaScript in the package, TypeScript when run from source. */
const FROM_SOURCE = import.meta.url.endsWith(".ts");
const WORKER_URL = new URL(FROM_SOURCE ? "./export-worker.ts" : "./export-worker.js", import.meta.url);

/**
 * Run from source (the repository's tests and benchmarks, under tsx), a
 * worker thread does not inherit tsx's loader on Node 20: it registers it
 * first, then loads the worker's module.
 */
function startWorker(data: ExportWorkerData): Worker {
  if (!FROM_SOURCE) return new Worker(WORKER_URL, { workerData: data, stdout: false, stderr: false, execArgv: workerExecArgv(process.execArgv) });
  const tsx = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: data, stdout: false, stderr: false });
}

/**
 * The application's node flags for the worker, without `--input-type`: it
 * concerns the application's own entry (`node --input-type=module -e …`),
 * and a worker that inherits it fails to start ("--input-type can only be
 * used with string input"), which moved every export back to the
 * application's thread.
 */
export function workerExecArgv(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < execArgv.length; index += 1) {
    const argument = execArgv[index]!;
    if (argument.startsWith("--input-type=")) continue;
    if (argument === "--input-type") {
      index += 1; // and its value
      continue;
    }
    kept.push(argument);
  }
  return kept;
}

export interface WorkerSpanExporterOptions extends ExportWorkerData {
  /** The same export path on the application's thread, for when the worker cannot run. */
  inThread: () => SpanExporter;
  /** Where the switch to the application's thread is said; default standard error. */
  warn?: (message: string) => void;
}

export class WorkerSpanExporter implements AbortableSpanExporter {
  private worker: Worker | undefined;
  private fallback: SpanExporter | undefined;
  private readonly pending = new Map<number, { spans: ReadableSpan[]; callback: (result: ExportResult) => void }>();
  /** The worker's module loaded; before that, no batch posted to it can have been sent. */
  private ready = false;
  private nextId = 0;
  private stopped = false;
  private retryConnections = true;
  private retryListener: ((answer: string) => void) | undefined;
  /** Set once the worker failed or exited on its own (its `error` is followed by `exit`). */
  private workerFailed = false;

  constructor(private readonly options: WorkerSpanExporterOptions) {
    try {
      const data: ExportWorkerData = { writer: options.writer, redaction: options.redaction };
      const worker = startWorker(data);
      worker.on("message", (message: FromExportWorker) => this.receive(message));
      worker.on("error", (error) => this.workerStopped(`it failed: ${error.message}`));
      worker.on("exit", (code) => this.workerStopped(`it exited with code ${code}`));
      // After the listeners: adding a "message" listener references the worker's port again.
      worker.unref();
      this.worker = worker;
    } catch (error) {
      this.workerStopped(`it could not start: ${String(error)}`);
    }
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.stopped) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error("the exporter is shut down") });
      return;
    }
    const worker = this.worker;
    if (worker === undefined) {
      this.inThread().export(spans, resultCallback);
      return;
    }
    const id = this.nextId;
    this.nextId += 1;
    try {
      this.post(worker, { type: "export", id, batch: toPlainBatch(spans) });
    } catch (error) {
      // A value the structured clone cannot copy; OTel's attribute checks should have kept it out.
      resultCallback({ code: ExportResultCode.FAILED, error: new Error(`the spans could not be passed to the export worker: ${String(error)}`) });
      return;
    }
    this.pending.set(id, { spans, callback: resultCallback });
    if (this.pending.size === 1) worker.ref();
  }

  abort(reason: string): void {
    if (this.worker !== undefined) this.post(this.worker, { type: "abort", reason });
    if (this.fallback !== undefined && isAbortable(this.fallback)) this.fallback.abort(reason);
  }

  stopRetryingConnections(): void {
    this.retryConnections = false;
    if (this.worker !== undefined) this.post(this.worker, { type: "stop-retrying-connections" });
    if (this.fallback !== undefined && isAbortable(this.fallback)) this.fallback.stopRetryingConnections();
  }

  onRetry(listener: (answer: string) => void): void {
    this.retryListener = listener;
    if (this.fallback !== undefined && isAbortable(this.fallback)) this.fallback.onRetry?.(listener);
  }

  async shutdown(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const worker = this.worker;
    this.worker = undefined;
    // The processor calls this after its exports ended or were given up at its deadline; what is still here is lost.
    this.failPending("the exporter was shut down");
    if (worker !== undefined) await worker.terminate();
    await this.fallback?.shutdown();
  }

  async forceFlush(): Promise<void> {}

  private post(worker: Worker, message: ToExportWorker): void {
    worker.postMessage(message);
  }

  private receive(message: FromExportWorker): void {
    if (message.type === "ready") {
      this.ready = true;
      return;
    }
    if (message.type === "instrumentation-error") {
      reportInstrumentationError(message.where, message.problem);
      return;
    }
    if (message.type === "retrying") {
      this.retryListener?.(message.answer);
      return;
    }
    const batch = this.pending.get(message.id);
    if (batch === undefined) return;
    this.pending.delete(message.id);
    if (this.pending.size === 0) this.worker?.unref();
    if (!message.ok) batch.callback({ code: ExportResultCode.FAILED, error: new Error(message.error ?? "no reason given") });
    else if (message.rejectedSpans === undefined) batch.callback({ code: ExportResultCode.SUCCESS });
    else batch.callback({ code: ExportResultCode.SUCCESS, error: new PartialSuccess(message.rejectedSpans, message.error ?? "") });
  }

  private workerStopped(why: string): void {
    if (this.stopped || this.workerFailed) return;
    this.workerFailed = true;
    this.worker = undefined;
    // Said on standard error, not only to a diagnostic logger: the application now pays for exporting on its own thread.
    const message = `ragscope: the export worker stopped (${why}); spans are exported from the application's thread from now on`;
    try {
      (this.options.warn ?? writeToStandardError)(message);
    } catch {
      diag.warn(message);
    }
    if (this.ready) {
      // The worker may have sent these before it stopped: sending them again could duplicate them.
      this.failPending(`the export worker stopped: ${why}`);
      return;
    }
    // It never loaded (a bundler left its file out): nothing was sent, so its batches go the application thread's way.
    const batches = [...this.pending.values()];
    this.pending.clear();
    for (const { spans, callback } of batches) this.inThread().export(spans, callback);
  }

  private failPending(reason: string): void {
    const batches = [...this.pending.values()];
    this.pending.clear();
    for (const { callback } of batches) callback({ code: ExportResultCode.FAILED, error: new Error(reason) });
  }

  private inThread(): SpanExporter {
    if (this.fallback === undefined) {
      this.fallback = this.options.inThread();
      if (!this.retryConnections && isAbortable(this.fallback)) this.fallback.stopRetryingConnections();
      if (this.retryListener !== undefined && isAbortable(this.fallback)) this.fallback.onRetry?.(this.retryListener);
    }
    return this.fallback;
  }
}
