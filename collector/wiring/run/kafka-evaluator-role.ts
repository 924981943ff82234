/**
 * The evaluator role (`ragscope evaluate`): a Kafka consumer-group member
 * that rebuilds Case Results from the span topic, evaluates them and writes
 * them to ClickHouse — a server given a URL, the embedded engine (chDB)
 * otherwise. Scale by adding processes, up to one per partition.
 *
 * Composition: the ClickHouse store (migrated) → case store → sink
 * (measured) → EvaluationWorker, driven by the one SourceDriver reading the
 * Kafka TraceSource (ConsumerGroupRunner, with its repartitioner and
 * dead-letter producer: one producer for both). What it reads is held to the
 * receiver's checks (screen-consumed-spans.ts) with the receiver's settings:
 * a Collector may write to the topic without passing a receiver.
 */
import { storeWritesReadiness } from "../observe/store-write-state.js";
import type { Producer } from "kafkajs";
import type { CollectorConfig } from "../config/collector-config.js";
import { SourceDriver } from "../../03-consume/source-driver.js";
import { createEvaluationWorker } from "../../07-evaluate/create-evaluation-worker.js";
import type { EvaluationWorker } from "../../07-evaluate/evaluation-worker.js";
import { unread } from "../../02-transport/kafka/broker-lag.js";
import { ConsumerGroupRunner } from "../../02-transport/kafka/consumer-group-runner.js";
import { KafkaDeadLetters } from "../../02-transport/kafka/kafka-dead-letters.js";
import { KafkaTracePublisher } from "../../02-transport/kafka/kafka-trace-publisher.js";
import { Repartitioner } from "../../02-transport/kafka/repartitioner.js";
import { saramaCompatiblePartitioner } from "../../02-transport/kafka/sarama-partitioner.js";
import type { SpanCheckSettings } from "../../02-transport/kafka/screen-consumed-spans.js";
import { registerEvaluatorMetrics, registerFreshness, sinkLatencyBuckets } from "../observe/collector-metrics.js";
import { registerJudgeMetrics } from "../observe/judge-metrics.js";
import { registerAlertRuleMetrics } from "../observe/alert-rule-metrics.js";
import { MeasuredSink } from "../observe/measured-sink.js";
import type { ReadinessCheck } from "../observe/observe-server.js";
import { EngineMemoryGauge } from "../observe/engine-memory-gauge.js";
import { StorePartsGauges } from "../observe/store-parts-gauges.js";
import type { ClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import { openStoreOfStart } from "./store-of-start.js";
import { describeStoreOpeningProgress } from "../../../store/clickhouse/store-opening-progress.js";
import type { Store } from "../../../store/ports/store.js";
import os from "node:os";
import { evaluatorHealthReading } from "../observe/health-readings.js";
import { HealthSnapshots } from "../observe/health-snapshots.js";
import type { OnlineStage } from "../online/online-stage.js";
import type { RoleContext } from "./kafka-receiver-role.js";

const mebibyte = 1024 * 1024;

export interface KafkaEvaluatorRole {
  runner: ConsumerGroupRunner;
  driver: SourceDriver;
  worker: EvaluationWorker;
  sink: MeasuredSink;
  /** The configured store, migrated; closed by `close`. */
  store: ClickHouseStore;
  readiness: ReadinessCheck[];
  /** Resolves with a reason when the role can no longer work (the process should exit and be restarted). */
  failed: Promise<string>;
  close(): Promise<void>;
}

export interface KafkaEvaluatorOptions {
  /**
   * Builds the online stage (sampling → judge queue, alerts): sampled traces
   * are enqueued after their rule results are durable (collector/wiring/online/).
   */
  online?: (store: Store) => Promise<OnlineStage>;
  /** The clock spans read are screened against (future times), Unix milliseconds; Date.now when not given. */
  spanClock?: () => number;
}

/** The receiver's settings the evaluator holds what it reads to: the future-time allowance and the bounds that cut a span. */
export function spanCheckSettings(config: Readonly<CollectorConfig>): SpanCheckSettings {
  const { receiver } = config;
  return {
    maxFutureSpanSeconds: receiver.maxFutureSpanSeconds,
    bounds: {
      maxAttributeValueBytes: receiver.maxAttributeValueBytes,
      maxAttributeKeyBytes: receiver.maxAttributeKeyBytes,
      maxEventsPerSpan: receiver.maxEventsPerSpan,
      maxLinksPerSpan: receiver.maxLinksPerSpan,
      maxNameBytes: receiver.maxNameBytes,
    },
  };
}

export async function startKafkaEvaluator(config: Readonly<CollectorConfig>, context: RoleContext, options: KafkaEvaluatorOptions = {}): Promise<KafkaEvaluatorRole> {
  const { store, online, closeAfterFailedStart: closeStore } = await openStoreOfStart(config.clickhouse, options.online, (progress) => context.startUp?.(`evaluator: ${describeStoreOpeningProgress(progress)}`));
  context.startUp?.("evaluator: connecting to Kafka and joining the consumer group");
  const sinkLatency = context.registry.histogram("ragscope_sink_write_duration_seconds", "duration of one sink write (ClickHouse inserts of a batch)", sinkLatencyBuckets);
  const sink = new MeasuredSink(store.results, sinkLatency);
  // Retries are short here: the runner retries on its own, heartbeating in between.
  const producer: Producer = context.kafka.producer({
    createPartitioner: saramaCompatiblePartitioner,
    allowAutoTopicCreation: false,
    retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 2_000 },
  });
  await producer.connect().catch(async (error: unknown) => {
    await online?.close();
    await closeStore();
    throw error;
  });
  const assembledTopic = config.kafka.repartitionTopic ?? config.kafka.topic;
  const repartitioner = new Repartitioner(
    new KafkaTracePublisher(producer, { topic: assembledTopic, maxMessageBytes: config.kafka.maxMessageBytes, compression: config.kafka.compression }),
  );
  const deadLetters = new KafkaDeadLetters(producer, { topic: config.kafka.deadLetterTopic, compression: config.kafka.compression, defaultSourceTopic: config.kafka.topic });
  const stop = new AbortController();
  const worker = createEvaluationWorker(config, { cases: store.cases, sink, quarantine: store.quarantine, deadLetters, signal: stop.signal, online, freshness: registerFreshness(context.registry) });
  const runner = new ConsumerGroupRunner({
    kafka: context.kafka,
    settings: config.kafka,
    progress: worker.progress,
    repartitioner,
    deadLetters,
    maxHeapBytes: config.memory.maxHeapMb * mebibyte,
    signal: stop.signal,
    log: context.log,
    spanChecks: spanCheckSettings(config),
    ...(options.spanClock === undefined ? {} : { spanClock: options.spanClock }),
  });
  const driver = new SourceDriver(runner, worker, {
    idleWaitMs: 100,
    maxPoll: config.sink.maxBatch,
    retryDelayMs: config.sink.retryInitialDelayMs,
    commitIntervalMs: config.kafka.commitIntervalMs,
    limits: { maxBufferedSpans: config.memory.maxBufferedSpans, maxHeapBytes: config.memory.maxHeapMb * mebibyte },
    log: context.log,
  });
  try {
    await runner.start();
    driver.start();
  } catch (error) {
    // Nothing may keep the process alive after a failed start: it exits and is restarted.
    stop.abort();
    await runner.stop().catch(() => {});
    await online?.close();
    await producer.disconnect().catch(() => {});
    await closeStore();
    throw error;
  }
  registerEvaluatorMetrics(context.registry, { runner, worker, sink, repartitioner, sinkLatency });
  registerJudgeMetrics(context.registry, online?.parts.judgeUsage ?? null, online?.parts.sampler ?? null);
  registerAlertRuleMetrics(context.registry, online?.parts.alerts ?? null);
  const engineMemory = new EngineMemoryGauge(context.registry, () => store.engineMemoryBytes());
  await engineMemory.start();
  const storeParts = config.observe.storePartsMs > 0 ? new StorePartsGauges(context.registry, () => store.storeParts(), config.observe.storePartsMs) : null;
  // Not awaited: a slow server's system tables must not hold the collector's start (the gauges stay empty until read).
  void storeParts?.start();
  const health = new HealthSnapshots({
    sink: store.health,
    instance: `${os.hostname()}:${process.pid}`,
    role: "evaluator",
    intervalMs: config.observe.healthSnapshotMs,
    // Lag of this member's partitions only: summed over evaluators, the snapshots then add up to the group's lag.
    read: evaluatorHealthReading(context.registry, sink, () => runner.partitionLag().reduce((total, lag) => total + (lag.owned ? unread(lag) : 0), 0)),
  });
  health.start();

  let reportFailure: (reason: string) => void = () => {};
  const failed = new Promise<string>((resolve) => {
    reportFailure = resolve;
  });
  const watchdog = setInterval(() => {
    if (runner.fatalError !== null) reportFailure(`the Kafka consumer stopped: ${runner.fatalError}`);
    else if (driver.error !== null) reportFailure(`the evaluation loop stopped: ${String(driver.error)}`);
  }, 500);
  watchdog.unref();

  return {
    runner,
    driver,
    worker,
    sink,
    store,
    failed,
    readiness: [
      {
        name: "kafka consumer",
        check: async () => (driver.error !== null && runner.fatalError === null ? `evaluation loop stopped: ${String(driver.error)}` : runner.unreadyReason),
      },
      {
        name: "clickhouse",
        check: () => store.ping(),
      },
      // A store that answers its ping may still refuse writes (a full disk): nothing is committed meanwhile, and that must show.
      storeWritesReadiness(worker),
    ],
    async close() {
      clearInterval(watchdog);
      await health.stop();
      // Aborting first bounds the shutdown: the last write gets one attempt; what is not durable is not committed and replays.
      stop.abort();
      // The driver writes what is ready and commits what is durable; then the member leaves the group.
      const commitFailures = runner.committer.counters.failures;
      await driver.stop();
      await runner.stop();
      await online?.close();
      await producer.disconnect();
      await engineMemory.stop();
      await storeParts?.stop();
      await store.close();
      // Everything is closed: the process can end, but not as if its work were committed.
      if (runner.committer.counters.failures > commitFailures)
        throw new Error(`the last offset commit failed (${runner.committer.lastError ?? "unknown error"}): what was read since the previous commit is evaluated again on the next start`);
    },
  };
}
