/**
 * Partitions added to the span topic while evaluators run. The OpenTelemetry
 * Collector writes to new partitions as soon as its metadata shows them; the
 * evaluator must read them within its metadata refresh
 * (`kafka.metadataMaxAgeMs`, 30 s by default; one second here so the test
 * does not wait), and report lag for every partition of the topic from the
 * broker's offsets, including while reading is paused.
 *
 * No timing is asserted: each wait polls with a bounded deadline, far above
 * the configured refresh and far below kafkajs's own default of five minutes,
 * which is what the evaluator used before.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Kafka } from "kafkajs";
import { saramaPartition } from "../../../collector/02-transport/kafka/sarama-partitioner.js";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { createTestKafkaClient, createTestProducer } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { createUniqueTopic, uniqueTopicName, waitForCommitsAtEnd, waitUntil } from "../../support/kafka-helpers.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { evaluatorConfig, startInProcessEvaluator } from "./support/in-process-evaluators.js";
import { storedTraceIds } from "./support/stored-results.js";
import { otlpBody, recordTraces, spansPerTrace, type RecordedTrace } from "./support/synthetic-traces.js";

describe("partitions added to the topic", () => {
  let cluster: KafkaForTests;
  let kafka: Kafka;
  let store: TemporaryStore;
  let traces: RecordedTrace[];

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
    store = await temporaryStore({ migrate: false });
    traces = await recordTraces(200);
  });

  after(async () => {
    await store?.cleanup();
    await cluster?.stop();
  });

  async function produceKeyed(topic: string, selected: readonly RecordedTrace[], partitionCount: number): Promise<void> {
    const producer = createTestProducer(kafka, { allowAutoTopicCreation: false });
    await producer.connect();
    try {
      const messages = selected.map((trace) => ({ key: trace.traceId, value: Buffer.from(otlpBody(trace.spans, "protobuf")), partition: saramaPartition(trace.traceId, partitionCount) }));
      await producer.send({ topic, acks: -1, messages });
    } finally {
      await producer.disconnect();
    }
  }

  test("new partitions are read within the metadata refresh, and every partition has a lag series", async () => {
    const topic = await createUniqueTopic(kafka, { prefix: "growth", partitions: 2 });
    const groupId = uniqueTopicName("growth-group");
    const config = evaluatorConfig({
      "kafka.brokers": cluster.brokers,
      "kafka.topic": topic,
      "kafka.deadLetterTopic": `${topic}-dead-letters`,
      "kafka.groupId": groupId,
      "kafka.metadataMaxAgeMs": 1_000,
      "clickhouse.dataPath": store.dataPath,
      "clickhouse.database": `growth_${Date.now().toString(36)}`,
    });
    const evaluator = await startInProcessEvaluator(config);
    try {
      const before = traces.slice(0, 40);
      await produceKeyed(topic, before, 2);
      const connection = evaluator.role.store.connection;
      await waitUntil(async () => (await storedTraceIds(connection)).size >= before.length, { description: "the traces of the first two partitions", timeoutMs: 60_000, intervalMs: 250 });

      const admin = kafka.admin();
      await admin.connect();
      try {
        await admin.createPartitions({ topicPartitions: [{ topic, count: 4 }] });
      } finally {
        await admin.disconnect();
      }
      // Traces that belong to the new partitions, written there as the Collector would once it sees four partitions.
      const later = traces.slice(40).filter((trace) => saramaPartition(trace.traceId, 4) >= 2);
      assert.ok(later.length >= 20, `${later.length} traces for the new partitions`);
      await produceKeyed(topic, later, 4);

      await waitUntil(
        async () => {
          const stored = await storedTraceIds(connection);
          return later.every((trace) => stored.has(trace.traceId));
        },
        { description: "the traces written to the new partitions", timeoutMs: 60_000, intervalMs: 250 },
      );
      await waitForCommitsAtEnd(kafka, groupId, topic);
      const lags = await waitUntil(
        () => {
          const metrics = evaluator.registry.render();
          const values = [0, 1, 2, 3].map((partition) => readSample(metrics, "ragscope_kafka_consumer_lag", { topic, partition: String(partition) }));
          return values.every((value) => value === 0) ? values : undefined;
        },
        { description: "a lag series of 0 for each of the four partitions", timeoutMs: 30_000, intervalMs: 250 },
      );
      assert.deepEqual(lags, [0, 0, 0, 0]);
    } finally {
      await evaluator.role.close();
    }
  });

  test("lag grows while reading is paused", async () => {
    const topic = await createUniqueTopic(kafka, { prefix: "paused-lag", partitions: 1 });
    const config = evaluatorConfig({
      "kafka.brokers": cluster.brokers,
      "kafka.topic": topic,
      "kafka.deadLetterTopic": `${topic}-dead-letters`,
      "kafka.groupId": uniqueTopicName("paused-lag-group"),
      // Four open traces fill the span buffer, and none is released: reading pauses and stays paused.
      "memory.maxBufferedSpans": 4 * spansPerTrace,
      "assembler.quietPeriodMs": 600_000,
      "assembler.maxTraceWaitMs": 600_000,
      "clickhouse.dataPath": store.dataPath,
      "clickhouse.database": `paused_lag_${Date.now().toString(36)}`,
    });
    const evaluator = await startInProcessEvaluator(config);
    const lag = () => readSample(evaluator.registry.render(), "ragscope_kafka_consumer_lag", { topic, partition: "0" });
    const paused = () => readSample(evaluator.registry.render(), "ragscope_consumer_paused", { reason: "buffered_spans" }) === 1;
    try {
      const first = traces.slice(100, 110);
      await produceKeyed(topic, first, 1);
      await waitUntil(() => paused() || undefined, { description: "reading paused on the span buffer", timeoutMs: 60_000, intervalMs: 100 });

      const more = traces.slice(110, 140);
      await produceKeyed(topic, more, 1);
      // More than was ever produced before the pause: only messages written while paused can make up this lag.
      const grown = await waitUntil(
        () => {
          const value = lag();
          return value !== null && value >= more.length ? value : undefined;
        },
        { description: `a lag of at least ${more.length} while paused`, timeoutMs: 30_000, intervalMs: 100 },
      );
      assert.ok(paused(), "still paused");
      assert.ok(grown <= first.length + more.length);
    } finally {
      await evaluator.role.close();
    }
  });
});
