/**
 * 1 % garbage among real traces: every bad message lands in the dead-letter
 * topic with headers that say why and where it came from, its value as it
 * was; every good trace is evaluated, and every partition keeps flowing (the
 * group commits to the end of each).
 *
 * One evaluator member, the embedded ClickHouse engine (the default store).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Kafka, Message } from "kafkajs";
import { deadLetterHeaders } from "../../../collector/02-transport/kafka/kafka-dead-letters.js";
import { saramaPartition } from "../../../collector/02-transport/kafka/sarama-partitioner.js";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { createTestKafkaClient, createTestProducer } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { consumeMessages, createUniqueTopic, groupProgress, uniqueTopicName, waitForCommitsAtEnd, waitUntil } from "../../support/kafka-helpers.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { evaluatorConfig, startInProcessEvaluator } from "./support/in-process-evaluators.js";
import { countCaseResults, readStoredResults, storedTraceIds } from "./support/stored-results.js";
import { expectedOutputTokens, otlpBody, recordTraces, type RecordedTrace } from "./support/synthetic-traces.js";

const goodTraces = 1_000;
const partitions = 3;
const maxMessageBytes = 64 * 1024;

interface Garbage {
  description: string;
  message: Message;
  reason: string;
}

describe("dead letters", () => {
  let cluster: KafkaForTests;
  let kafka: Kafka;
  let store: TemporaryStore;
  let traces: RecordedTrace[];
  let garbage: Garbage[];

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
    store = await temporaryStore({ migrate: false });
    traces = await recordTraces(goodTraces);
    // Traces that only ever travel inside one oversized message: they must not be evaluated.
    const oversizedTraces = await recordTraces(300, goodTraces + 1);
    const oversized = Buffer.from(otlpBody(oversizedTraces.flatMap((trace) => trace.spans), "protobuf"));
    assert.ok(oversized.length > maxMessageBytes, `the oversized message has ${oversized.length} bytes`);
    const sample = Buffer.from(otlpBody(traces[0]!.spans, "protobuf"));
    const sampleJson = Buffer.from(otlpBody(traces[1]!.spans, "json"));
    const randomBytes = (length: number, seed: number) => Buffer.from(Array.from({ length }, (_, index) => (index * 7919 + seed * 104729) % 251));
    garbage = [
      { description: "random bytes", message: { key: null, value: randomBytes(300, 1) }, reason: "undecodable" },
      { description: "more random bytes, keyed", message: { key: "not-a-trace-id", value: randomBytes(64, 2) }, reason: "undecodable" },
      { description: "truncated OTLP protobuf", message: { key: traces[0]!.traceId, value: sample.subarray(0, sample.length - 9) }, reason: "undecodable" },
      { description: "JSON that is not OTLP", message: { key: null, value: Buffer.from('{"resourceSpans":"not a list"}') }, reason: "undecodable" },
      { description: "a Zipkin JSON span list", message: { key: null, value: Buffer.from('[{"traceId":"5af7183fb1d4cf5f","id":"6b221d5bc9e6496c","name":"get"}]') }, reason: "undecodable" },
      { description: "OTLP JSON declared as protobuf", message: { key: null, value: sampleJson, headers: { "content-type": "application/x-protobuf" } }, reason: "wrong_encoding" },
      { description: "a content type that is not OTLP", message: { key: null, value: sample, headers: { "content-type": "text/plain" } }, reason: "wrong_encoding" },
      { description: "valid OTLP over the size limit", message: { key: null, value: oversized }, reason: "oversized" },
      { description: "a tombstone (no value)", message: { key: "tombstone", value: null }, reason: "no_value" },
      { description: "an empty value", message: { key: null, value: Buffer.alloc(0) }, reason: "no_value" },
    ];
  });

  after(async () => {
    await store?.cleanup();
    await cluster?.stop();
  });

  test("1 % garbage: each bad message dead-lettered with its reason and source, every good trace evaluated", async () => {
    const topic = await createUniqueTopic(kafka, { prefix: "garbage", partitions });
    const deadLetterTopic = `${topic}-dead-letters`;
    const groupId = uniqueTopicName("garbage-group");
    const config = evaluatorConfig({
      "kafka.brokers": cluster.brokers,
      "kafka.topic": topic,
      "kafka.deadLetterTopic": deadLetterTopic,
      "kafka.groupId": groupId,
      "kafka.maxMessageBytes": maxMessageBytes,
      "clickhouse.dataPath": store.dataPath,
      "clickhouse.database": `garbage_${Date.now().toString(36)}`,
    });
    const evaluator = await startInProcessEvaluator(config);
    try {
      // Good traces keyed as the receiver writes them; one garbage message after every 100, in turn on each partition.
      const producer = createTestProducer(kafka, { allowAutoTopicCreation: false });
      await producer.connect();
      const sentGarbage: { garbage: Garbage; partition: number; offset: string }[] = [];
      try {
        for (let start = 0, index = 0; start < traces.length; start += 100, index += 1) {
          const good = traces.slice(start, start + 100).map((trace) => ({
            key: trace.traceId,
            value: Buffer.from(otlpBody(trace.spans, "protobuf")),
            partition: saramaPartition(trace.traceId, partitions),
          }));
          await producer.send({ topic, acks: -1, messages: good });
          const bad = garbage[index]!;
          const partition = index % partitions;
          const [metadata] = await producer.send({ topic, acks: -1, messages: [{ ...bad.message, partition }] });
          assert.equal(metadata!.partition, partition);
          sentGarbage.push({ garbage: bad, partition, offset: metadata!.baseOffset! });
        }
      } finally {
        await producer.disconnect();
      }
      assert.equal(sentGarbage.length, garbage.length);

      const connection = evaluator.role.store.connection;
      await waitUntil(async () => (await countCaseResults(connection)) >= goodTraces, { description: `${goodTraces} case results`, timeoutMs: 90_000, intervalMs: 250 });
      await waitForCommitsAtEnd(kafka, groupId, topic);

      const stored = await readStoredResults(connection);
      assert.equal(stored.caseResults, goodTraces);
      assert.deepEqual(await storedTraceIds(connection), new Set(traces.map((trace) => trace.traceId)), "every good trace, none of the oversized message's");
      assert.equal(stored.outputTokens.sum, expectedOutputTokens(goodTraces));

      const letters = await consumeMessages(kafka, { topic: deadLetterTopic, groupId: uniqueTopicName("dead-letter-reader"), until: (received) => received.length >= garbage.length });
      const [deadLetterEnds] = [await groupProgress(kafka, uniqueTopicName("nobody"), deadLetterTopic)];
      assert.equal(deadLetterEnds!.reduce((total, partition) => total + Number(partition.end), 0), garbage.length, "exactly one dead letter per bad message");
      const header = (letter: (typeof letters)[number], name: string) => letter.headers?.[name]?.toString();
      for (const sent of sentGarbage) {
        const letter = letters.find((candidate) => header(candidate, deadLetterHeaders.sourcePartition) === String(sent.partition) && header(candidate, deadLetterHeaders.sourceOffset) === sent.offset);
        assert.ok(letter, `a dead letter for ${sent.garbage.description} at ${sent.partition}/${sent.offset}`);
        assert.equal(header(letter, deadLetterHeaders.reason), sent.garbage.reason, sent.garbage.description);
        assert.equal(header(letter, deadLetterHeaders.sourceTopic), topic);
        assert.ok((header(letter, deadLetterHeaders.detail) ?? "").length > 10, "the detail says what was wrong");
        const original = sent.garbage.message.value;
        if (original === null || original === undefined || (Buffer.isBuffer(original) && original.length === 0)) assert.ok(letter.value === undefined || letter.value === "");
        else assert.equal(letter.value, Buffer.from(original as Buffer).toString("utf8"), `${sent.garbage.description}: the value is kept as it was`);
      }
      const metrics = evaluator.registry.render();
      for (const reason of ["undecodable", "wrong_encoding", "oversized", "no_value"]) {
        assert.equal(readSample(metrics, "ragscope_messages_dead_lettered_total", { reason }), garbage.filter((item) => item.reason === reason).length, reason);
      }
      assert.equal(readSample(metrics, "ragscope_messages_dead_lettered_total", { reason: "unreadable" }), 0, "a reason never met has its series, at 0, for rate() and absence alerts");
    } finally {
      await evaluator.role.close();
    }
  });
});
