/**
 * Records what the real OpenTelemetry Collector's Kafka exporter writes to
 * Kafka for traces and for logs (see README.md beside this file).
 *
 * Run from the repository root, after building the collector (README.md):
 *
 *   bash test/kafka-broker/fetch-jars.sh
 *   node --import tsx test/data/otel-collector-kafka/record.ts
 *
 * For each of four runs (otlp_json / otlp_proto × partitioning off / on) it
 * creates a traces topic and a logs topic with 3 partitions, starts the
 * collector (RAGSCOPE_OTELCOL, default /tmp/ragscope-otelcol) with the run's
 * config, POSTs one OTLP/JSON traces request and one OTLP/JSON logs request
 * (two traces, plus one log record outside any span), waits until the topics
 * stop growing, stops the collector, reads every message back and writes
 * <run>.messages.json and <run>.collector.yaml here. The YAML is the exact file
 * the collector ran: the broker, topics and OTLP/HTTP endpoint come in through
 * ${env:...} placeholders.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type { IHeaders, Kafka } from "kafkajs";
import { createTestKafkaClient } from "../../support/kafka-client.js";
import { ensureKafkaForTests } from "../../support/kafka-for-tests.js";
import { reserveFreePorts } from "../../support/kafka-free-ports.js";
import { consumeMessages, createUniqueTopic, waitUntil } from "../../support/kafka-helpers.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const inputs = path.join(here, "..", "otel-genai-log-events");
const collectorBinary = process.env.RAGSCOPE_OTELCOL ?? "/tmp/ragscope-otelcol";

const TRACE_1 = "00001010000000000000000000000001";
const TRACE_2 = "00001010000000000000000000000002";

type Encoding = "otlp_json" | "otlp_proto";
interface Run {
  readonly encoding: Encoding;
  readonly partitioned: boolean;
}
const runs: readonly Run[] = [
  { encoding: "otlp_json", partitioned: false },
  { encoding: "otlp_json", partitioned: true },
  { encoding: "otlp_proto", partitioned: false },
  { encoding: "otlp_proto", partitioned: true },
];
const runName = (run: Run): string => `${run.encoding.replace("otlp_", "")}-${run.partitioned ? "partitioned" : "unpartitioned"}`;

interface RecordedMessage {
  readonly topic: "traces" | "logs";
  readonly partition: number;
  readonly key: string | null;
  readonly headers: Record<string, string>;
  readonly valueBase64: string;
}

// ---------------------------------------------------------------- inputs

/** Both traces' spans in one request, both traces' logs (plus "service ready") in another. */
async function buildInputs(): Promise<{ traces: string; logs: string }> {
  const tracesText = await readFile(path.join(inputs, "openai-v2-legacy.traces.otlp.json"), "utf8");
  const logsText = await readFile(path.join(inputs, "openai-v2-legacy.logs.otlp.json"), "utf8");
  if (!tracesText.includes(TRACE_1) || !logsText.includes(TRACE_1)) throw new Error(`inputs no longer carry trace ${TRACE_1}`);
  const secondCopy = (text: string): string => text.replaceAll(TRACE_1, TRACE_2);

  const traces1 = JSON.parse(tracesText) as { resourceSpans: unknown[] };
  const traces2 = JSON.parse(secondCopy(tracesText)) as { resourceSpans: unknown[] };
  const traces = { resourceSpans: [...traces1.resourceSpans, ...traces2.resourceSpans] };

  type LogsDocument = { resourceLogs: { scopeLogs: { logRecords: Record<string, unknown>[] }[] }[] };
  const logs1 = JSON.parse(logsText) as LogsDocument;
  const logs2 = JSON.parse(secondCopy(logsText)) as LogsDocument;
  // One record outside any span: no traceId, no spanId. It goes at the end of
  // the first copy's scope, beside trace 1's records (same resource and scope).
  const firstScope = logs1.resourceLogs[0]?.scopeLogs[0];
  if (firstScope === undefined) throw new Error("logs input has no scopeLogs");
  firstScope.logRecords.push({
    timeUnixNano: "1796526874600000000",
    observedTimeUnixNano: "1796526874600000000",
    severityNumber: 9,
    severityText: "INFO",
    body: { stringValue: "service ready" },
  });
  const logs = { resourceLogs: [...logs1.resourceLogs, ...logs2.resourceLogs] };
  return { traces: JSON.stringify(traces), logs: JSON.stringify(logs) };
}

// ---------------------------------------------------------------- collector

function collectorYaml(run: Run): string {
  const partitioning = run.partitioned ? ["    partition_traces_by_id: true", "    partition_logs_by_trace_id: true"] : [];
  return [
    `# Collector config of the ${runName(run)} run (test/data/otel-collector-kafka/record.ts).`,
    "# record.ts sets KAFKA_BROKERS, TRACES_TOPIC, LOGS_TOPIC and OTLP_HTTP_ENDPOINT in the collector's environment.",
    "receivers:",
    "  otlp:",
    "    protocols:",
    "      http:",
    "        endpoint: ${env:OTLP_HTTP_ENDPOINT}",
    "processors:",
    "  batch:",
    "    timeout: 200ms",
    "exporters:",
    "  kafka:",
    "    brokers:",
    "      - ${env:KAFKA_BROKERS}",
    "    traces:",
    "      topic: ${env:TRACES_TOPIC}",
    `      encoding: ${run.encoding}`,
    "    logs:",
    "      topic: ${env:LOGS_TOPIC}",
    `      encoding: ${run.encoding}`,
    ...partitioning,
    "service:",
    "  telemetry:",
    "    metrics:",
    "      level: none",
    "  pipelines:",
    "    traces:",
    "      receivers: [otlp]",
    "      processors: [batch]",
    "      exporters: [kafka]",
    "    logs:",
    "      receivers: [otlp]",
    "      processors: [batch]",
    "      exporters: [kafka]",
    "",
  ].join("\n");
}

interface RunningCollector {
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

function startCollector(configPath: string, environment: Record<string, string>): RunningCollector {
  const child = spawn(collectorBinary, ["--config", configPath], {
    env: { ...process.env, ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout?.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  const exited = once(child, "exit");
  return {
    child,
    output: () => text,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const stopped = await Promise.race([exited.then(() => true), delay(15_000).then(() => false)]);
      if (!stopped) {
        child.kill("SIGKILL");
        await exited;
      }
    },
  };
}

async function waitForHttp(url: string, collector: RunningCollector): Promise<void> {
  await waitUntil(
    async () => {
      if (collector.child.exitCode !== null) throw new Error(`collector exited with ${collector.child.exitCode}:\n${collector.output()}`);
      await fetch(url, { signal: AbortSignal.timeout(1_000) }); // any HTTP answer means the port is served
      return true;
    },
    { description: `the collector's OTLP/HTTP port at ${url}`, timeoutMs: 30_000, intervalMs: 200 },
  );
}

async function post(url: string, body: string): Promise<void> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  const answer = await response.text();
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${answer}`);
}

// ---------------------------------------------------------------- kafka

async function totalOffsets(kafka: Kafka, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((sum, partition) => sum + Number(partition.high) - Number(partition.low), 0);
  } finally {
    await admin.disconnect();
  }
}

/** Waits until both topics hold something and their sizes have not changed for `quietMs`. */
async function waitForQuietTopics(kafka: Kafka, topics: readonly string[], quietMs = 2_000): Promise<void> {
  let last = "";
  let since = Date.now();
  await waitUntil(
    async () => {
      const sizes = await Promise.all(topics.map((topic) => totalOffsets(kafka, topic)));
      const now = sizes.join(",");
      if (now !== last) {
        last = now;
        since = Date.now();
        return false;
      }
      return sizes.every((size) => size > 0) && Date.now() - since >= quietMs;
    },
    { description: `messages on ${topics.join(" and ")}`, timeoutMs: 60_000, intervalMs: 250 },
  );
}

function headerText(value: IHeaders[string]): string {
  if (value === undefined) return "";
  if (Array.isArray(value)) return value.map((item) => item.toString()).join(",");
  return value.toString();
}

async function readTopic(kafka: Kafka, topic: string, label: RecordedMessage["topic"]): Promise<RecordedMessage[]> {
  const expected = await totalOffsets(kafka, topic);
  const consumed = await consumeMessages(kafka, {
    topic,
    groupId: `${topic}-reader`,
    until: (received) => received.length >= expected,
    timeoutMs: 60_000,
  });
  if (consumed.length !== expected) throw new Error(`${topic}: read ${consumed.length} messages, the topic holds ${expected}`);
  return consumed
    .sort((left, right) => left.partition - right.partition || Number(left.offset) - Number(right.offset))
    .map((message) => ({
      topic: label,
      partition: message.partition,
      // The helper decodes keys as UTF-8; the exporter's keys are hex trace ids (ASCII), so that equals latin1.
      key: message.key ?? null,
      headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, headerText(value)])),
      valueBase64: (message.valueBytes ?? Buffer.alloc(0)).toString("base64"),
    }));
}

/** By topic, partition, key (absent first); ties keep their offset order (the sort is stable). */
function sortMessages(messages: RecordedMessage[]): RecordedMessage[] {
  const topicOrder = { traces: 0, logs: 1 } as const;
  return [...messages].sort(
    (left, right) =>
      topicOrder[left.topic] - topicOrder[right.topic] ||
      left.partition - right.partition ||
      (left.key === right.key ? 0 : left.key === null ? -1 : right.key === null ? 1 : left.key < right.key ? -1 : 1),
  );
}

// ---------------------------------------------------------------- verification

/** Reads a protobuf message's fields: number → list of (varint or bytes). Enough for OTLP. */
function protobufFields(bytes: Buffer): Map<number, (bigint | Buffer)[]> {
  const fields = new Map<number, (bigint | Buffer)[]>();
  let at = 0;
  const readVarint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error("truncated varint");
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < bytes.length) {
    const tag = Number(readVarint());
    const number = tag >>> 3;
    const wireType = tag & 7;
    let value: bigint | Buffer;
    if (wireType === 0) value = readVarint();
    else if (wireType === 1) (value = bytes.subarray(at, at + 8)), (at += 8);
    else if (wireType === 5) (value = bytes.subarray(at, at + 4)), (at += 4);
    else if (wireType === 2) {
      const length = Number(readVarint());
      value = bytes.subarray(at, at + length);
      at += length;
    } else throw new Error(`unexpected wire type ${wireType}`);
    fields.set(number, [...(fields.get(number) ?? []), value]);
  }
  return fields;
}
const submessages = (bytes: Buffer, number: number): Buffer[] => (protobufFields(bytes).get(number) ?? []).filter((value): value is Buffer => Buffer.isBuffer(value));

/** The trace id (hex, "" when absent) of every span or log record in one message value. */
function itemTraceIds(message: RecordedMessage, encoding: Encoding): string[] {
  const value = Buffer.from(message.valueBase64, "base64");
  if (encoding === "otlp_json") {
    const document = JSON.parse(value.toString("utf8")) as Record<string, { scopeSpans?: { spans: { traceId?: string }[] }[]; scopeLogs?: { logRecords: { traceId?: string }[] }[] }[]>;
    const top = message.topic === "traces" ? "resourceSpans" : "resourceLogs";
    if (Object.keys(document).join() !== top) throw new Error(`${message.topic} JSON value has top-level keys ${Object.keys(document).join()}, expected ${top}`);
    return (document[top] ?? []).flatMap((resource) =>
      message.topic === "traces"
        ? (resource.scopeSpans ?? []).flatMap((scope) => scope.spans.map((span) => span.traceId ?? ""))
        : (resource.scopeLogs ?? []).flatMap((scope) => scope.logRecords.map((record) => record.traceId ?? "")),
    );
  }
  // ExportTraceServiceRequest.resource_spans(1).scope_spans(2).spans(2).trace_id(1);
  // ExportLogsServiceRequest.resource_logs(1).scope_logs(2).log_records(2).trace_id(9).
  const traceIdField = message.topic === "traces" ? 1 : 9;
  return submessages(value, 1).flatMap((resource) =>
    submessages(resource, 2).flatMap((scope) =>
      submessages(scope, 2).map((item) => {
        const id = submessages(item, traceIdField)[0];
        return id === undefined ? "" : id.toString("hex");
      }),
    ),
  );
}

interface RunSummary {
  readonly lines: string[];
}

function verify(run: Run, messages: readonly RecordedMessage[]): RunSummary {
  const lines: string[] = [];
  for (const topic of ["traces", "logs"] as const) {
    const ofTopic = messages.filter((message) => message.topic === topic);
    const ids = ofTopic.flatMap((message) => itemTraceIds(message, run.encoding));
    const count = (id: string): number => ids.filter((each) => each === id).length;
    const expected = topic === "traces" ? { [TRACE_1]: 1, [TRACE_2]: 1, "": 0 } : { [TRACE_1]: 3, [TRACE_2]: 3, "": 1 };
    for (const [id, want] of Object.entries(expected)) {
      if (count(id) !== want) throw new Error(`${runName(run)} ${topic}: ${count(id)} items with trace id "${id}", expected ${want}`);
    }
    if (ids.length !== Object.values(expected).reduce((sum, each) => sum + each, 0)) throw new Error(`${runName(run)} ${topic}: unexpected items ${ids.join()}`);
    lines.push(`${topic}: ${ofTopic.length} message(s)`);
    for (const message of ofTopic) {
      const itemIds = itemTraceIds(message, run.encoding);
      const perTrace = [...new Set(itemIds)].map((id) => `${id === "" ? "(no trace id)" : id}×${itemIds.filter((each) => each === id).length}`).join(", ");
      const headers = Object.keys(message.headers).length === 0 ? "no headers" : `headers ${JSON.stringify(message.headers)}`;
      lines.push(`  partition ${message.partition}, key ${message.key === null ? "absent" : JSON.stringify(message.key)}, ${headers}, ${Buffer.from(message.valueBase64, "base64").length} bytes: ${perTrace}`);
    }
  }
  return { lines };
}

// ---------------------------------------------------------------- main

async function recordRun(run: Run, kafka: Kafka, brokers: string, body: { traces: string; logs: string }, workDir: string): Promise<RunSummary> {
  const name = runName(run);
  const tracesTopic = await createUniqueTopic(kafka, { prefix: `otelcol-${name}-traces`, partitions: 3 });
  const logsTopic = await createUniqueTopic(kafka, { prefix: `otelcol-${name}-logs`, partitions: 3 });
  const yaml = collectorYaml(run);
  const configPath = path.join(workDir, `${name}.collector.yaml`);
  await writeFile(configPath, yaml);
  await writeFile(path.join(here, `${name}.collector.yaml`), yaml);

  const [httpPort] = await reserveFreePorts(1);
  const endpoint = `127.0.0.1:${httpPort}`;
  const collector = startCollector(configPath, {
    KAFKA_BROKERS: brokers.split(",")[0] ?? brokers,
    TRACES_TOPIC: tracesTopic,
    LOGS_TOPIC: logsTopic,
    OTLP_HTTP_ENDPOINT: endpoint,
  });
  try {
    await waitForHttp(`http://${endpoint}/`, collector);
    await post(`http://${endpoint}/v1/traces`, body.traces);
    await post(`http://${endpoint}/v1/logs`, body.logs);
    await waitForQuietTopics(kafka, [tracesTopic, logsTopic]);
  } catch (error) {
    console.error(`collector output of ${name}:\n${collector.output()}`);
    throw error;
  } finally {
    await collector.stop();
  }
  await writeFile(path.join(workDir, `${name}.collector.log`), collector.output());

  const messages = sortMessages([...(await readTopic(kafka, tracesTopic, "traces")), ...(await readTopic(kafka, logsTopic, "logs"))]);
  await writeFile(path.join(here, `${name}.messages.json`), `${JSON.stringify(messages, null, 2)}\n`);
  return verify(run, messages);
}

async function main(): Promise<void> {
  const body = await buildInputs();
  const workDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-otelcol-record-"));
  const cluster = await ensureKafkaForTests();
  try {
    const kafka = createTestKafkaClient(cluster.brokers.split(","));
    for (const run of runs) {
      const summary = await recordRun(run, kafka, cluster.brokers, body, workDir);
      console.log(`== ${runName(run)}\n${summary.lines.join("\n")}`);
    }
    console.log(`collector logs kept in ${workDir}`);
  } finally {
    await cluster.stop();
  }
}

await main();
