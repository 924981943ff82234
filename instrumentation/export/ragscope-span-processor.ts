/**
 * ragscope's span processor: a bounded batch queue in front of an exporter,
 * built so that the application never waits for or breaks because of the
 * collector (the OTel batch span processor's design, STYLE.md "Bounded
 * buffers", with every loss counted and readable):
 *
 * - `onEnd` only pushes into a bounded queue (OTEL_BSP_MAX_QUEUE_SIZE, default
 *   2048). When the queue is full the span is dropped and counted — memory
 *   stays bounded however long the collector is down or slow.
 * - Exports run later, off the application's call (a timer every
 *   `scheduledDelayMillis`, or as soon as a batch is full), one at a time, each
 *   given up after `exportTimeoutMillis`. A failed or timed-out export counts
 *   its spans as failed; nothing is retried beyond what the exporter itself does.
 * - Spans of traces that head sampling rejects (sampling/trace-id-sampling.ts)
 *   are not queued. This matters when ragscope is added to an application's
 *   own tracer provider, whose sampler it does not control: the decision is the
 *   same pure function of the trace id, so a request keeps all its spans or none.
 * - Timers are `unref()`-ed: a pending export never keeps the process alive
 *   (setup exports what is left when the process ends: flush-on-exit.ts).
 * - Lost spans (queue full, failed exports) are reported on standard error at
 *   once, then at most every ten seconds, with the totals and the destination.
 */
import { TraceFlags, diag, type Context } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { isTraceSampled } from "../sampling/trace-id-sampling.js";

export interface RagscopeSpanProcessorOptions {
  /** Spans held at most; default OTEL_BSP_MAX_QUEUE_SIZE or 2048. */
  maxQueueSize?: number;
  /** Spans per export; default OTEL_BSP_MAX_EXPORT_BATCH_SIZE or 512. */
  maxExportBatchSize?: number;
  /** Longest wait before queued spans are exported; default OTEL_BSP_SCHEDULE_DELAY or 1000 ms. */
  scheduledDelayMillis?: number;
  /** An export not answered by then counts as failed; default OTEL_BSP_EXPORT_TIMEOUT or 10000 ms. */
  exportTimeoutMillis?: number;
  /** Fraction of traces exported, decided by trace id; default 1. */
  sampleRate?: number;
  /** Where spans go, named in loss warnings (the traces URL). */
  destination?: string;
  /**
   * Where loss warnings go; default: standard error. A process must hear that
   * telemetry was lost, whether or not an OTel diagnostic logger is set.
   */
  warn?: (message: string) => void;
}

export interface ExportStatistics {
  /** Spans waiting in the queue now. */
  readonly queued: number;
  /** Spans the exporter accepted. */
  readonly exported: number;
  /** Spans dropped because the queue was full (collector down or slow). */
  readonly droppedQueueFull: number;
  /** Spans in exports that failed or timed out. */
  readonly failed: number;
  /** Spans left out by head sampling. */
  readonly sampledOut: number;
}

const WARNING_INTERVAL_MS = 10_000;

export class RagscopeSpanProcessor implements SpanProcessor {
  private readonly queue: ReadableSpan[] = [];
  private readonly maxQueueSize: number;
  private readonly maxExportBatchSize: number;
  private readonly scheduledDelayMillis: number;
  private readonly exportTimeoutMillis: number;
  private readonly sampleRate: number;
  private readonly destination: string;
  private readonly writeWarning: (message: string) => void;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private shutdownPromise: Promise<void> | undefined;
  private lastWarningAt = Number.NEGATIVE_INFINITY;
  private readonly counters = { exported: 0, droppedQueueFull: 0, failed: 0, sampledOut: 0 };

  constructor(
    private readonly exporter: SpanExporter,
    options: RagscopeSpanProcessorOptions = {},
    environment: NodeJS.ProcessEnv = process.env,
  ) {
    this.maxQueueSize = positive(options.maxQueueSize, environment.OTEL_BSP_MAX_QUEUE_SIZE, 2048);
    this.maxExportBatchSize = Math.min(positive(options.maxExportBatchSize, environment.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 512), this.maxQueueSize);
    this.scheduledDelayMillis = positive(options.scheduledDelayMillis, environment.OTEL_BSP_SCHEDULE_DELAY, 1000);
    this.exportTimeoutMillis = positive(options.exportTimeoutMillis, environment.OTEL_BSP_EXPORT_TIMEOUT, 10_000);
    this.sampleRate = options.sampleRate ?? 1;
    this.destination = options.destination ?? "the exporter";
    this.writeWarning = options.warn ?? writeToStandardError;
    if (!(this.sampleRate >= 0 && this.sampleRate <= 1)) throw new Error(`sampleRate ${this.sampleRate} must be between 0 and 1`);
  }

  statistics(): ExportStatistics {
    return { queued: this.queue.length, ...this.counters };
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    const spanContext = span.spanContext();
    if ((spanContext.traceFlags & TraceFlags.SAMPLED) === 0 || this.shutdownPromise !== undefined) return;
    if (this.sampleRate < 1 && !isTraceSampled(spanContext.traceId, this.sampleRate)) {
      this.counters.sampledOut += 1;
      return;
    }
    if (this.queue.length >= this.maxQueueSize) {
      this.counters.droppedQueueFull += 1;
      this.warn(`ragscope: span queue full (${this.maxQueueSize}): the collector at ${this.destination} is down or slower than the application; ${this.counters.droppedQueueFull} spans dropped so far`);
      return;
    }
    this.queue.push(span);
    if (this.queue.length >= this.maxExportBatchSize) this.schedule(0);
    else this.schedule(this.scheduledDelayMillis);
  }

  /** Exports every span queued now; rejects when some of them could not be exported. */
  async forceFlush(): Promise<void> {
    const failedBefore = this.counters.failed;
    await this.drain();
    const lost = this.counters.failed - failedBefore;
    if (lost > 0) throw new Error(`ragscope: ${lost} spans could not be exported`);
  }

  shutdown(): Promise<void> {
    this.shutdownPromise ??= (async () => {
      // A collector that is down at shutdown fails the first batch; the rest
      // would only fail the same way, one timeout each, so they are counted as lost.
      await this.drain(true);
      this.counters.failed += this.queue.length;
      this.queue.length = 0;
      try {
        await this.exporter.shutdown();
      } catch (error) {
        diag.warn(`ragscope: exporter shutdown failed: ${String(error)}`);
      }
    })();
    return this.shutdownPromise;
  }

  private async drain(stopAtFirstFailure = false): Promise<void> {
    // The export timers are unref()-ed; someone awaiting this flush must get
    // an answer even if nothing else keeps the event loop alive.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    try {
      await this.drainQueue(stopAtFirstFailure);
    } finally {
      clearInterval(keepAlive);
    }
  }

  private async drainQueue(stopAtFirstFailure: boolean): Promise<void> {
    this.clearTimer();
    // Spans the application ends meanwhile wait for the next round: a flush
    // exports what was queued when it was called, and so always ends.
    let rounds = Math.ceil(this.queue.length / this.maxExportBatchSize) + 1;
    while ((this.queue.length > 0 || this.inFlight !== undefined) && rounds > 0) {
      rounds -= 1;
      if (this.inFlight !== undefined) {
        await this.inFlight;
        continue;
      }
      const failedBefore = this.counters.failed;
      await this.exportBatch();
      if (stopAtFirstFailure && this.counters.failed > failedBefore) {
        this.counters.failed += this.queue.length;
        this.queue.length = 0;
      }
    }
    this.clearTimer();
  }

  private schedule(delay: number): void {
    if (this.inFlight !== undefined) return; // the running export reschedules when it ends
    if (this.timer !== undefined) {
      if (delay > 0) return;
      this.clearTimer();
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.exportBatch();
    }, delay);
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private exportBatch(): Promise<void> {
    if (this.inFlight !== undefined) return this.inFlight;
    if (this.queue.length === 0) return Promise.resolve();
    const batch = this.queue.splice(0, this.maxExportBatchSize);
    this.inFlight = this.send(batch).finally(() => {
      this.inFlight = undefined;
      if (this.queue.length > 0 && this.shutdownPromise === undefined) {
        this.schedule(this.queue.length >= this.maxExportBatchSize ? 0 : this.scheduledDelayMillis);
      }
    });
    return this.inFlight;
  }

  private send(batch: ReadableSpan[]): Promise<void> {
    return new Promise<void>((resolve) => {
      let settled = false;
      const settle = (result: ExportResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timeout);
        if (result.code === ExportResultCode.SUCCESS) {
          this.counters.exported += batch.length;
        } else {
          this.counters.failed += batch.length;
          this.warn(`ragscope: export of ${batch.length} spans to ${this.destination} failed (${result.error?.message ?? "no reason given"}); ${this.counters.failed} spans lost so far`);
        }
        resolve();
      };
      const timeout = setTimeout(
        () => settle({ code: ExportResultCode.FAILED, error: new Error(`no answer within ${this.exportTimeoutMillis} ms`) }),
        this.exportTimeoutMillis,
      );
      timeout.unref();
      try {
        this.exporter.export(batch, settle);
      } catch (error) {
        settle({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
      }
    });
  }

  /** At most one warning per interval, each with the running totals: loud once, never a flood. */
  private warn(message: string): void {
    const now = Date.now();
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
