/**
 * Input in the OpenTelemetry Collector Kafka exporter's format
 * (shared/reference/interop.md §4) rebuilds the same Case Results as the
 * ragscope receiver's keyed input:
 * - without `partition_traces_by_id`: unkeyed messages, each holding spans of
 *   several traces, each trace spread over several messages and over all 3
 *   partitions — the evaluators repartition them by trace id;
 * - with it: one keyed message per (trace, batch), key = lower-case hex trace
 *   id, partition by the Collector's sarama-compatible hash — assembled where
 *   they land, nothing republished;
 * each in `otlp_proto` and `otlp_json`. Two evaluator members share the three
 * partitions, so a trace not brought together by its id would be assembled
 * in pieces (and its stored result would differ from the keyed one).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Kafka, Message } from "kafkajs";
import { saramaPartition } from "../../../collector/02-transport/kafka/sarama-partitioner.js";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { createKafkaClient } from "../../../collector/02-transport/kafka/kafka-client.js";
import { MetricsRegistry } from "../../../collector/wiring/observe/metrics-registry.js";
import { startKafkaReceiver } from "../../../collector/wiring/run/kafka-receiver-role.js";
import { createTestKafkaClient, createTestProducer } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { createUniqueTopic, uniqueTopicName, waitForCommitsAtEnd, waitUntil } from "../../support/kafka-helpers.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { postBodies } from "./support/collector-processes.js";
import { evaluatorConfig, startInProcessEvaluator, type InProcessEvaluator } from "./support/in-process-evaluators.js";
import { countCaseResults } from "./support/stored-results.js";
import { otlpBody, recordTraces, requestBodies, type RecordedTrace } from "./support/synthetic-traces.js";

const traceCount = 200;
const partitions = 3;

interface Stored {
  results: { trace_id: string; payload: string }[];
  metrics: { case_result_id: string; metric: string; evaluator_id: string; value: number | null }[];
  repartitionedTraces: number;
}

/** A deterministic shuffle, so a failure can be reproduced. */
function shuffled<Item>(items: readonly Item[], seed: number): Item[] {
  const copy = [...items];
  let state = seed;
  for (let index = copy.length - 1; index > 0; index -= 1) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const other = state % (index + 1);
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

describe("OpenTelemetry Collector Kafka exporter input", () => {
  let cluster: KafkaForTests;
  let kafka: Kafka;
  let store: TemporaryStore;
  let traces: RecordedTrace[];
  let keyed: Stored;

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
    store = await temporaryStore({ migrate: false });
    traces = await recordTraces(traceCount);
    keyed = await throughEvaluators("keyed", async (topic) => {
      // The baseline: ragscope's own receiver, one keyed protobuf message per trace.
      const config = evaluatorConfig({ "kafka.brokers": cluster.brokers, "kafka.topic": topic, "receiver.port": 0 });
      const receiver = await startKafkaReceiver(config, { kafka: createKafkaClient(config.kafka), registry: new MetricsRegistry(), log: () => {} });
      try {
        await postBodies(receiver.receiver.url, requestBodies(traces, 25));
      } finally {
        await receiver.close();
      }
    });
  });

  after(async () => {
    await store?.cleanup();
    await cluster?.stop();
  });

  async function throughEvaluators(name: string, produce: (topic: string) => Promise<void>): Promise<Stored> {
    const topic = await createUniqueTopic(kafka, { prefix: name, partitions });
    const groupId = uniqueTopicName(`${name}-group`);
    const database = `otel_${name.replace(/-/g, "_")}_${Date.now().toString(36)}`;
    const config = evaluatorConfig({
      "kafka.brokers": cluster.brokers,
      "kafka.topic": topic,
      "kafka.deadLetterTopic": `${topic}-dead-letters`,
      "kafka.groupId": groupId,
      "clickhouse.dataPath": store.dataPath,
      "clickhouse.database": database,
    });
    const members: InProcessEvaluator[] = [await startInProcessEvaluator(config), await startInProcessEvaluator(config)];
    try {
      // Both members own partitions before anything is produced.
      await waitUntil(() => members.every((member) => member.role.runner.ready), { description: "both members to join", timeoutMs: 30_000 });
      await produce(topic);
      const connection = members[0]!.role.store.connection;
      await waitUntil(async () => (await countCaseResults(connection)) >= traceCount, { description: `${traceCount} case results (${name})`, timeoutMs: 60_000, intervalMs: 200 });
      await waitForCommitsAtEnd(kafka, groupId, topic);
      const results = await queryRows<{ trace_id: string; payload: string }>(connection, "SELECT trace_id, payload FROM {{database}}.case_results FINAL ORDER BY trace_id");
      const metrics = await queryRows<Stored["metrics"][number]>(
        connection,
        // The visible values: a trace re-opened on one path also writes NULL rows that hide values it no longer has (result-rows.ts).
        "SELECT case_result_id, metric, evaluator_id, value FROM {{database}}.metric_values FINAL WHERE value IS NOT NULL ORDER BY case_result_id, metric, evaluator_id",
      );
      const repartitionedTraces = members.reduce((total, member) => total + (readSample(member.registry.render(), "ragscope_traces_repartitioned_total") ?? 0), 0);
      return { results, metrics, repartitionedTraces };
    } finally {
      for (const member of members) await member.role.close();
    }
  }

  /** Without partition_traces_by_id: many traces per unkeyed message, round robin over the partitions. */
  function unkeyedMessages(encoding: "protobuf" | "json"): Message[] {
    const spans = shuffled(traces.flatMap((trace) => trace.spans), encoding === "json" ? 7 : 3);
    const messages: Message[] = [];
    for (let start = 0, index = 0; start < spans.length; start += 7, index += 1) {
      messages.push({ key: null, value: Buffer.from(otlpBody(spans.slice(start, start + 7), encoding)), partition: index % partitions });
    }
    return messages;
  }

  /** With partition_traces_by_id: one message per trace and batch (here two batches per trace), keyed and placed as the Collector does. */
  function keyedByTraceMessages(encoding: "protobuf" | "json"): Message[] {
    return traces.flatMap((trace) =>
      [trace.spans.slice(0, 2), trace.spans.slice(2)].map((spans) => ({
        key: trace.traceId,
        value: Buffer.from(otlpBody(spans, encoding)),
        partition: saramaPartition(trace.traceId, partitions),
      })),
    );
  }

  async function produce(topic: string, messages: Message[]): Promise<void> {
    const producer = createTestProducer(kafka);
    await producer.connect();
    try {
      for (let start = 0; start < messages.length; start += 100) await producer.send({ topic, acks: -1, messages: messages.slice(start, start + 100) });
    } finally {
      await producer.disconnect();
    }
  }

  test("the receiver's keyed input rebuilds every trace whole", () => {
    assert.equal(keyed.results.length, traceCount);
    assert.deepEqual(new Set(keyed.results.map((row) => row.trace_id)), new Set(traces.map((trace) => trace.traceId)));
    for (const row of keyed.results) assert.equal(JSON.parse(row.payload).rag_observation.span_count, 5);
    assert.equal(keyed.repartitionedTraces, 0, "keyed input is assembled where it lands");
  });

  for (const encoding of ["protobuf", "json"] as const) {
    const format = encoding === "json" ? "otlp_json" : "otlp_proto";

    test(`${format} without partition_traces_by_id: unkeyed multi-trace messages over 3 partitions rebuild the same Case Results`, async () => {
      const messages = unkeyedMessages(encoding);
      assert.ok(messages.every((message) => message.key === null));
      const stored = await throughEvaluators(`unkeyed-${encoding}`, (topic) => produce(topic, messages));
      assert.ok(stored.repartitionedTraces >= traceCount, `every trace was republished by trace id (${stored.repartitionedTraces})`);
      assert.deepEqual(stored.results, keyed.results);
      assert.deepEqual(stored.metrics, keyed.metrics);
    });

    test(`${format} with partition_traces_by_id: keyed messages are assembled where they land and rebuild the same Case Results`, async () => {
      const stored = await throughEvaluators(`bytrace-${encoding}`, (topic) => produce(topic, keyedByTraceMessages(encoding)));
      assert.equal(stored.repartitionedTraces, 0, "the Collector's partition for a trace id is the evaluators' partition for it");
      assert.deepEqual(stored.results, keyed.results);
      assert.deepEqual(stored.metrics, keyed.metrics);
    });
  }
});
