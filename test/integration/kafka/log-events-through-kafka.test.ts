/**
 * GenAI content sent as OpenTelemetry log records, through Kafka: `ragscope receive` (a real process) in front of a
 * real broker writes a trace's log events as one message keyed by its trace id on the spans' topic; an evaluator
 * (in-process, the evaluate role's code) reads the trace's spans and its events from the same partition, joins them,
 * and stores the Case Result (embedded chDB). The input is opentelemetry-instrumentation-openai-v2's older event path,
 * recorded (test/data/otel-genai-log-events/openai-v2-legacy.*): a chat span without messages, and beside it the
 * `gen_ai.choice` record whose body holds the answer. Sent logs first, as the Python SDK's batch processors do.
 *
 * The same records reach the evaluator two other ways, each for a trace of its own (the recording under another trace
 * id), and are republished by trace to meet their spans:
 * - a logs message of receive's format that another producer wrote without a key;
 * - an OpenTelemetry Collector's Kafka exporter output: the logs request unkeyed on its logs topic (`otlp_logs`,
 *   `RAGSCOPE_KAFKA_LOGS_TOPIC`), with a log line outside any span beside the records, and the spans unkeyed on the
 *   spans' topic; the tenant is the resources' `ragscope.tenant.authenticated`, as the Collector carries it.
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
  let logsTopic: string;

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
    store = await temporaryStore();
    topic = await createUniqueTopic(kafka, { prefix: "log-events", partitions: 2 });
    logsTopic = await createUniqueTopic(kafka, { prefix: "collector-logs", partitions: 2 });
    receiver = await startCollectorProcess("receiver", "receive", ["--kafka-brokers", cluster.brokers, "--topic", topic, "--port", "0"]);
    evaluator = await startInProcessEvaluator(
      evaluatorConfig({
        "kafka.brokers": cluster.brokers,
        "kafka.topic": topic,
        "kafka.deadLetterTopic": `${topic}-dead-letters`,
        "kafka.logsTopic": logsTopic,
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

  /** The recording as trace `traceId`, moved to the last minute; `tenant` set on every resource, as a Collector's processor would. */
  async function recordedAs(traceId: string, tenant: string | null): Promise<{ traces: Json; logs: Json }> {
    const rename = (text: string) => {
      const json = JSON.parse(text.replaceAll(RECORDED_TRACE_ID, traceId)) as { resourceSpans?: { resource: { attributes: Json[] } }[]; resourceLogs?: { resource: { attributes: Json[] } }[] };
      for (const resource of [...(json.resourceSpans ?? []), ...(json.resourceLogs ?? [])]) {
        if (tenant !== null) resource.resource.attributes.push({ key: "ragscope.tenant.authenticated", value: { stringValue: tenant } });
      }
      return json as unknown as Json;
    };
    const traces = rename(await recording("openai-v2-legacy.traces.otlp.json"));
    const logs = rename(await recording("openai-v2-legacy.logs.otlp.json"));
    const shift = shiftToStartAt(traces, Date.now() - 60_000);
    return { traces: shifted(traces, shift), logs: shifted(logs, shift) };
  }

  async function produce(messages: { topic: string; value: string; headers?: Record<string, string> }[]): Promise<void> {
    const producer = createTestProducer(kafka, { allowAutoTopicCreation: false });
    await producer.connect();
    try {
      for (const message of messages) await producer.send({ topic: message.topic, acks: -1, messages: [{ value: Buffer.from(message.value), partition: 1, headers: message.headers ?? {} }] });
    } finally {
      await producer.disconnect();
    }
  }

  async function storedResult(traceId: string): Promise<CaseResult> {
    const connection = evaluator.role.store.connection;
    const stored = async () => (await queryRows<{ payload: string }>(connection, "SELECT payload FROM {{database}}.case_results FINAL WHERE trace_id = {traceId:String}", { traceId })).map((row) => JSON.parse(row.payload) as CaseResult);
    await waitUntil(async () => (await stored()).length === 1, { description: `trace ${traceId} stored`, timeoutMs: 60_000, intervalMs: 250 });
    return (await stored())[0]!;
  }

  test("a logs message of receive's format without a key (another producer's) is republished by trace and joined", async () => {
    const traceId = "00001010000000000000000000000002";
    const { traces, logs } = await recordedAs(traceId, null);
    const before = readSample(evaluator.registry.render(), "ragscope_log_events_repartitioned_total") ?? 0;
    await produce([
      { topic, value: JSON.stringify(logs), headers: { "ragscope.signal": "logs", "content-type": "application/json" } },
      { topic, value: JSON.stringify(traces), headers: { "content-type": "application/json" } },
    ]);
    const result = await storedResult(traceId);
    assert.equal(result.output, fakeAnswer, "the choice record, republished to the trace's partition and joined");
    assert.equal(readSample(evaluator.registry.render(), "ragscope_log_events_repartitioned_total")! - before, 3);
    assert.equal(readSample(evaluator.registry.render(), "ragscope_messages_dead_lettered_total", { reason: "unreadable" }), 0);
  });

  test("an OpenTelemetry Collector's logs topic: the events republished by trace to the spans' topic and joined, within the resources' tenant; log lines counted", async () => {
    const traceId = "00001010000000000000000000000003";
    const { traces, logs } = await recordedAs(traceId, "acme");
    // A log line of the same service outside any span, in the same request, as a Collector batches them.
    const logsRequest = logs as { resourceLogs: { scopeLogs: { logRecords: Json[] }[] }[] };
    logsRequest.resourceLogs[0]!.scopeLogs[0]!.logRecords.push({ timeUnixNano: String(BigInt(Date.now()) * 1_000_000n), severityText: "INFO", body: { stringValue: "policy assistant ready" } });
    const before = readSample(evaluator.registry.render(), "ragscope_log_events_repartitioned_total") ?? 0;
    // No headers, no key: the Collector's exporter (otlp_json) without partitioning.
    await produce([
      { topic: logsTopic, value: JSON.stringify(logsRequest) },
      { topic, value: JSON.stringify(traces) },
    ]);
    const result = await storedResult(traceId);
    assert.equal(result.output, fakeAnswer, "the choice record from the logs topic, joined to the chat span");
    const tenants = await queryRows<{ tenant_id: string }>(evaluator.role.store.connection, "SELECT tenant_id FROM {{database}}.case_results FINAL WHERE trace_id = {traceId:String}", { traceId });
    assert.deepEqual(tenants, [{ tenant_id: "acme" }], "the spans' and the records' tenant, from their resources");
    const metrics = evaluator.registry.render();
    assert.equal(readSample(metrics, "ragscope_log_events_repartitioned_total")! - before, 3);
    assert.equal(readSample(metrics, "ragscope_log_records_left_out_total", { role: "evaluator", reason: "without_span" }), 1, "the log line outside any span");
  });

  test("without the logs topic the same Collector output leaves the answer not available", async () => {
    const traceId = "00001010000000000000000000000004";
    const { traces, logs } = await recordedAs(traceId, null);
    // A topic no evaluator reads stands for the Collector's logs topic when RAGSCOPE_KAFKA_LOGS_TOPIC is unset.
    const unread = await createUniqueTopic(kafka, { prefix: "unread-logs", partitions: 2 });
    await produce([
      { topic: unread, value: JSON.stringify(logs) },
      { topic, value: JSON.stringify(traces) },
    ]);
    const result = await storedResult(traceId);
    assert.equal(result.output, null, "no record joined: the answer was not recorded on the spans");
  });
});
