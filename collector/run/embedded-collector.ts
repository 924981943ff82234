/**
 * The collector on the embedded default: OTLP/HTTP receiver → in-process bus →
 * evaluation worker → ClickHouse engine in-process (chDB), or a ClickHouse
 * server when a URL is configured. One process, nothing to start beforehand.
 */
import os from "node:os";
import { InProcessBus } from "../bus/in-process-bus.js";
import { registerEmbeddedMetrics, sinkLatencyBuckets } from "../observe/collector-metrics.js";
import { embeddedHealthReading } from "../observe/health-readings.js";
import { HealthSnapshots } from "../observe/health-snapshots.js";
import { MeasuredSink } from "../observe/measured-sink.js";
import { MetricsRegistry } from "../observe/metrics-registry.js";
import type { CollectorConfig } from "../config/collector-config.js";
import { createEvaluationWorker } from "../evaluate/create-evaluation-worker.js";
import type { EvaluationWorker } from "../evaluate/evaluation-worker.js";
import { MemoryDeadLetters } from "../evaluate/memory-dead-letters.js";
import type { OnlineStage } from "../online/online-stage.js";
import type { ReceiverCounters } from "../receive/receiver-counters.js";
import { receiverBounds } from "../receive/receiver-bounds.js";
import { startReceiver } from "../receive/start-receiver.js";
import { openClickHouseStore, type ClickHouseStore } from "../../store/clickhouse/clickhouse-store.js";
import type { Store } from "../../store/ports/store.js";

export interface EmbeddedCollector {
  receiverUrl: string;
  /** What the receiver accepted and refused, for /metrics. */
  receiverCounters: ReceiverCounters;
  /** The configured store (ClickHouse server or embedded engine), migrated; closed by `close`. */
  store: ClickHouseStore;
  worker: EvaluationWorker;
  bus: InProcessBus;
  deadLetters: MemoryDeadLetters;
  /** Sampling, judge queue and alerts, when `options.online` built them. */
  online: OnlineStage | null;
  /** Resolves when nothing is queued, open or waiting for the sink; false on timeout. */
  waitUntilIdle(timeoutMs: number): Promise<boolean>;
  /** Evaluates every open trace now (partial ones flagged) and writes them. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const MAX_IDLE_WAIT_MS = 200;

export interface EmbeddedCollectorOptions {
  /**
   * Builds the online stage (collector/online/online-stage.ts, e.g. with
   * createOnlineStage) once the store is open; the worker then calls its
   * `afterWrite` after each durable write. Absent: rule metrics only.
   */
  online?: (store: Store) => Promise<OnlineStage>;
  /** Where the collector registers its metrics (served on /metrics by the caller); health snapshots read the same. Default: a private registry. */
  registry?: MetricsRegistry;
}

export async function startEmbeddedCollector(config: Readonly<CollectorConfig>, options: EmbeddedCollectorOptions = {}): Promise<EmbeddedCollector> {
  const store = await openClickHouseStore(config.clickhouse);
  const online = options.online ? await options.online(store) : null;
  const registry = options.registry ?? new MetricsRegistry();
  const sink = new MeasuredSink(store.results, registry.histogram("ragscope_sink_write_duration_seconds", "duration of one store write (ClickHouse inserts of a batch)", sinkLatencyBuckets));
  const bus = new InProcessBus({ maxQueuedMessages: config.queue.maxQueuedMessages });
  const deadLetters = new MemoryDeadLetters();
  const stop = new AbortController();
  const worker = createEvaluationWorker(config, { cases: store.cases, sink, quarantine: store.quarantine, deadLetters, signal: stop.signal, online });
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  try {
    receiver = await startReceiver({
      host: config.receiver.host,
      port: config.receiver.port,
      maxBodyBytes: config.receiver.maxBodyBytes,
      authTokens: config.receiver.authTokens,
      tenantTokens: config.receiver.tenantTokens,
      ...receiverBounds(config),
      publisher: bus,
    });
  } catch (error) {
    // The port is taken, typically: release the store so the caller can report it and exit cleanly.
    stop.abort();
    await online?.close();
    await store.close();
    throw error;
  }
  registerEmbeddedMetrics(registry, { receiver: receiver.counters, worker, queued: () => bus.depth, deadLetters });
  const health = new HealthSnapshots({
    sink: store.health,
    instance: `${os.hostname()}:${process.pid}`,
    role: "embedded",
    intervalMs: config.observe.healthSnapshotMs,
    read: embeddedHealthReading(registry, sink),
  });
  health.start();

  let running = true;
  /** Messages taken from the bus and not yet buffered by the worker. */
  let inFlight = 0;
  let loopError: unknown = null;
  // The loop and flush() both drive the worker; this chain runs them one at a time.
  let chain: Promise<unknown> = Promise.resolve();
  const exclusive = <Value>(work: () => Promise<Value>): Promise<Value> => {
    const next = chain.then(work, work);
    chain = next.catch(() => undefined);
    return next;
  };
  const loop = (async () => {
    while (running) {
      try {
        // Backpressure: while the sink fails or falls behind the worker's pipeline, take nothing new.
        let messages: Awaited<ReturnType<typeof bus.take>> = [];
        if (worker.overflow === 0) {
          const next = worker.assembler.nextDeadline();
          const waitMs = next === null ? MAX_IDLE_WAIT_MS : Math.max(0, Math.min(MAX_IDLE_WAIT_MS, next - Date.now()));
          messages = await bus.take(config.sink.maxBatch, waitMs);
          inFlight = messages.length;
        }
        const healthy = await exclusive(async () => {
          await worker.ingest(messages);
          inFlight = 0;
          return worker.processReady();
        });
        if (!healthy) await new Promise((resolve) => setTimeout(resolve, config.sink.retryInitialDelayMs).unref());
      } catch (error) {
        // A bug, not an expected failure: stop the loop loudly rather than spin.
        loopError = error;
        running = false;
        console.error("ragscope collector: evaluation loop stopped:", error);
      }
    }
  })();

  const idle = () => inFlight === 0 && bus.depth === 0 && worker.assembler.openTraces === 0 && worker.backlog === 0 && (online?.isIdle() ?? true);

  return {
    receiverUrl: receiver.url,
    receiverCounters: receiver.counters,
    store,
    worker,
    bus,
    deadLetters,
    online,
    async waitUntilIdle(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (loopError) throw loopError;
        if (idle()) return true;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return idle();
    },
    async flush() {
      await exclusive(async () => {
        await worker.ingest(await bus.take(Number.MAX_SAFE_INTEGER, 0));
        await worker.processReady(true);
      });
    },
    async close() {
      await receiver.close();
      running = false;
      bus.wake();
      stop.abort();
      await loop;
      // Whatever is still open is evaluated (flagged partial) rather than lost.
      await exclusive(async () => {
        await worker.ingest(await bus.take(Number.MAX_SAFE_INTEGER, 0));
        await worker.processReady(true);
      });
      // The last snapshot after the last writes, so it counts them.
      await health.stop();
      // After the last traces were handed over; judge work still queued in-process is dropped (not durable embedded).
      await online?.close();
      await store.close();
    },
  };
}
