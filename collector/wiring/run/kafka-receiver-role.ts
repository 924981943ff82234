/**
 * The receiver role (`ragscope receive`): OTLP/HTTP in, Kafka out. Each
 * request is split by trace id and published as one OTLP protobuf message per
 * trace, keyed by the lower-case hex trace id, to the span topic — what the
 * OpenTelemetry Collector's Kafka exporter writes with
 * `partition_traces_by_id` (shared/reference/interop.md §4). The client gets
 * 200 once Kafka acknowledged every message (acks = all), else 503 with
 * Retry-After: within `kafka.publishTimeoutMs` (5 s by default, well inside
 * the OpenTelemetry SDKs' 10 s export timeout), and at once while Kafka is
 * known to be unreachable (broker-availability.ts: the last produce request,
 * or a metadata request every `kafka.probeIntervalMs` — 5 s by default, every
 * second during an outage — found no broker). /readyz reports the producer
 * unready meanwhile.
 */
import os from "node:os";
import type { Admin, Kafka, Producer } from "kafkajs";
import type { CollectorConfig } from "../config/collector-config.js";
import { BrokerAvailability } from "../../02-transport/kafka/broker-availability.js";
import { ensureTopics } from "../../02-transport/kafka/ensure-topics.js";
import { KafkaTracePublisher } from "../../02-transport/kafka/kafka-trace-publisher.js";
import { saramaCompatiblePartitioner } from "../../02-transport/kafka/sarama-partitioner.js";
import { registerReceiverMetrics } from "../observe/collector-metrics.js";
import { receiverHealthReading } from "../observe/health-readings.js";
import { HealthSnapshots } from "../observe/health-snapshots.js";
import type { MetricsRegistry } from "../observe/metrics-registry.js";
import type { ReadinessCheck } from "../observe/observe-server.js";
import { receiverOptions } from "../../01-receive/receiver-options.js";
import { startReceiver, type RunningReceiver } from "../../01-receive/start-receiver.js";
import type { HealthSink } from "../../../store/ports/health-sink.js";

export interface KafkaReceiverRole {
  receiver: RunningReceiver;
  publisher: KafkaTracePublisher;
  readiness: ReadinessCheck[];
  close(): Promise<void>;
}

export interface RoleContext {
  kafka: Kafka;
  registry: MetricsRegistry;
  log: (line: string) => void;
  /** The start is at `step` now (opening the store, its migrations, joining the group): the process's /readyz says it. */
  startUp?: (step: string) => void;
}

/**
 * A producer that places keys like the Collector. Its retries ride out a
 * leader election; a broker that is down takes them longer (a send retries
 * around the cluster's connect, which retries too: ~15-20 s with these
 * settings), so the receiver does not wait for them (kafka.publishTimeoutMs).
 */
export function createSpanProducer(kafka: Kafka): Producer {
  return kafka.producer({
    createPartitioner: saramaCompatiblePartitioner,
    allowAutoTopicCreation: false,
    retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 2_000 },
  });
}

/**
 * Metadata requests that tell whether Kafka is reachable: every `kafka.probeIntervalMs` while it is, every second
 * while it is not (so spans are taken again soon after it returns), each given 3 s.
 */
const outageProbe = { retryIntervalMs: 1_000, probeTimeoutMs: 3_000 };

/** One metadata request for the span topic, through its own admin client; fails when a partition has no leader. */
export function spanTopicProbe(admin: Admin, topic: string): () => Promise<void> {
  let connected = false;
  return async () => {
    if (!connected) {
      await admin.connect();
      connected = true;
    }
    // kafkajs answers a metadata request no broker took with null, which fetchTopicMetadata then reads.
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] }).catch((error: unknown) => {
      throw error instanceof TypeError ? new Error("no broker answered") : error;
    });
    for (const partition of metadata.topics.find((entry) => entry.name === topic)?.partitions ?? []) {
      if (partition.leader < 0) throw new Error(`partition ${partition.partitionId} of topic ${topic} has no leader`);
    }
  };
}

/**
 * `healthSink`: where the receiver writes its health snapshots (spans
 * received and dropped) — the evaluator's store in `ragscope collect`, a
 * ClickHouse server for `ragscope receive`; null: none (the embedded store
 * belongs to the one process that opened it).
 */
export async function startKafkaReceiver(config: Readonly<CollectorConfig>, context: RoleContext, healthSink: HealthSink | null = null): Promise<KafkaReceiverRole> {
  context.startUp?.("receiver: connecting to Kafka");
  const admin = context.kafka.admin();
  await admin.connect();
  try {
    await ensureTopics(admin, [config.kafka.topic], context.log);
  } finally {
    await admin.disconnect();
  }
  const producer = createSpanProducer(context.kafka);
  let connected = false;
  producer.on(producer.events.CONNECT, () => {
    connected = true;
  });
  // Fires only on an explicit disconnect (kafkajs): a broker that goes away is noticed by `availability`.
  producer.on(producer.events.DISCONNECT, () => {
    connected = false;
  });
  const probeAdmin = context.kafka.admin({ retry: { retries: 0 } });
  const availability = new BrokerAvailability({ probe: spanTopicProbe(probeAdmin, config.kafka.topic), intervalMs: config.kafka.probeIntervalMs, ...outageProbe, log: context.log });
  const publisher = new KafkaTracePublisher(producer, {
    topic: config.kafka.topic,
    maxMessageBytes: config.kafka.maxMessageBytes,
    compression: config.kafka.compression,
    timeoutMs: config.kafka.publishTimeoutMs,
    availability,
  });
  let receiver: RunningReceiver;
  try {
    await producer.connect();
    receiver = await startReceiver({
      ...receiverOptions(config),
      publisher,
    });
  } catch (error) {
    // A connected producer keeps the process alive: without this, a port in use printed its line and hung.
    await producer.disconnect().catch(() => {});
    throw error;
  }
  availability.start();
  registerReceiverMetrics(context.registry, receiver.counters, publisher);
  const health =
    healthSink === null
      ? null
      : new HealthSnapshots({ sink: healthSink, instance: `${os.hostname()}:${process.pid}`, role: "receiver", intervalMs: config.observe.healthSnapshotMs, read: receiverHealthReading(context.registry) });
  health?.start();
  return {
    receiver,
    publisher,
    readiness: [{ name: "kafka producer", check: async () => (connected ? availability.unavailableReason : "not connected to Kafka") }],
    async close() {
      await receiver.close();
      // After the receiver stopped answering, so the last snapshot counts every request.
      await health?.stop();
      availability.stop();
      await probeAdmin.disconnect();
      await producer.disconnect();
    },
  };
}
