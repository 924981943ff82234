/**
 * Compressed input, as the OpenTelemetry Collector's Kafka exporter writes it
 * with `producer.compression` set to gzip, snappy, lz4 or zstd
 * (shared/reference/interop.md §4): every trace is evaluated, nothing is
 * dead-lettered, and the group commits to the end of the topic. Each codec
 * carries traces keyed one per message (`partition_traces_by_id`) and one
 * unkeyed message holding many traces (the exporter's default), which the
 * evaluator republishes keyed — here with zstd, its own producer's setting.
 *
 * Before the codecs were registered, kafkajs failed the whole fetch with
 * "ZSTD compression not implemented" (and the same for snappy and lz4), the
 * evaluator stopped, and a restart stopped again on the same offset.
 *
 * The second test shows why a batch that does not decompress never reaches
 * an evaluator through a broker: the broker decompresses every batch it is
 * given and refuses one that does not decompress (collector/02-transport/kafka/README.md,
 * "Known limits").
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import kafkajs, { type Kafka } from "kafkajs";
import { compressionOf, registerCompressionCodecs } from "../../../collector/02-transport/kafka/compression-codecs.js";
import type { CompressionName } from "../../../collector/02-transport/kafka/compression-names.js";
import { saramaPartition } from "../../../collector/02-transport/kafka/sarama-partitioner.js";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { createTestKafkaClient, createTestProducer } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { createUniqueTopic, uniqueTopicName, waitForCommitsAtEnd, waitUntil } from "../../support/kafka-helpers.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { evaluatorConfig, startInProcessEvaluator } from "./support/in-process-evaluators.js";
import { countCaseResults, readStoredResults } from "./support/stored-results.js";
import { expectedOutputTokens, otlpBody, recordTraces, type RecordedTrace } from "./support/synthetic-traces.js";

const codecs: CompressionName[] = ["gzip", "snappy", "lz4", "zstd"];
const keyedPerCodec = 60;
const unkeyedPerCodec = 40;
const partitions = 3;

describe("compressed input", () => {
  let cluster: KafkaForTests;
  let kafka: Kafka;
  let store: TemporaryStore;
  let traces: RecordedTrace[];

  before(async () => {
    cluster = await ensureKafkaForTests();
    registerCompressionCodecs();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
    store = await temporaryStore({ migrate: false });
    traces = await recordTraces(codecs.length * (keyedPerCodec + unkeyedPerCodec));
  });

  after(async () => {
    await store?.cleanup();
    await cluster?.stop();
  });

  test("gzip, snappy, lz4 and zstd batches, keyed and unkeyed: every trace evaluated, nothing dead-lettered", async () => {
    const topic = await createUniqueTopic(kafka, { prefix: "compressed", partitions });
    const groupId = uniqueTopicName("compressed-group");
    const config = evaluatorConfig({
      "kafka.brokers": cluster.brokers,
      "kafka.topic": topic,
      "kafka.deadLetterTopic": `${topic}-dead-letters`,
      "kafka.groupId": groupId,
      "kafka.compression": "zstd",
      "clickhouse.dataPath": store.dataPath,
      "clickhouse.database": `compressed_${Date.now().toString(36)}`,
    });
    const producer = createTestProducer(kafka, { allowAutoTopicCreation: false });
    await producer.connect();
    try {
      let next = 0;
      for (const codec of codecs) {
        const keyed = traces.slice(next, next + keyedPerCodec);
        const unkeyed = traces.slice(next + keyedPerCodec, next + keyedPerCodec + unkeyedPerCodec);
        next += keyedPerCodec + unkeyedPerCodec;
        const compression = compressionOf(codec);
        await producer.send({
          topic,
          acks: -1,
          compression,
          messages: keyed.map((trace) => ({ key: trace.traceId, value: Buffer.from(otlpBody(trace.spans, "protobuf")), partition: saramaPartition(trace.traceId, partitions) })),
        });
        await producer.send({ topic, acks: -1, compression, messages: [{ key: null, value: Buffer.from(otlpBody(unkeyed.flatMap((trace) => trace.spans), "protobuf")), partition: 0 }] });
      }
    } finally {
      await producer.disconnect();
    }

    const evaluator = await startInProcessEvaluator(config);
    try {
      const connection = evaluator.role.store.connection;
      await waitUntil(async () => (await countCaseResults(connection)) >= traces.length, { description: `${traces.length} case results`, timeoutMs: 90_000, intervalMs: 250 });
      await waitForCommitsAtEnd(kafka, groupId, topic);
      const stored = await readStoredResults(connection);
      assert.equal(stored.caseResults, traces.length);
      assert.equal(stored.partialTraces, 0);
      assert.equal(stored.outputTokens.sum, expectedOutputTokens(traces.length), "every trace once");
      const metrics = evaluator.registry.render();
      assert.equal(readSample(metrics, "ragscope_kafka_messages_consumed_total", { route: "dead_lettered" }), 0);
      assert.equal(readSample(metrics, "ragscope_kafka_messages_consumed_total", { route: "repartitioned" }), codecs.length, "one unkeyed message per codec, republished keyed");
      assert.equal(evaluator.role.runner.fatalError, null);
      assert.equal(evaluator.role.runner.counters.crashes, 0);
    } finally {
      await evaluator.role.close();
    }
  });

  test("the broker refuses a zstd batch that does not decompress, so a consumer never reads one", async () => {
    const topic = await createUniqueTopic(kafka, { prefix: "corrupt", partitions: 1 });
    const registry = kafkajs.CompressionCodecs as unknown as Record<number, () => { compress(encoder: { buffer: Buffer }): Promise<Buffer>; decompress(buffer: Buffer): Promise<Buffer> }>;
    const zstd = kafkajs.CompressionTypes.ZSTD;
    const registered = registry[zstd]!;
    // A zstd codec whose output is not zstd: bytes that fail to decompress, as a corrupt batch would.
    registry[zstd] = () => ({ ...registered(), compress: async () => Buffer.from("this is not a zstd frame at all") });
    const producer = createTestProducer(kafka, { allowAutoTopicCreation: false, retry: { retries: 0 } });
    await producer.connect();
    try {
      await assert.rejects(
        producer.send({ topic, acks: -1, compression: compressionOf("zstd"), messages: [{ key: null, value: Buffer.from("spans") }] }),
        // Kafka 4 answers UNKNOWN_SERVER_ERROR (its log says the batch failed to decompress); older brokers CORRUPT_MESSAGE.
        (error: Error) => error.name === "KafkaJSProtocolError",
      );
    } finally {
      registry[zstd] = registered;
      await producer.disconnect();
    }
    const admin = kafka.admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchTopicOffsets(topic);
      assert.deepEqual(offsets.map((partition) => partition.high), ["0"], "nothing was appended");
    } finally {
      await admin.disconnect();
    }
  });
});
