/**
 * What a real OpenTelemetry Collector's Kafka exporter wrote (collector v0.165.0, kafkaexporter v0.165.1; recorded by
 * test/data/otel-collector-kafka/record.ts, see its README): opentelemetry-instrumentation-openai-v2's older event
 * path for two traces, the chat spans on the traces topic and the `gen_ai.choice` records beside them on the logs topic,
 * with one log line outside any span — unkeyed (many traces a message), and partitioned by trace id
 * (`partition_traces_by_id`, `partition_logs_by_trace_id`). Produced again as recorded (keys, partitions, values; the
 * OTLP/JSON recordings' times moved to the last minute), two evaluator members read the spans topic and the logs
 * topic (`kafka.logsTopic`), and every trace's answer is its choice record's — joined although the logs topic's
 * partitions are assigned apart from the spans topic's; also with a separate repartition topic, where the spans and
 * the records both go before they are assembled. Every topic read is committed to its end. The protobuf recordings
 * route to the same events and spans as the JSON ones. And `ragscope evaluate --logs-topic`, run as a process, does
 * the same into its data folder. Worked from the scenario (its scripted answer), not from ragscope's output.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Kafka } from "kafkajs";
import type { CaseResult } from "../../../contracts/case-result.js";
import { routeMessage, type MessageRoute } from "../../../collector/02-transport/kafka/route-message.js";
import { spanChecksAt } from "../../../collector/02-transport/kafka/screen-consumed-spans.js";
import { spanCheckSettings } from "../../../collector/wiring/run/kafka-evaluator-role.js";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { createTestKafkaClient, createTestProducer } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { createUniqueTopic, uniqueTopicName, waitForCommitsAtEnd, waitUntil } from "../../support/kafka-helpers.js";
import { shifted, shiftToStartAt, type Json } from "../../support/shift-recorded-times.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { fakeAnswer } from "../../golden/scenarios/policy-corpus.js";
import { evaluatorConfig, startInProcessEvaluator, type InProcessEvaluator } from "./support/in-process-evaluators.js";
import { killAllCollectorProcesses, startCollectorProcess } from "./support/collector-processes.js";
import { spawnSync } from "node:child_process";
import { projectRoot } from "../../../dashboards/source/generated-files.js";

const TRACE_IDS = ["00001010000000000000000000000001", "00001010000000000000000000000002"];
const partitions = 3;

interface RecordedMessage {
  topic: "traces" | "logs";
  partition: number;
  key: string | null;
  headers: Record<string, string>;
  valueBase64: string;
}

type Run = "json-unpartitioned" | "json-partitioned" | "proto-unpartitioned" | "proto-partitioned";

async function recorded(run: Run): Promise<RecordedMessage[]> {
  return JSON.parse(await readFile(fileURLToPath(new URL(`../../data/otel-collector-kafka/${run}.messages.json`, import.meta.url)), "utf8")) as RecordedMessage[];
}

/** The stored Case Results of the data folder named by the first argument, as JSON on stdout. */
const READ_CASE_RESULTS = [
  'import { openClickHouse } from "./store/clickhouse/clickhouse-connection.ts";',
  'import { queryRows } from "./test/support/temporary-store.ts";',
  'const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: process.argv[1] });',
  'process.stdout.write(JSON.stringify(await queryRows(connection, "SELECT trace_id, payload FROM {{database}}.case_results FINAL ORDER BY trace_id")));',
  "await connection.close();",
].join("\n");

const value = (message: RecordedMessage) => Buffer.from(message.valueBase64, "base64");

/** The JSON recordings' values with every time moved by one shift, so that the earliest span starts a minute ago. */
function movedToNow(messages: RecordedMessage[]): { message: RecordedMessage; value: Buffer }[] {
  const parsed = messages.map((message) => ({ message, json: JSON.parse(value(message).toString("utf8")) as Json }));
  const shift = shiftToStartAt(
    parsed.filter(({ message }) => message.topic === "traces").map(({ json }) => json),
    Date.now() - 60_000,
  );
  return parsed.map(({ message, json }) => ({ message, value: Buffer.from(JSON.stringify(shifted(json, shift))) }));
}

describe("a real OpenTelemetry Collector's Kafka output, traces and logs", () => {
  let cluster: KafkaForTests;
  let kafka: Kafka;
  let store: TemporaryStore;

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
    store = await temporaryStore({ migrate: false });
  });

  after(async () => {
    await store?.cleanup();
    await cluster?.stop();
  });

  const scenarios = [
    { run: "json-unpartitioned", repartitionTopic: false },
    { run: "json-partitioned", repartitionTopic: false },
    { run: "json-unpartitioned", repartitionTopic: true },
  ] as const;
  for (const { run, repartitionTopic } of scenarios) {
    const title = `${run}${repartitionTopic ? ", with a separate repartition topic" : ""}: two evaluators join each trace's choice record from the logs topic to its chat span, and commit every topic to its end`;
    test(title, async () => {
      const name = `${run}${repartitionTopic ? "-rep" : ""}`;
      const spansTopic = await createUniqueTopic(kafka, { prefix: `${name}-spans`, partitions });
      const logsTopic = await createUniqueTopic(kafka, { prefix: `${name}-logs`, partitions });
      const repartitioned = repartitionTopic ? await createUniqueTopic(kafka, { prefix: `${name}-repartitioned`, partitions }) : null;
      const groupId = uniqueTopicName(`${name}-group`);
      const config = evaluatorConfig({
        "kafka.brokers": cluster.brokers,
        "kafka.topic": spansTopic,
        "kafka.logsTopic": logsTopic,
        "kafka.repartitionTopic": repartitioned,
        "kafka.deadLetterTopic": `${spansTopic}-dead-letters`,
        "kafka.groupId": groupId,
        "clickhouse.dataPath": store.dataPath,
        "clickhouse.database": `collector_${name.replace(/-/g, "_")}_${Date.now().toString(36)}`,
      });
      const members: InProcessEvaluator[] = [await startInProcessEvaluator(config), await startInProcessEvaluator(config)];
      try {
        await waitUntil(() => members.every((member) => member.role.runner.ready), { description: "both members to join", timeoutMs: 30_000 });
        const producer = createTestProducer(kafka, { allowAutoTopicCreation: false });
        await producer.connect();
        try {
          // Logs first: the Collector's two pipelines export independently, and the records may come before the spans.
          const messages = movedToNow(await recorded(run)).sort((one, other) => (one.message.topic === other.message.topic ? 0 : one.message.topic === "logs" ? -1 : 1));
          for (const { message, value: bytes } of messages) {
            await producer.send({ topic: message.topic === "logs" ? logsTopic : spansTopic, acks: -1, messages: [{ key: message.key, value: bytes, partition: message.partition, headers: message.headers }] });
          }
        } finally {
          await producer.disconnect();
        }
        const connection = members[0]!.role.store.connection;
        const stored = async () => (await queryRows<{ payload: string }>(connection, "SELECT payload FROM {{database}}.case_results FINAL ORDER BY trace_id")).map((row) => JSON.parse(row.payload) as CaseResult);
        await waitUntil(async () => (await stored()).length === 2, { description: `both traces stored (${name})`, timeoutMs: 60_000, intervalMs: 250 });
        const results = await stored();
        assert.deepEqual(
          results.map((result) => [result.trace_id, result.output]),
          TRACE_IDS.map((traceId) => [traceId, fakeAnswer]),
          "each trace's answer is its gen_ai.choice record's",
        );
        // Every topic read is committed to its end: the logs topic's (and the input topic's, beside a repartition topic)
        // once its republished messages were acknowledged, the assembled topic's once the results were stored.
        for (const topic of [spansTopic, logsTopic, ...(repartitioned === null ? [] : [repartitioned])]) await waitForCommitsAtEnd(kafka, groupId, topic);
        const total = (metric: string, labels?: Record<string, string>) => members.reduce((sum, member) => sum + (readSample(member.registry.render(), metric, labels) ?? 0), 0);
        // At least: a rebalance while the messages are read replays them (at-least-once), and counts them again.
        assert.ok(total("ragscope_log_events_repartitioned_total") >= 6, "three records of each trace, republished to its partition of the assembled topic");
        assert.ok(total("ragscope_log_events_total", { outcome: "joined" }) >= 6);
        assert.ok(total("ragscope_log_records_left_out_total", { role: "evaluator", reason: "without_span" }) >= 1, "the log line outside any span");
        assert.equal(total("ragscope_log_records_left_out_total", { role: "evaluator", reason: "without_event_name" }), 0);
        assert.equal(total("ragscope_messages_dead_lettered_total", { reason: "undecodable" }), 0);
        if (run === "json-partitioned" && !repartitionTopic) {
          // The Collector's keyed span messages sit where ragscope's own hash puts their trace ids: assembled in place.
          assert.equal(total("ragscope_traces_repartitioned_total"), 0);
        } else assert.ok(total("ragscope_traces_repartitioned_total") >= 2, "the unkeyed message's two traces, republished keyed");
      } finally {
        for (const member of members) await member.role.close();
      }
    });
  }

  test("ragscope evaluate --logs-topic, run as a process: the recorded Collector output evaluated into its data folder with each trace's answer", async () => {
    const spansTopic = await createUniqueTopic(kafka, { prefix: "process-spans", partitions });
    const logsTopic = await createUniqueTopic(kafka, { prefix: "process-logs", partitions });
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-collector-logs-"));
    try {
      const evaluator = await startCollectorProcess("evaluator", "evaluate", [
        "--data-dir", dataDir,
        "--kafka-brokers", cluster.brokers,
        "--topic", spansTopic,
        "--logs-topic", logsTopic,
        "--dead-letter-topic", `${spansTopic}-dead-letters`,
        "--group-id", uniqueTopicName("process-group"),
      ], { RAGSCOPE_QUIET_PERIOD_MS: "300" });
      await waitUntil(() => evaluator.ready(), { description: "evaluate ready", timeoutMs: 60_000, intervalMs: 200 });
      const producer = createTestProducer(kafka, { allowAutoTopicCreation: false });
      await producer.connect();
      try {
        for (const { message, value: bytes } of movedToNow(await recorded("json-unpartitioned"))) {
          await producer.send({ topic: message.topic === "logs" ? logsTopic : spansTopic, acks: -1, messages: [{ key: message.key, value: bytes, partition: message.partition, headers: message.headers }] });
        }
      } finally {
        await producer.disconnect();
      }
      await waitUntil(async () => ((await evaluator.sample("ragscope_traces_written_total")) ?? 0) >= 2, { description: "both traces written", timeoutMs: 60_000, intervalMs: 200 });
      assert.equal(await evaluator.sample("ragscope_log_events_repartitioned_total"), 6);
      assert.equal(await evaluator.kill("SIGTERM"), 0, evaluator.output.slice(-10).join("\n"));
      // Read in a process of its own: this one holds the embedded engine on another folder, and it opens one at a time.
      const read = spawnSync(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", READ_CASE_RESULTS, dataDir],
        { cwd: projectRoot, encoding: "utf8" },
      );
      assert.equal(read.status, 0, read.stderr);
      const rows = JSON.parse(read.stdout) as { trace_id: string; payload: string }[];
      assert.deepEqual(
        rows.map((row) => [row.trace_id, (JSON.parse(row.payload) as CaseResult).output]),
        TRACE_IDS.map((traceId) => [traceId, fakeAnswer]),
      );
    } finally {
      await killAllCollectorProcesses();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test("the protobuf recordings route to the same log events and spans as the JSON ones", async () => {
    const checks = spanChecksAt(spanCheckSettings(evaluatorConfig({})), Date.now());
    const routes = async (run: Run) =>
      (await recorded(run)).map((message): MessageRoute => routeMessage({ key: message.key === null ? null : Buffer.from(message.key, "latin1"), value: value(message), partition: message.partition, headers: message.headers }, { maxMessageBytes: 1_000_000, partitionOf: null, checks, logsTopic: message.topic === "logs" }));
    for (const partitioning of ["unpartitioned", "partitioned"] as const) {
      const [json, proto] = [await routes(`json-${partitioning}`), await routes(`proto-${partitioning}`)];
      assert.deepEqual(proto, json, partitioning);
      const logEvents = json.flatMap((route) => (route.kind === "repartition_log_events" ? route.groups.flat() : []));
      assert.deepEqual(logEvents.map((event) => event.traceId).sort(), [...TRACE_IDS, ...TRACE_IDS, ...TRACE_IDS].sort(), `${partitioning}: three records of each trace`);
      const spans = json.flatMap((route) => (route.kind === "repartition" ? [...route.traces.keys()] : []));
      assert.deepEqual(spans.sort(), TRACE_IDS, `${partitioning}: each trace's spans`);
    }
  });
});
