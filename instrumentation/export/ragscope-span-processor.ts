/**
 * ragscope's span processor: a bounded batch queue in front of an exporter,
 * built so that the application never waits for or breaks because of the
 * collector (the OTel batch span processor's design, STYLE.md "Bounded
 * buffers", with every loss counted and readable), and fast enough that one
 * application process exports tens of thousands of spans a second:
 *
 * - `onEnd` only pushes into a queue bounded in spans (OTEL_BSP_MAX_QUEUE_SIZE,
 *   default 65,536) and in bytes (RAGSCOPE_MAX_QUEUE_BYTES, default 64 MiB —
 *   an estimate: the text the spans carry plus a fixed cost per span and per
 *   attribute). When it is full the span is dropped and counted — memory stays
 *   bounded however long the collector is down or slow.
 * - Exports run later, off the application's call (a timer every
 *   `scheduledDelayMillis`, or as soon as a batch is full), up to
 *   `maxConcurrentExports` at once (default 4), each given up after
 *   `exportTimeoutMillis`. One export at a time, as OTel's batch processor
 *   does, waits a round trip per batch: at ~2,000 spans/s the queue filled and
 *   three spans in four were dropped (test/bench/sdk-export.bench.ts). A
 *   failed or timed-out export counts its spans as failed.
 * - `shutdown` exports what is queued within `shutdownTimeoutMillis` (default
 *   10000 ms); at that deadline the exports still in flight are aborted (with
 *   an exporter that can: export/otlp-http-writer.ts), and every span not
 *   exported is counted as failed and reported on standard error with its
 *   count. A collector that is down fails the first batch; the rest would only
 *   fail the same way, so they are counted as lost at once.
 * - Spans of traces that head sampling rejects (sampling/trace-id-sampling.ts)
 *   are not queued. This matters when ragscope is added to an application's
 *   own tracer provider, whose sampler it does not control: the decision is the
 *   same pure function of the trace id, so a request keeps all its spans or none.
 * - Timers are `unref()`-ed: a pending export never keeps the process alive
 *   (setup exports what is left when the process ends: flush-on-exit.ts).
 * - Lost spans (queue full, failed exports) are reported on standard error at
 *   once, then at most every ten seconds, each warning with the process's loss
 *   so far — what a warning window left unsaid is in the next one. Shutdown
 *   says the process's whole loss by cause (failed exports, queue full, spans
 *   ended after shutdown began), and the exit line says it again when spans
 *   were lost after that.
 */
import { TraceFlags, diag, type Context } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { isTraceSampled } from "../sampling/trace-id-sampling.js";
import type { ProcessEnding } from "./flush-on-exit.js";
import { isAbortable } from "./otlp-http-writer.js";
import { PartialSuccess } from "./otlp-failure-answer.js";
import { estimateSpanBytes } from "./span-size.js";

export interface RagscopeSpanProcessorOptions extends Partial<ExportLimits> {
  /** Spans held at most; default OTEL_BSP_MAX_QUEUE_SIZE or 65,536. */
  maxQueueSize?: number;
  /** Estimated bytes of the spans held at most; default RAGSCOPE_MAX_QUEUE_BYTES or 64 MiB. */
  maxQueueBytes?: number;
  /** Spans per export at most; default OTEL_BSP_MAX_EXPORT_BATCH_SIZE or 1024. */
  maxExportBatchSize?: number;
  /** Estimated bytes per export at most (a batch holds at least one span); default RAGSCOPE_MAX_EXPORT_BATCH_BYTES or 4 MiB. */
  maxExportBatchBytes?: number;
  /** Exports in flight at once; default RAGSCOPE_MAX_CONCURRENT_EXPORTS or 4. */
  maxConcurrentExports?: number;
  /** Longest wait before queued spans are exported; default OTEL_BSP_SCHEDULE_DELAY or 1000 ms. */
  scheduledDelayMillis?: number;
  /** An export not answered by then counts as failed; default OTEL_BSP_EXPORT_TIMEOUT or 10000 ms. */
  exportTimeoutMillis?: number;
  /** Longest time `shutdown` takes; then exports in flight are aborted and the spans not exported are reported lost. Default RAGSCOPE_SHUTDOWN_TIMEOUT_MS or 10000 ms (one export timeout: a collector that answers slowly still gets one full try). */
  shutdownTimeoutMillis?: number;
  /** Fraction of traces exported, decided by trace id; default 1. */
  sampleRate?: number;
  /** Where spans go, named in loss warnings (the traces URL). */
  destination?: string;
  /**
   * Where loss warnings go; default: standard error. A process must hear that
   * telemetry was lost, whether or not an OTel diagnostic logger is set.
   */
  warn?: (message: string) => void;
  /** Epoch milliseconds now, for the warning interval; default Date.now (a test steps its own clock). */
  now?: () => number;
}

export interface ExportStatistics {
  /** Spans waiting in the queue now. */
  readonly queued: number;
  /** Spans the exporter accepted. */
  readonly exported: number;
  /** Spans dropped because the queue was full (collector down or slow). */
  readonly droppedQueueFull: number;
  /** Spans in exports that failed or timed out, or still unexported when shutdown ended. */
  readonly failed: number;
  /**
   * Spans not exported because head sampling left them out: those the sampler of the provider ragscope started did
   * not record (sampling/counted-sampler.ts), or, on an application's own provider, those of the traces this
   * processor's rate rejects.
   */
  readonly sampledOut: number;
  /**
   * Spans ended after shutdown began, which nothing exports any more: the application went on recording after
   * `shutdown()`. Reported on stderr when the process exits.
   */
  readonly droppedAfterShutdown: number;
}

/** The processor's limits when neither an option nor a variable sets them. */
export const DEFAULT_EXPORT_LIMITS = {
  maxQueueSize: 65_536,
  maxQueueBytes: 64 * 1024 * 1024,
  maxExportBatchSize: 1024,
  maxExportBatchBytes: 4 * 1024 * 1024,
  maxConcurrentExports: 4,
  scheduledDelayMillis: 1000,
  exportTimeoutMillis: 10_000,
  shutdownTimeoutMillis: 10_000,
} as const;

export type ExportLimits = { -readonly [Name in keyof typeof DEFAULT_EXPORT_LIMITS]: number };

/** Each limit from its option, else its variable (OTEL_BSP_*, RAGSCOPE_*), else its default. */
export function resolveExportLimits(options: Partial<ExportLimits> = {}, environment: NodeJS.ProcessEnv = process.env): ExportLimits {
  const limits = DEFAULT_EXPORT_LIMITS;
  const maxQueueSize = positive(options.maxQueueSize, environment.OTEL_BSP_MAX_QUEUE_SIZE, limits.maxQueueSize);
  return {
    maxQueueSize,
    maxQueueBytes: positive(options.maxQueueBytes, environment.RAGSCOPE_MAX_QUEUE_BYTES, limits.maxQueueBytes),
    maxExportBatchSize: Math.min(positive(options.maxExportBatchSize, environment.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, limits.maxExportBatchSize), maxQueueSize),
    maxExportBatchBytes: positive(options.maxExportBatchBytes, environment.RAGSCOPE_MAX_EXPORT_BATCH_BYTES, limits.maxExportBatchBytes),
    maxConcurrentExports: positive(options.maxConcurrentExports, environment.RAGSCOPE_MAX_CONCURRENT_EXPORTS, limits.maxConcurrentExports),
    scheduledDelayMillis: positive(options.scheduledDelayMillis, environment.OTEL_BSP_SCHEDULE_DELAY, limits.scheduledDelayMillis),
    exportTimeoutMillis: positive(options.exportTimeoutMillis, environment.OTEL_BSP_EXPORT_TIMEOUT, limits.exportTimeoutMillis),
    shutdownTimeoutMillis: positive(options.shutdownTimeoutMillis, environment.RAGSCOPE_SHUTDOWN_TIMEOUT_MS, limits.shutdownTimeoutMillis),
  };
}

const WARNING_INTERVAL_MS = 10_000;

interface QueuedSpan {
  span: ReadableSpan;
  bytes: number;
}

interface RunningExport {
  done: Promise<void>;
  spans: number;
  /** Set when shutdown stopped waiting for it and counted its spans as lost. */
  abandoned: boolean;
}

export class RagscopeSpanProcessor implements SpanProcessor {
  /** A ring would avoid shift(); the queue is taken from in batches, so an index into an array that is compacted per batch is enough. */
  private queue: QueuedSpan[] = [];
  private head = 0;
  private queuedBytes = 0;
  private readonly maxQueueSize: number;
  private readonly maxQueueBytes: number;
  private readonly maxExportBatchSize: number;
  private readonly maxExportBatchBytes: number;
  private readonly maxConcurrentExports: number;
  private readonly scheduledDelayMillis: number;
  private readonly exportTimeoutMillis: number;
  private readonly shutdownTimeoutMillis: number;
  private readonly sampleRate: number;
  private readonly destination: string;
  private readonly writeWarning: (message: string) => void;
  private readonly now: () => number;
  /** The process's loss in spans (every cause) when it was last said in full: the exit line says it again only when more was lost since. */
  private lossSaid = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerDelay = 0;
  private readonly inFlight = new Set<RunningExport>();
  /** The intervals that keep the process alive while someone awaits a flush. */
  private readonly keepAlives = new Set<NodeJS.Timeout>();
  private shutdownPromise: Promise<void> | undefined;
  private lastWarningAt = Number.NEGATIVE_INFINITY;
  /** Why the last export failed, for the shutdown report. */
  private lastFailure = "the export failed";
  /** What the collector last answered to an export that is being retried (e.g. 503), cleared by a success: said when the shutdown deadline ends the retries. */
  private lastRetriedAnswer: string | null = null;
  /** Exports that failed as a whole; at shutdown one means the collector is out of reach. */
  private failedExports = 0;
  private readonly counters = { exported: 0, droppedQueueFull: 0, failed: 0, sampledOut: 0, droppedAfterShutdown: 0 };

  constructor(
    private readonly exporter: SpanExporter,
    options: RagscopeSpanProcessorOptions = {},
    environment: NodeJS.ProcessEnv = process.env,
  ) {
    const limits = resolveExportLimits(options, environment);
    this.maxQueueSize = limits.maxQueueSize;
    this.maxQueueBytes = limits.maxQueueBytes;
    this.maxExportBatchSize = limits.maxExportBatchSize;
    this.maxExportBatchBytes = limits.maxExportBatchBytes;
    this.maxConcurrentExports = limits.maxConcurrentExports;
    this.scheduledDelayMillis = limits.scheduledDelayMillis;
    this.exportTimeoutMillis = limits.exportTimeoutMillis;
    this.shutdownTimeoutMillis = limits.shutdownTimeoutMillis;
    this.sampleRate = options.sampleRate ?? 1;
    this.destination = options.destination ?? "the exporter";
    this.writeWarning = options.warn ?? writeToStandardError;
    this.now = options.now ?? Date.now;
    if (!(this.sampleRate >= 0 && this.sampleRate <= 1)) throw new Error(`sampleRate ${this.sampleRate} must be between 0 and 1`);
    if (isAbortable(exporter)) exporter.onRetry?.((answer) => (this.lastRetriedAnswer = answer));
  }

  /** The limits in force (options, else variables, else defaults). */
  get limits(): ExportLimits {
    return {
      maxQueueSize: this.maxQueueSize,
      maxQueueBytes: this.maxQueueBytes,
      maxExportBatchSize: this.maxExportBatchSize,
      maxExportBatchBytes: this.maxExportBatchBytes,
      maxConcurrentExports: this.maxConcurrentExports,
      scheduledDelayMillis: this.scheduledDelayMillis,
      exportTimeoutMillis: this.exportTimeoutMillis,
      shutdownTimeoutMillis: this.shutdownTimeoutMillis,
    };
  }

  statistics(): ExportStatistics {
    return { queued: this.queuedCount(), ...this.counters };
  }

  /** Spans not yet exported: queued, and in exports still in flight. */
  pending(): number {
    let inFlight = 0;
    for (const running of this.inFlight) inFlight += running.spans;
    return this.queuedCount() + inFlight;
  }

  onStart(_span: Span, _parentContext: Context): void {}

  /** One span the provider's sampler left out: it never reaches `onEnd`, so the sampler says it here (sampling/counted-sampler.ts). */
  countSampledOut(): void {
    this.counters.sampledOut += 1;
  }

  /**
   * What is lost if the process ends now as `ending` ends it, for the line said at exit (flush-on-exit.ts): the spans not yet exported,
   * those ended after shutdown began, and the process's whole loss by cause. Null when nothing was lost since the
   * whole loss was last said (at shutdown).
   */
  lossAtExit(ending: ProcessEnding = "exit"): string | null {
    const pending = this.pending();
    if (pending === 0 && this.lossTotal() === this.lossSaid) return null;
    const parts: string[] = [];
    if (pending > 0) parts.push(unexportedAtExit(ending, pending, this.destination));
    const afterShutdown = this.counters.droppedAfterShutdown;
    if (afterShutdown > 0) {
      parts.push(
        `${afterShutdown} spans ended after ragscope had shut down and were not exported to ${this.destination}: the application went on recording after shutdown(); shut ragscope down once the application's work is done`,
      );
    }
    const total = this.lossTotal() + pending;
    // The whole loss, when it is more than what this line already named.
    if (total > pending + afterShutdown) parts.push(`in all this process lost ${total} spans: ${this.lossByCause(pending)}`);
    return `ragscope: ${parts.join("; ")}`;
  }

  /** Spans lost so far, every cause. */
  private lossTotal(): number {
    return this.counters.failed + this.counters.droppedQueueFull + this.counters.droppedAfterShutdown;
  }

  /** The end of a warning: the process's loss so far, by cause when there is more than one. */
  private lossSoFar(): string {
    const causes = [this.counters.failed, this.counters.droppedQueueFull, this.counters.droppedAfterShutdown].filter((count) => count > 0).length;
    return `${this.lossTotal()} spans lost so far` + (causes > 1 ? ` (${this.lossByCause(0)})` : "");
  }

  /** Each cause of loss with its count and what to do, for the shutdown and exit lines; `pending`: spans unexported at exit. */
  private lossByCause(pending: number): string {
    const causes: string[] = [];
    if (this.counters.failed > 0) causes.push(`${this.counters.failed} in exports that failed or were refused, or left unexported at shutdown (last: ${this.lastFailure})`);
    if (this.counters.droppedQueueFull > 0) {
      causes.push(
        `${this.counters.droppedQueueFull} dropped because the span queue was full (${this.maxQueueSize} spans or ${this.maxQueueBytes} bytes; the collector was down or slower than the application: raise OTEL_BSP_MAX_QUEUE_SIZE or scale the collector)`,
      );
    }
    if (this.counters.droppedAfterShutdown > 0) causes.push(`${this.counters.droppedAfterShutdown} ended after shutdown began`);
    if (pending > 0) causes.push(`${pending} not yet exported when the process exited`);
    return causes.join(", ");
  }

  onEnd(span: ReadableSpan): void {
    const spanContext = span.spanContext();
    if ((spanContext.traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.sampleRate < 1 && !isTraceSampled(spanContext.traceId, this.sampleRate)) {
      this.counters.sampledOut += 1;
      return;
    }
    // Nothing exports it any more; counted, and said when the process exits (lossAtExit), never dropped unsaid.
    if (this.shutdownPromise !== undefined) {
      this.counters.droppedAfterShutdown += 1;
      return;
    }
    const bytes = estimateSpanBytes(span);
    if (this.queuedCount() >= this.maxQueueSize || (this.queuedBytes + bytes > this.maxQueueBytes && this.queuedCount() > 0)) {
      this.counters.droppedQueueFull += 1;
      this.warn(`ragscope: span queue full (${this.maxQueueSize} spans or ${this.maxQueueBytes} bytes): the collector at ${this.destination} is down or slower than the application; ${this.lossSoFar()}`);
      return;
    }
    this.queue.push({ span, bytes });
    this.queuedBytes += bytes;
    this.schedule(this.batchIsFull() ? 0 : this.scheduledDelayMillis);
  }

  /** Exports every span queued now; rejects when some of them could not be exported. */
  async forceFlush(): Promise<void> {
    const failedBefore = this.counters.failed;
    await this.drain(false);
    const lost = this.counters.failed - failedBefore;
    if (lost > 0) throw new Error(`ragscope: ${lost} spans could not be exported`);
  }

  shutdown(): Promise<void> {
    // A collector that cannot be reached now will not be reached before the deadline: no more waiting to retry a connection.
    if (this.shutdownPromise === undefined && isAbortable(this.exporter)) this.exporter.stopRetryingConnections();
    this.shutdownPromise ??= this.shutdownWithin(this.shutdownTimeoutMillis);
    return this.shutdownPromise;
  }

  private async shutdownWithin(timeoutMillis: number): Promise<void> {
    let deadlineTimer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"deadline">((resolve) => {
      deadlineTimer = setTimeout(() => resolve("deadline"), timeoutMillis);
    });
    const failedBefore = this.counters.failed;
    let reason = this.lastFailure;
    try {
      const outcome = await Promise.race([this.drain(true).then(() => "drained" as const), deadline]);
      reason = this.lastFailure;
      if (outcome === "deadline") {
        reason = `shutdown did not finish within ${timeoutMillis} ms, RAGSCOPE_SHUTDOWN_TIMEOUT_MS`;
        // Time ran out because the collector kept refusing, not because it was silent: say what it answered.
        if (this.lastRetriedAnswer !== null) reason += `; until then ${this.lastRetriedAnswer}`;
        // Stop sending; exports still in flight are ended.
        this.dropQueue();
        if (isAbortable(this.exporter)) this.exporter.abort(`shutdown took longer than ${timeoutMillis} ms`);
        // Whatever an exporter that cannot abort still does is not waited for.
        for (const running of this.inFlight) {
          running.abandoned = true;
          this.counters.failed += running.spans;
        }
        this.inFlight.clear();
        // The drain may still wait for an exporter that cannot abort; it must not keep the process alive.
        for (const keepAlive of this.keepAlives) clearInterval(keepAlive);
      }
    } finally {
      clearTimeout(deadlineTimer);
    }
    // Warnings are said at most once an interval, each with the loss at that moment: what was lost after the last
    // one (a burst of failed exports, thousands dropped with the queue full) would go unsaid. The process's whole loss,
    // by cause, is said as it ends; the spans lost at shutdown itself lead, with why.
    const lostAtShutdown = this.counters.failed - failedBefore;
    const total = this.lossTotal();
    if (lostAtShutdown > 0) {
      const lostBefore = total - lostAtShutdown;
      this.report(
        `ragscope: at shutdown ${lostAtShutdown} spans could not be exported to ${this.destination} (${reason}) and are lost` +
          (lostBefore > 0 ? `; in all this process lost ${total} spans: ${this.lossByCause(0)}` : ""),
      );
    } else if (total > 0) {
      this.report(`ragscope: this process lost ${total} spans bound for ${this.destination} in all: ${this.lossByCause(0)}`);
    }
    try {
      await this.exporter.shutdown();
    } catch (error) {
      diag.warn(`ragscope: exporter shutdown failed: ${String(error)}`);
    }
  }

  private async drain(shuttingDown: boolean): Promise<void> {
    // The export timers are unref()-ed; someone awaiting this flush must get
    // an answer even if nothing else keeps the event loop alive.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    this.keepAlives.add(keepAlive);
    try {
      await this.drainQueue(shuttingDown);
    } finally {
      clearInterval(keepAlive);
      this.keepAlives.delete(keepAlive);
    }
  }

  private async drainQueue(shuttingDown: boolean): Promise<void> {
    this.clearTimer();
    const failedExportsBefore = this.failedExports;
    // Spans the application ends meanwhile wait for the next round: a flush
    // exports what was queued when it was called, and so always ends. At
    // shutdown nothing more is queued: everything goes.
    let batchesLeft = shuttingDown
      ? Number.POSITIVE_INFINITY
      : Math.ceil(this.queuedCount() / this.maxExportBatchSize) + Math.ceil(this.queuedBytes / this.maxExportBatchBytes) + 1;
    while (this.queuedCount() > 0 || this.inFlight.size > 0) {
      // Counted as lost, and reported by shutdown with the rest.
      // An export that failed, not one whose spans the collector partly refused: that collector is up.
      if (shuttingDown && this.failedExports > failedExportsBefore) this.dropQueue();
      while (this.queuedCount() > 0 && this.inFlight.size < this.maxConcurrentExports && batchesLeft > 0) {
        batchesLeft -= 1;
        this.startExport();
        // One export first when shutting down: a collector that is down fails it, and the rest are not tried.
        if (shuttingDown && this.counters.exported === 0 && this.inFlight.size > 0) break;
      }
      if (this.inFlight.size === 0) break;
      await Promise.race([...this.inFlight].map((running) => running.done));
    }
    this.clearTimer();
  }

  private queuedCount(): number {
    return this.queue.length - this.head;
  }

  /** Empties the queue, counting its spans as failed; returns how many. */
  private dropQueue(): number {
    const lost = this.queuedCount();
    this.counters.failed += lost;
    this.queue = [];
    this.head = 0;
    this.queuedBytes = 0;
    return lost;
  }

  private schedule(delay: number): void {
    if (this.inFlight.size >= this.maxConcurrentExports) return; // an export that ends schedules the next
    if (this.timer !== undefined) {
      if (delay >= this.timerDelay) return;
      this.clearTimer();
    }
    this.timerDelay = delay;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.exportReady(delay > 0);
    }, delay);
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Starts as many exports as the concurrency allows: full batches, and once the scheduled delay has passed, the rest. */
  private exportReady(delayPassed: boolean): void {
    if (this.shutdownPromise !== undefined) return;
    while (this.queuedCount() > 0 && this.inFlight.size < this.maxConcurrentExports && (delayPassed || this.batchIsFull())) this.startExport();
    if (this.queuedCount() > 0 && this.inFlight.size < this.maxConcurrentExports) this.schedule(this.scheduledDelayMillis);
  }

  private batchIsFull(): boolean {
    return this.queuedCount() >= this.maxExportBatchSize || this.queuedBytes >= this.maxExportBatchBytes;
  }

  private startExport(): void {
    const batch = this.takeBatch();
    if (batch.length === 0) return;
    const running: RunningExport = { done: Promise.resolve(), spans: batch.length, abandoned: false };
    this.inFlight.add(running);
    running.done = this.send(batch, running).finally(() => {
      this.inFlight.delete(running);
      if (this.shutdownPromise === undefined && this.queuedCount() > 0) {
        this.schedule(this.batchIsFull() ? 0 : this.scheduledDelayMillis);
      }
    });
  }

  private takeBatch(): ReadableSpan[] {
    const batch: ReadableSpan[] = [];
    let bytes = 0;
    while (this.head < this.queue.length && batch.length < this.maxExportBatchSize) {
      const next = this.queue[this.head]!;
      if (batch.length > 0 && bytes + next.bytes > this.maxExportBatchBytes) break;
      batch.push(next.span);
      bytes += next.bytes;
      this.head += 1;
    }
    this.queuedBytes -= bytes;
    // Compact once the taken part dominates, so the array does not grow without end.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return batch;
  }

  private send(batch: ReadableSpan[], running: RunningExport): Promise<void> {
    return new Promise<void>((resolve) => {
      let settled = false;
      const settle = (result: ExportResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timeout);
        // Shutdown stopped waiting for this export and already counted its spans.
        if (running.abandoned) {
          resolve();
          return;
        }
        if (result.code === ExportResultCode.SUCCESS) {
          this.lastRetriedAnswer = null;
          // The collector took the request but refused some of its spans (OTLP partial success): those are lost, and said.
          const rejected = result.error instanceof PartialSuccess ? Math.min(batch.length, result.error.rejectedSpans) : 0;
          this.counters.exported += batch.length - rejected;
          if (rejected > 0) {
            this.counters.failed += rejected;
            this.lastFailure = `the collector refused ${rejected} of ${batch.length} spans: ${result.error!.message || "no reason given"}`;
            if (this.shutdownPromise === undefined) this.warn(`ragscope: the collector at ${this.destination} refused ${rejected} of ${batch.length} spans it was sent (${result.error!.message || "no reason given"}); ${this.lossSoFar()}`);
          }
        } else {
          this.counters.failed += batch.length;
          this.failedExports += 1;
          this.lastFailure = result.error?.message ?? "no reason given";
          // During shutdown the losses are reported once, all together, when it ends.
          if (this.shutdownPromise === undefined) this.warn(`ragscope: export of ${batch.length} spans to ${this.destination} failed (${result.error?.message ?? "no reason given"}); ${this.lossSoFar()}`);
        }
        resolve();
      };
      // After one turn of I/O: an answer that came while the application held the event loop is read first.
      const timeout = setTimeout(
        () => setImmediate(() => settle({ code: ExportResultCode.FAILED, error: new Error(`no answer within ${this.exportTimeoutMillis} ms`) })),
        // The exporter's own timeout (the same setting) ends the request first; this one is for exporters without one.
        this.exportTimeoutMillis + 50,
      );
      timeout.unref();
      try {
        this.exporter.export(batch, settle);
      } catch (error) {
        settle({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
      }
    });
  }

  /** The process's whole loss at shutdown is said at once, whatever the warning interval. */
  private report(message: string): void {
    this.lastWarningAt = this.now();
    this.lossSaid = this.lossTotal();
    try {
      this.writeWarning(message);
    } catch {
      // A throwing logger must not reach the application.
    }
  }

  /** At most one warning per interval, each with the running totals: loud once, never a flood. */
  private warn(message: string): void {
    const now = this.now();
    if (now - this.lastWarningAt < WARNING_INTERVAL_MS) return;
    this.lastWarningAt = now;
    try {
      this.writeWarning(message);
    } catch {
      // A throwing logger must not reach the application.
    }
  }
}

export function writeToStandardError(message: string): void {
  process.stderr.write(`${message}\n`);
}

function positive(option: number | undefined, variable: string | undefined, fallback: number): number {
  if (typeof option === "number" && Number.isFinite(option) && option > 0) return Math.floor(option);
  const parsed = variable !== undefined && variable.trim() !== "" ? Number(variable) : Number.NaN;
  return Number.isFinite(parsed) && parsed > 0 ? Math.floor(parsed) : fallback;
}

/**
 * The spans a process left unexported, with what ended it and what would have kept them: an exit the application
 * called (process.exit() before shutdown() was awaited), or an error nothing caught, where that advice would be wrong.
 */
function unexportedAtExit(ending: ProcessEnding, pending: number, destination: string): string {
  if (ending === "exit") return `the process exited with ${pending} spans not yet exported to ${destination}; await shutdown() on the setup's handle before process.exit()`;
  const cause = ending === "uncaughtException" ? "an uncaught exception" : "an unhandled promise rejection";
  return `the process ended on ${cause} with ${pending} spans not yet exported to ${destination} (spans are exported in batches, and a crash leaves no time to send the last ones); to keep them, handle the error, or in a process.on("uncaughtException") handler await shutdown() on the setup's handle before exiting`;
}
