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
import { PeriodicReading } from "./periodic-reading.js";

export const ENGINE_MEMORY_INTERVAL_MS = 5_000;

/** start() reads now and then every interval, refresh() once now, stop() before the store closes (PeriodicReading). */
export class EngineMemoryGauge extends PeriodicReading<number> {
  constructor(registry: MetricsRegistry, read: () => Promise<number | null>, intervalMs = ENGINE_MEMORY_INTERVAL_MS) {
    super(read, intervalMs);
    registry.gauge("ragscope_engine_memory_bytes", `memory the embedded ClickHouse engine holds in use (inserts, merges, queries), read every ${intervalMs / 1000} s; absent with a ClickHouse server`, () => {
      const last = this.last;
      return last === null ? [] : [{ value: last }];
    });
  }
}
