/**
 * The Kafka evaluator applies the same rule as the embedded collector
 * (collector/06-rebuild/rag-request-evidence.ts): a trace that records no RAG
 * request — the two traces a LlamaIndex app sends while building its index,
 * recorded with the real instrumentation (test/data/traces-without-request/) —
 * is not stored as a Case Result, is counted in
 * ragscope_traces_without_request_total by reason, and its messages are
 * committed (nothing waits for a result that will never be written). The
 * requests beside them are stored. Real broker, real engine (embedded chDB).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Kafka } from "kafkajs";
import { saramaPartition } from "../../../collector/02-transport/kafka/sarama-partitioner.js";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { createTestKafkaClient, createTestProducer } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { createUniqueTopic, uniqueTopicName, waitForCommitsAtEnd, waitUntil } from "../../support/kafka-helpers.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { evaluatorConfig, startInProcessEvaluator } from "./support/in-process-evaluators.js";
import { storedTraceIds } from "./support/stored-results.js";
import { otlpBody, recordTraces } from "./support/synthetic-traces.js";

const partitions = 2;
const indexingTraceIds = ["00001008000000000000000000000001", "00001008000000000000000000000002"];

/** OTLP/JSON of one more span of `traceId`, a copy of one of its recorded spans under a new span id: a span that arrives late. */
function lateSpanOf(recording: string, traceId: string): string {
  type Span = { traceId: string; spanId: string; parentSpanId?: string };
  const document = JSON.parse(recording) as { resourceSpans: { resource: unknown; scopeSpans: { scope: unknown; spans: Span[] }[] }[] };
  for (const resourceSpans of document.resourceSpans) {
    for (const scopeSpans of resourceSpans.scopeSpans) {
      const recorded = scopeSpans.spans.find((span) => span.traceId === traceId && span.parentSpanId);
      if (recorded === undefined) continue;
      const late = { ...recorded, spanId: "10080000000000ff" };
      return JSON.stringify({ resourceSpans: [{ resource: resourceSpans.resource, scopeSpans: [{ scope: scopeSpans.scope, spans: [late] }] }] });
    }
  }
  throw new Error(`the recording holds no child span of trace ${traceId}`);
}

describe("traces without a RAG request, read from Kafka", () => {
  let cluster: KafkaForTests;
  let kafka: Kafka;
  let store: TemporaryStore;

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
    store = await temporaryStore();
  });

  after(async () => {
    await store?.cleanup();
    await cluster?.stop();
  });

  test("an index build's traces are counted by reason and committed, not stored; the requests beside them are stored", async () => {
    const requests = await recordTraces(3);
    const indexing = await readFile(fileURLToPath(new URL("../../data/traces-without-request/llama-index-indexing.otlp.json", import.meta.url)), "utf8");

    const topic = await createUniqueTopic(kafka, { prefix: "without-request", partitions });
    const groupId = uniqueTopicName("without-request-group");
    const evaluator = await startInProcessEvaluator(
      evaluatorConfig({
        "kafka.brokers": cluster.brokers,
        "kafka.topic": topic,
        "kafka.deadLetterTopic": `${topic}-dead-letters`,
        "kafka.groupId": groupId,
        "clickhouse.dataPath": store.dataPath,
        "clickhouse.database": store.connection.database,
      }),
    );
    try {
      const producer = createTestProducer(kafka, { allowAutoTopicCreation: false });
      await producer.connect();
      try {
        // The recording as an OpenTelemetry Collector without partition_traces_by_id sends it: one unkeyed message
        // holding both traces, which the evaluators repartition by trace id.
        await producer.send({ topic, acks: -1, messages: [{ value: Buffer.from(indexing), partition: 0 }] });
        await producer.send({
          topic,
          acks: -1,
          messages: requests.map((trace) => ({ key: trace.traceId, value: Buffer.from(otlpBody(trace.spans, "protobuf")), partition: saramaPartition(trace.traceId, partitions) })),
        });
      } finally {
        await producer.disconnect();
      }

      const counted = () => {
        const metrics = evaluator.registry.render();
        return (["embedding_only", "no_rag_stage"] as const).map((reason) => readSample(metrics, "ragscope_traces_without_request_total", { reason }));
      };
      const connection = evaluator.role.store.connection;
      await waitUntil(async () => (await storedTraceIds(connection)).size >= requests.length && counted().every((value) => value === 1), {
        description: "the requests stored and both index traces counted",
        timeoutMs: 90_000,
        intervalMs: 250,
      });
      await waitForCommitsAtEnd(kafka, groupId, topic);

      assert.deepEqual(counted(), [1, 1], "embedding_only: the embedding trace; no_rag_stage: the splitter's");

      // A late span of the splitter's trace re-opens it: still no request, so it is not counted a second time,
      // nor received twice.
      const producerForLateSpan = createTestProducer(kafka, { allowAutoTopicCreation: false });
      await producerForLateSpan.connect();
      try {
        await producerForLateSpan.send({ topic, acks: -1, messages: [{ value: Buffer.from(lateSpanOf(indexing, indexingTraceIds[0]!)), partition: 0 }] });
      } finally {
        await producerForLateSpan.disconnect();
      }
      await waitUntil(async () => readSample(evaluator.registry.render(), "ragscope_traces_reopened_total") === 1, {
        description: "the splitter's trace re-opened",
        timeoutMs: 60_000,
        intervalMs: 250,
      });
      await waitForCommitsAtEnd(kafka, groupId, topic);
      assert.deepEqual(counted(), [1, 1], "the re-opened trace is not counted again");
      assert.equal(readSample(evaluator.registry.render(), "ragscope_traces_received_total", { role: "evaluator" }), requests.length + indexingTraceIds.length, "a re-opened trace is received once");
      const stored = await storedTraceIds(connection);
      assert.deepEqual([...stored].sort(), requests.map((trace) => trace.traceId).sort(), "the requests, and no index trace");
      for (const traceId of indexingTraceIds) assert.ok(!stored.has(traceId));
      const metrics = evaluator.registry.render();
      assert.equal(readSample(metrics, "ragscope_case_results_invalid_total"), 0);
      assert.equal(evaluator.role.worker.backlog, 0, "nothing waits for the sink");
    } finally {
      await evaluator.role.close();
    }
  });
});
