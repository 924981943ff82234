/**
 * GenAI content sent as OpenTelemetry log records, through Kafka: `ragscope receive` (a real process) in front of a
 * real broker writes a trace's log events as one message keyed by its trace id on the spans' topic; an evaluator
 * (in-process, the evaluate role's code) reads the trace's spans and its events from the same partition, joins them,
 * and stores the Case Result (embedded chDB). The input is opentelemetry-instrumentation-openai-v2's older event path,
 * recorded (test/data/otel-genai-log-events/openai-v2-legacy.*): a chat span without messages, and beside it the
 * `gen_ai.choice` record whose body holds the answer. Sent logs first, as the Python SDK's batch processors do. And a
 * logs message another producer wrote without a key is dead-lettered (`unreadable`), its events joined to nothing.
 * Worked from the scenario (its scripted answer), not from ragscope's output.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Kafka } from "kafkajs";
import type { CaseResult } from "../../../contracts/case-result.js";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { createTestKafkaClient, createTestProducer } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { createUniqueTopic, uniqueTopicName, waitUntil } from "../../support/kafka-helpers.js";
import { shifted, shiftToStartAt, type Json } from "../../support/shift-recorded-times.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { fakeAnswer } from "../../golden/scenarios/policy-corpus.js";
import { evaluatorConfig, startInProcessEvaluator, type InProcessEvaluator } from "./support/in-process-evaluators.js";
import { killAllCollectorProcesses, startCollectorProcess, type CollectorProcess } from "./support/collector-processes.js";

const RECORDED_TRACE_ID = "00001010000000000000000000000001";
const recording = (file: string) => readFile(fileURLToPath(new URL(`../../data/otel-genai-log-events/${file}`, import.meta.url)), "utf8");

describe("log events through Kafka", () => {
  let cluster: KafkaForTests;
  let kafka: Kafka;
  let store: TemporaryStore;
  let receiver: CollectorProcess;
  let evaluator: InProcessEvaluator;
  let topic: string;

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
    store = await temporaryStore();
    topic = await createUniqueTopic(kafka, { prefix: "log-events", partitions: 2 });
    receiver = await startCollectorProcess("receiver", "receive", ["--kafka-brokers", cluster.brokers, "--topic", topic, "--port", "0"]);
    evaluator = await startInProcessEvaluator(
      evaluatorConfig({
        "kafka.brokers": cluster.brokers,
        "kafka.topic": topic,
        "kafka.deadLetterTopic": `${topic}-dead-letters`,
        "kafka.groupId": uniqueTopicName("log-events-group"),
        "clickhouse.dataPath": store.dataPath,
        "clickhouse.database": store.connection.database,
      }),
    );
  });

  after(async () => {
    await evaluator?.role.close();
    await killAllCollectorProcesses();
    await store?.cleanup();
    await cluster?.stop();
  });

  test("a trace's log events go beside its spans, and the evaluator joins them: the answer from the recorded choice record", async () => {
    const traces = JSON.parse(await recording("openai-v2-legacy.traces.otlp.json")) as Json;
    const logs = JSON.parse(await recording("openai-v2-legacy.logs.otlp.json")) as Json;
    const shift = shiftToStartAt(traces, Date.now() - 60_000);
    for (const [signal, body] of [["logs", logs], ["traces", traces]] as const) {
      const response = await fetch(`${receiver.receiverUrl!}/v1/${signal}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(shifted(body, shift)) });
      assert.equal(response.status, 200, `${signal}: ${await response.text()}`);
    }
    assert.equal(await receiver.sample("ragscope_log_records_received_total"), 3);

    const connection = evaluator.role.store.connection;
    const stored = async () => (await queryRows<{ payload: string }>(connection, "SELECT payload FROM {{database}}.case_results FINAL WHERE trace_id = {traceId:String}", { traceId: RECORDED_TRACE_ID })).map((row) => JSON.parse(row.payload) as CaseResult);
    await waitUntil(async () => (await stored()).length === 1, { description: "the recorded trace stored", timeoutMs: 60_000, intervalMs: 250 });
    const [result] = await stored();
    assert.equal(result!.output, fakeAnswer, "the gen_ai.choice record's body, joined to the chat span");
    assert.equal(readSample(evaluator.registry.render(), "ragscope_log_events_total", { outcome: "joined" }), 3, "the system, user and choice records");
  });

  test("a logs message without a key (another producer's) is dead-lettered, not assembled", async () => {
    const producer = createTestProducer(kafka, { allowAutoTopicCreation: false });
    await producer.connect();
    try {
      const logs = await recording("openai-v2-legacy.logs.otlp.json");
      await producer.send({ topic, acks: -1, messages: [{ value: Buffer.from(logs), partition: 0, headers: { "ragscope.signal": "logs", "content-type": "application/json" } }] });
    } finally {
      await producer.disconnect();
    }
    await waitUntil(async () => readSample(evaluator.registry.render(), "ragscope_messages_dead_lettered_total", { reason: "unreadable" }) === 1, { description: "the unkeyed logs message dead-lettered", timeoutMs: 60_000, intervalMs: 250 });
  });
});
