/**
 * The receiver role (`ragscope receive`): OTLP/HTTP in, Kafka out. Each
 * request is split by trace id and published as one OTLP protobuf message per
 * trace, keyed by the lower-case hex trace id, to the span topic — what the
 * OpenTelemetry Collector's Kafka exporter writes with
 * `partition_traces_by_id` (shared/reference/interop.md §4). The client gets
 * 200 once Kafka acknowledged every message (acks = all), else 503 with
 * Retry-After.
 */
import os from "node:os";
import type { Kafka, Producer } from "kafkajs";
import type { CollectorConfig } from "../config/collector-config.js";
import { ensureTopics } from "../../02-transport/kafka/ensure-topics.js";
import { KafkaTracePublisher } from "../../02-transport/kafka/kafka-trace-publisher.js";
import { saramaCompatiblePartitioner } from "../../02-transport/kafka/sarama-partitioner.js";
import { registerReceiverMetrics } from "../observe/collector-metrics.js";
import { receiverHealthReading } from "../observe/health-readings.js";
import { HealthSnapshots } from "../observe/health-snapshots.js";
import type { MetricsRegistry } from "../observe/metrics-registry.js";
import type { ReadinessCheck } from "../observe/observe-server.js";
import { receiverBounds } from "../../01-receive/receiver-bounds.js";
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
}

/** A producer that places keys like the Collector and gives up quickly enough for the receiver to answer 503. */
export function createSpanProducer(kafka: Kafka): Producer {
  return kafka.producer({
    createPartitioner: saramaCompatiblePartitioner,
    allowAutoTopicCreation: false,
    retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 2_000 },
  });
}

/**
 * `healthSink`: where the receiver writes its health snapshots (spans
 * received and dropped) — the evaluator's store in `ragscope collect`, a
 * ClickHouse server for `ragscope receive`; null: none (the embedded store
 * belongs to the one process that opened it).
 */
export async function startKafkaReceiver(config: Readonly<CollectorConfig>, context: RoleContext, healthSink: HealthSink | null = null): Promise<KafkaReceiverRole> {
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
  producer.on(producer.events.DISCONNECT, () => {
    connected = false;
  });
  await producer.connect();
  const publisher = new KafkaTracePublisher(producer, { topic: config.kafka.topic, maxMessageBytes: config.kafka.maxMessageBytes, compression: config.kafka.compression });
  const receiver = await startReceiver({
    host: config.receiver.host,
    port: config.receiver.port,
    maxBodyBytes: config.receiver.maxBodyBytes,
    authTokens: config.receiver.authTokens,
    tenantTokens: config.receiver.tenantTokens,
    ...receiverBounds(config),
    publisher,
  });
  registerReceiverMetrics(context.registry, receiver.counters, publisher);
  const health =
    healthSink === null
      ? null
      : new HealthSnapshots({ sink: healthSink, instance: `${os.hostname()}:${process.pid}`, role: "receiver", intervalMs: config.observe.healthSnapshotMs, read: receiverHealthReading(context.registry) });
  health?.start();
  return {
    receiver,
    publisher,
    readiness: [{ name: "kafka producer", check: async () => (connected ? null : "not connected to Kafka") }],
    async close() {
      await receiver.close();
      // After the receiver stopped answering, so the last snapshot counts every request.
      await health?.stop();
      await producer.disconnect();
    },
  };
}
