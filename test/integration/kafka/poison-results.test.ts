/**
 * A Case Result the store refuses must not stall the pipeline. The store is
 * the real engine (embedded chDB) with a CHECK constraint added to
 * `case_results` that refuses two of the traces, as a column type or a
 * constraint refuses a bad value in production. ClickHouse refuses the whole
 * insert block that holds such a row (VIOLATED_CONSTRAINT), so without
 * isolation the batch stays first in line, is retried forever, and reading
 * stays paused.
 *
 * Expected: the two results land in `quarantined_results` with the engine's
 * error, every other trace is stored, and the group commits to the end of
 * every partition (offsets move past stored and quarantined data alike).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Kafka } from "kafkajs";
import { saramaPartition } from "../../../collector/02-transport/kafka/sarama-partitioner.js";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { createTestKafkaClient, createTestProducer } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { createUniqueTopic, uniqueTopicName, waitForCommitsAtEnd, waitUntil } from "../../support/kafka-helpers.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { evaluatorConfig, startInProcessEvaluator } from "./support/in-process-evaluators.js";
import { countCaseResults, storedTraceIds } from "./support/stored-results.js";
import { otlpBody, recordTraces, type RecordedTrace } from "./support/synthetic-traces.js";

const traceCount = 600;
const partitions = 3;

describe("results the store refuses", () => {
  let cluster: KafkaForTests;
  let kafka: Kafka;
  let store: TemporaryStore;
  let traces: RecordedTrace[];

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
    store = await temporaryStore();
    traces = await recordTraces(traceCount);
  });

  after(async () => {
    await store?.cleanup();
    await cluster?.stop();
  });

  test("a refused result goes to the quarantine with the engine's error, the rest is stored, offsets reach the end", async () => {
    const poison = [traces[6]!, traces[420]!];
    const poisonIds = poison.map((trace) => trace.traceId);
    for (const id of poisonIds) assert.match(id, /^[0-9a-f]{32}$/);
    // Trace ids are hex (checked above), so they can stand in the DDL as literals.
    await store.connection.client.command({
      query: `ALTER TABLE ${store.connection.database}.case_results ADD CONSTRAINT refuses_poison CHECK trace_id NOT IN (${poisonIds.map((id) => `'${id}'`).join(", ")})`,
    });

    const topic = await createUniqueTopic(kafka, { prefix: "poison", partitions });
    const groupId = uniqueTopicName("poison-group");
    const config = evaluatorConfig({
      "kafka.brokers": cluster.brokers,
      "kafka.topic": topic,
      "kafka.deadLetterTopic": `${topic}-dead-letters`,
      "kafka.groupId": groupId,
      "clickhouse.dataPath": store.dataPath,
      "clickhouse.database": store.connection.database,
      "sink.maxBatch": 50,
      // Short retries: a refused write is not retried anyway, and the test should not wait on backoff.
      "sink.retryInitialDelayMs": 20,
      "sink.retryMaxDelayMs": 200,
      "sink.retryDeadlineMs": 2_000,
    });
    const evaluator = await startInProcessEvaluator(config);
    try {
      const producer = createTestProducer(kafka, { allowAutoTopicCreation: false });
      await producer.connect();
      try {
        for (let start = 0; start < traces.length; start += 100) {
          const messages = traces.slice(start, start + 100).map((trace) => ({
            key: trace.traceId,
            value: Buffer.from(otlpBody(trace.spans, "protobuf")),
            partition: saramaPartition(trace.traceId, partitions),
          }));
          await producer.send({ topic, acks: -1, messages });
        }
      } finally {
        await producer.disconnect();
      }

      const connection = evaluator.role.store.connection;
      await waitUntil(async () => (await countCaseResults(connection)) >= traceCount - poison.length, {
        description: `${traceCount - poison.length} case results`,
        timeoutMs: 90_000,
        intervalMs: 250,
      });
      await waitForCommitsAtEnd(kafka, groupId, topic);

      const stored = await storedTraceIds(connection);
      assert.equal(stored.size, traceCount - poison.length);
      for (const trace of traces) assert.equal(stored.has(trace.traceId), !poisonIds.includes(trace.traceId), `trace ${trace.index}`);

      const quarantined = await queryRows<{ trace_id: string; error: string; payload: string }>(
        connection,
        "SELECT trace_id, error, payload FROM {{database}}.quarantined_results FINAL ORDER BY trace_id",
      );
      assert.deepEqual(quarantined.map((row) => row.trace_id), [...poisonIds].sort());
      for (const row of quarantined) {
        assert.match(row.error, /refuses_poison/, "the engine's error names the constraint");
        const payload = JSON.parse(row.payload) as { caseResult: { trace_id: string }; evaluationResults: unknown[] };
        assert.equal(payload.caseResult.trace_id, row.trace_id);
        assert.ok(payload.evaluationResults.length > 0, "the whole evaluation is kept");
      }

      const metrics = evaluator.registry.render();
      assert.equal(readSample(metrics, "ragscope_traces_quarantined_total"), poison.length);
      assert.equal(evaluator.role.runner.pausedFor, null, "reading is not paused");
      assert.equal(evaluator.role.worker.backlog, 0, "nothing waits for the sink");
    } finally {
      await evaluator.role.close();
    }
  });
});
