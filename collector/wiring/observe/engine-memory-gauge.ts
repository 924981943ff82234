/**
 * `ragscope_engine_memory_bytes`: what the embedded ClickHouse engine holds in
 * use (its inserts, merges and queries), so that the resident set on /metrics
 * splits into the JavaScript heap, Buffers, the engine's working memory and
 * the engine's code. Reading it is a query, and /metrics is rendered
 * synchronously, so the value is read in the background every `intervalMs`
 * (5 s by default: Prometheus scrapes every 15–60 s) and the gauge serves the
 * last reading. With a ClickHouse server, or when no reading succeeded since
 * the last failure, the gauge has no sample rather than a made-up one.
 */
import type { MetricsRegistry } from "./metrics-registry.js";

export const ENGINE_MEMORY_INTERVAL_MS = 5_000;

export class EngineMemoryGauge {
  private last: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;

  constructor(
    registry: MetricsRegistry,
    private readonly read: () => Promise<number | null>,
    private readonly intervalMs = ENGINE_MEMORY_INTERVAL_MS,
  ) {
    registry.gauge("ragscope_engine_memory_bytes", `memory the embedded ClickHouse engine holds in use (inserts, merges, queries), read every ${intervalMs / 1000} s; absent with a ClickHouse server`, () =>
      this.last === null ? [] : [{ value: this.last }],
    );
  }

  /** Reads now, then every interval until stop(). */
  start(): Promise<void> {
    this.timer = setInterval(() => void this.refresh(), this.intervalMs);
    // The reading never keeps the process alive on its own.
    this.timer.unref();
    return this.refresh();
  }

  /** One reading; a failed one (the engine closing, a busy server) leaves the gauge without a sample until the next succeeds. */
  refresh(): Promise<void> {
    this.reading ??= this.read()
      .then(
        (value) => void (this.last = value),
        () => void (this.last = null),
      )
      .finally(() => (this.reading = null));
    return this.reading;
  }

  /** No reading after this resolves: call it before the store closes. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.reading;
  }
}
