/**
 * The collector on the embedded default: OTLP/HTTP receiver → in-process bus →
 * evaluation worker → ClickHouse engine in-process (chDB), or a ClickHouse
 * server when a URL is configured. One process, nothing to start beforehand.
 * The in-process bus is read by the same SourceDriver as Kafka, so reading
 * pauses on the same rules (sink backlog, open spans, heap) and the
 * receiver answers 503 once the bus is full meanwhile.
 */
import os from "node:os";
import { DEFAULT_MAX_PUBLISH_WAIT_MS, InProcessBus } from "../../02-transport/in-process/in-process-bus.js";
import { registerEmbeddedMetrics, registerFreshness, sinkLatencyBuckets } from "../observe/collector-metrics.js";
import { registerJudgeMetrics } from "../observe/judge-metrics.js";
import { registerAlertRuleMetrics } from "../observe/alert-rule-metrics.js";
import { embeddedHealthReading } from "../observe/health-readings.js";
import { HealthSnapshots } from "../observe/health-snapshots.js";
import { MeasuredSink } from "../observe/measured-sink.js";
import { MetricsRegistry } from "../observe/metrics-registry.js";
import { memoryBounds, type CollectorConfig } from "../config/collector-config.js";
import { SourceDriver } from "../../03-consume/source-driver.js";
import { createEvaluationWorker } from "../../07-evaluate/create-evaluation-worker.js";
import type { EvaluationWorker } from "../../07-evaluate/evaluation-worker.js";
import { DurableDeadLetters } from "../../07-evaluate/durable-dead-letters.js";
import type { OnlineStage } from "../online/online-stage.js";
import type { ReceiverCounters } from "../../01-receive/receiver-counters.js";
import { receiverOptions } from "../../01-receive/receiver-options.js";
import { startReceiver } from "../../01-receive/start-receiver.js";
import { EngineMemoryGauge } from "../observe/engine-memory-gauge.js";
import { StorePartsGauges } from "../observe/store-parts-gauges.js";
import type { ClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import { openStoreOfStart } from "./store-of-start.js";
import type { Store } from "../../../store/ports/store.js";
import type { AttributionOptions } from "../../../evaluators/root-cause/index.js";
import type { StoreOpeningProgressListener } from "../../../store/clickhouse/store-opening-progress.js";

export interface EmbeddedCollector {
  receiverUrl: string;
  /** The OTLP/gRPC endpoint (http://host:port); null when gRPC is off. */
  receiverGrpcUrl: string | null;
  /** What the receiver accepted and refused, for /metrics. */
  receiverCounters: ReceiverCounters;
  /** The configured store (ClickHouse server or embedded engine), migrated; closed by `close`. */
  store: ClickHouseStore;
  worker: EvaluationWorker;
  bus: InProcessBus;
  driver: SourceDriver;
  /** Acknowledged messages the evaluation could not store, kept in the store's dead_letters table (and the last ones in memory). */
  deadLetters: DurableDeadLetters;
  /** Sampling, judge queue and alerts, when `options.online` built them. */
  online: OnlineStage | null;
  /** Resolves when nothing is queued, open or waiting for the sink; false on timeout. */
  waitUntilIdle(timeoutMs: number): Promise<boolean>;
  /** Evaluates every open trace now (partial ones flagged) and writes them. */
  flush(): Promise<void>;
  /** Stops; what could not be written by then is said in the outcome (the caller tells the operator), never dropped unsaid. */
  close(): Promise<EmbeddedStopOutcome>;
}

/**
 * What a stop could not write: acknowledged traces whose results the store refused to the end (a full disk, too
 * many parts), its last error, and of those traces how many are kept as dead letters; the rest are lost.
 */
export interface EmbeddedStopOutcome {
  unwrittenTraces: number;
  deadLettered: number;
  lastStoreError: string | null;
}

const MAX_IDLE_WAIT_MS = 200;
const mebibyte = 1024 * 1024;

export interface EmbeddedCollectorOptions {
  /**
   * Builds the online stage (collector/wiring/online/online-stage.ts, e.g. with
   * createOnlineStage) once the store is open; the worker then calls its
   * `afterWrite` after each durable write. Absent: rule metrics only.
   */
  online?: (store: Store) => Promise<OnlineStage>;
  /** Where the collector registers its metrics (served on /metrics by the caller); health snapshots read the same. Default: a private registry. */
  registry?: MetricsRegistry;
  /**
   * For the root cause of failed cases: the corpus index of `ragscope eval --corpus` (DATA_MISSING). The online
   * stage's judge results decide the verdict again: `online` must be built with the same (onlineStageFactory).
   */
  attribution?: AttributionOptions;
  /** Told where the store's opening stands (its migrations can take minutes): `serve` says it on /readyz. */
  onStoreProgress?: StoreOpeningProgressListener;
}

export async function startEmbeddedCollector(config: Readonly<CollectorConfig>, options: EmbeddedCollectorOptions = {}): Promise<EmbeddedCollector> {
  const { store, online, closeAfterFailedStart: closeStore } = await openStoreOfStart(config.clickhouse, options.online, options.onStoreProgress);
  const registry = options.registry ?? new MetricsRegistry();
  const sink = new MeasuredSink(store.results, registry.histogram("ragscope_sink_write_duration_seconds", "duration of one store write (ClickHouse inserts of a batch)", sinkLatencyBuckets));
  const deadLetters = await DurableDeadLetters.open(store.deadLetters);
  const stop = new AbortController();
  const worker = createEvaluationWorker(config, { cases: store.cases, sink, quarantine: store.quarantine, deadLetters, signal: stop.signal, online, freshness: registerFreshness(registry), attribution: options.attribution });
  const bus = new InProcessBus({
    maxQueuedMessages: config.queue.maxQueuedMessages,
    maxQueuedBytes: memoryBounds(config).queuedBytes,
    progress: worker.progress,
    // A request waiting for room must be answered well before the receiver's own timeout ends it.
    maxPublishWaitMs: Math.min(DEFAULT_MAX_PUBLISH_WAIT_MS, Math.floor(config.receiver.requestTimeoutMs / 2)),
  });
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  try {
    receiver = await startReceiver({
      ...receiverOptions(config),
      publisher: bus,
    });
  } catch (error) {
    // The port is taken, typically: release the store so the caller can report it and exit cleanly.
    stop.abort();
    await online?.close();
    await closeStore();
    throw error;
  }
  registerEmbeddedMetrics(registry, { receiver: receiver.counters, worker, queued: () => bus.depth, queuedBytes: () => bus.bytes, publishes: { waited: () => bus.counters.waitedForRoom, waiting: () => bus.waitingPublishes }, deadLetters });
  registerJudgeMetrics(registry, online?.parts.judgeUsage ?? null, online?.parts.sampler ?? null);
  registerAlertRuleMetrics(registry, online?.parts.alerts ?? null);
  const engineMemory = new EngineMemoryGauge(registry, () => store.engineMemoryBytes());
  await engineMemory.start();
  const storeParts = config.observe.storePartsMs > 0 ? new StorePartsGauges(registry, () => store.storeParts(), config.observe.storePartsMs) : null;
  // Not awaited: a slow server's system tables must not hold the collector's start (the gauges stay empty until read).
  void storeParts?.start();
  const health = new HealthSnapshots({
    sink: store.health,
    instance: `${os.hostname()}:${process.pid}`,
    role: "embedded",
    intervalMs: config.observe.healthSnapshotMs,
    read: embeddedHealthReading(registry, sink),
  });
  health.start();

  const driver = new SourceDriver(bus, worker, {
    idleWaitMs: MAX_IDLE_WAIT_MS,
    maxPoll: config.sink.maxBatch,
    retryDelayMs: config.sink.retryInitialDelayMs,
    commitIntervalMs: config.kafka.commitIntervalMs,
    limits: { maxBufferedSpans: config.memory.maxBufferedSpans, maxHeapBytes: config.memory.maxHeapMb * mebibyte },
  });
  driver.start();
  /** Everything queued, paused or not, and every open trace: evaluated now (partial ones flagged) and written. */
  const flushEverything = () =>
    driver.exclusive(async () => {
      for (const record of bus.takeAll()) await worker.ingestRecord(record);
      await worker.processReady(true);
    });

  const idle = () => driver.handedOver && bus.depth === 0 && worker.assembler.openTraces === 0 && worker.backlog === 0 && (online?.isIdle() ?? true);

  return {
    receiverUrl: receiver.url,
    receiverGrpcUrl: receiver.grpcUrl,
    receiverCounters: receiver.counters,
    store,
    worker,
    bus,
    driver,
    deadLetters,
    online,
    async waitUntilIdle(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (driver.error !== null) throw driver.error;
        if (idle()) return true;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return idle();
    },
    async flush() {
      await flushEverything();
    },
    async close() {
      await receiver.close();
      stop.abort();
      await driver.stop();
      // Whatever is still open is evaluated (flagged partial) rather than lost.
      await flushEverything();
      // The stop has aborted the retries: what the store still refuses goes to the dead letters, and what they cannot
      // keep either is lost with the process — said in the outcome, never dropped unsaid.
      const lastStoreError = worker.backlog > 0 ? worker.lastSinkError : null;
      const droppedBefore = deadLetters.counters.lost;
      deadLetters.beginClose();
      const unwrittenTraces = await worker.deadLetterUnwritten(`not stored: the store refused the result's writes until the collector stopped (${lastStoreError ?? "no reason given"}); the body holds the Case Result and its Evaluation Results`);
      await deadLetters.flush();
      // These letters were sent last, so the letters still unsaved end with those of them the store refused too, and
      // what the dead letters' bound dropped meanwhile is lost as well (a count of letters saved here would also count
      // earlier letters saved at this flush).
      const notKept = Math.min(unwrittenTraces, deadLetters.pending + deadLetters.counters.lost - droppedBefore);
      const outcome: EmbeddedStopOutcome = { unwrittenTraces, deadLettered: unwrittenTraces - notKept, lastStoreError };
      // The last snapshot after the last writes, so it counts them.
      await health.stop();
      // After the last traces were handed over; judge work still queued in-process is dropped (not durable embedded).
      await online?.close();
      await engineMemory.stop();
      await storeParts?.stop();
      await store.close();
      return outcome;
    },
  };
}
