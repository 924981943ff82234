/**
 * Spans an OpenTelemetry Collector writes straight to the span topic never
 * meet the receiver, which refuses spans stamped more than
 * RAGSCOPE_MAX_FUTURE_SPAN_SECONDS after its clock, spans with all-zero
 * ids and spans with a zero (unset) start or end time, and cuts what one
 * span may carry. A span of year 2262 that reached the
 * store sat above every trace and stopped the UI's live list. `ragscope
 * evaluate` now holds the same line on what it reads: such spans are not
 * evaluated, they are dead-lettered with a reason a person can read and
 * counted on /metrics, and the spans around them are evaluated and stored.
 *
 * The evaluator is a process (bin/ragscope.js) against a real broker, fed as
 * the Collector's Kafka exporter writes: an unkeyed `otlp_proto` message of
 * several traces (no `partition_traces_by_id`), and an `otlp_json` message
 * keyed by its trace id in the partition the Collector's hash gives. Its
 * store is read once it stopped. Times are the real clock's plus or minus
 * days or centuries, so the outcome never depends on when the test runs.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Kafka } from "kafkajs";
import { decodeTraceRequest, encodeTraceRequest, encodeTraceRequestJson, toSpanRecords } from "../../../collector/00-otlp/index.js";
import type { KeyValue, SpanDocument, TracesDocument } from "../../../collector/00-otlp/traces-document.js";
import { deadLetterHeaders } from "../../../collector/02-transport/kafka/kafka-dead-letters.js";
import { saramaPartition } from "../../../collector/02-transport/kafka/sarama-partitioner.js";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { createTestKafkaClient, createTestProducer } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { consumeMessages, createUniqueTopic, uniqueTopicName, waitUntil, type ConsumedMessage } from "../../support/kafka-helpers.js";
import { queryRows } from "../../support/temporary-store.js";
import { killAllCollectorProcesses, startCollectorProcess } from "./support/collector-processes.js";

const partitions = 3;
const SECOND_NANOS = 1_000_000_000n;
const DAY_NANOS = 86_400n * SECOND_NANOS;
const YEAR_2262 = 9_200_000_000_000_000_000n;
/** Near the end of what an unsigned 64-bit count of nanoseconds holds (2554). */
const YEAR_2554 = 18_400_000_000_000_000_000n;
/** A week: a span two days ahead is within it (so the setting is read, not the default hour), 2262 is not. */
const ALLOWANCE_SECONDS = 7 * 86_400;
/** Longer than the default RAGSCOPE_MAX_ATTRIBUTE_KEY_BYTES (1024): the receiver drops such an attribute and lists it. */
const longKey = `collector.${"k".repeat(2_000)}`;
const SERVICE = "collector-direct";

const traceId = (index: number) => index.toString(16).padStart(32, "e");
const spanId = (trace: number, index: number) => ((trace << 8) + index + 1).toString(16).padStart(16, "f");
const ZERO_TRACE_ID = "0".repeat(32);
const ZERO_SPAN_ID = "0".repeat(16);
const text = (key: string, value: string): KeyValue => ({ key, value: { stringValue: value } });

function span(fields: { traceId: string; spanId: string; parentSpanId?: string; start: bigint; query?: string; attributes?: KeyValue[] }): SpanDocument {
  const root = fields.parentSpanId === undefined;
  return {
    traceId: fields.traceId,
    spanId: fields.spanId,
    traceState: "",
    parentSpanId: fields.parentSpanId ?? "",
    flags: 0,
    name: root ? "rag.request" : "rag.retrieve",
    kind: 1,
    startTimeUnixNano: fields.start,
    endTimeUnixNano: fields.start + SECOND_NANOS / 10n,
    attributes: [...(root ? [text("openinference.span.kind", "CHAIN"), text("input.value", fields.query ?? "")] : []), ...(fields.attributes ?? [])],
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: { message: "", code: 0 },
  };
}

/** One export of these spans from one service, as the Collector's exporter writes it. */
function exportOf(spans: SpanDocument[]): TracesDocument {
  return {
    resourceSpans: [
      {
        resource: { attributes: [text("service.name", SERVICE)], droppedAttributesCount: 0 },
        scopeSpans: [{ scope: { name: SERVICE, version: "1", attributes: [], droppedAttributesCount: 0 }, spans, schemaUrl: "" }],
        schemaUrl: "",
      },
    ],
  };
}

/** A Unix-nanosecond time as the evaluator writes it in a dead letter's detail. */
const isoOf = (nanos: bigint) => new Date(Number(nanos / 1_000_000n)).toISOString();
const header = (letter: ConsumedMessage, name: string) => letter.headers?.[name]?.toString();

/** The span ids a dead letter holds, its value read as the OTLP protobuf request it is. */
function letterSpanIds(letter: ConsumedMessage): string[] {
  assert.ok(letter.valueBytes !== undefined, "the letter holds the refused spans");
  const decoded = decodeTraceRequest(letter.valueBytes, "protobuf");
  assert.ok(decoded.ok, `the letter is an OTLP protobuf request: ${decoded.ok ? "" : decoded.error.message}`);
  return toSpanRecords(decoded.value).map((record) => record.spanId).sort();
}

describe("spans a Collector writes straight to Kafka meet the receiver's checks in the evaluator", () => {
  let cluster: KafkaForTests;
  let kafka: Kafka;
  let dataDir: string;

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
    dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-screened-"));
  });

  after(async () => {
    await killAllCollectorProcesses();
    await cluster?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  test("a trace of 2262, one of 2554, spans with all-zero ids and a span without an end time are dead-lettered with their reason and counted, not stored; the traces beside them are stored, an over-long key dropped and listed", async () => {
    const topic = await createUniqueTopic(kafka, { prefix: "screened", partitions });
    const deadLetterTopic = `${topic}-dead-letters`;
    const now = BigInt(Date.now()) * 1_000_000n;
    const root = (trace: number, start: bigint, query: string, attributes: KeyValue[] = []) => span({ traceId: traceId(trace), spanId: spanId(trace, 0), start, query, attributes });
    const current = root(1, now - SECOND_NANOS, "a request just made", [text(longKey, "dropped")]);
    const zeroSpanId = span({ traceId: traceId(1), spanId: ZERO_SPAN_ID, parentSpanId: spanId(1, 0), start: now - SECOND_NANOS });
    const zeroTraceId = span({ traceId: ZERO_TRACE_ID, spanId: spanId(2, 0), start: now - SECOND_NANOS, query: "no trace id" });
    const of2262 = root(3, YEAR_2262, "year 2262");
    const twoDaysAhead = root(4, now + 2n * DAY_NANOS, "two days ahead, within the allowance");
    const of2554 = root(5, YEAR_2554, "year 2554");
    const zeroEnd = { ...span({ traceId: traceId(1), spanId: spanId(1, 1), parentSpanId: spanId(1, 0), start: now - SECOND_NANOS }), endTimeUnixNano: 0n };

    const evaluator = await startCollectorProcess(
      "evaluator",
      "evaluate",
      [
        "--kafka-brokers", cluster.brokers,
        "--topic", topic,
        "--dead-letter-topic", deadLetterTopic,
        "--group-id", uniqueTopicName("screened-group"),
        "--data-dir", dataDir,
        "--quiet-period-ms", "300",
        "--session-timeout-ms", "6000",
        "--heartbeat-interval-ms", "1000",
        "--commit-interval-ms", "300",
        "--stop-timeout-ms", "20000",
      ],
      { RAGSCOPE_MAX_FUTURE_SPAN_SECONDS: String(ALLOWANCE_SECONDS) },
    );

    const producer = createTestProducer(kafka, { allowAutoTopicCreation: false });
    await producer.connect();
    try {
      await producer.send({
        topic,
        acks: -1,
        messages: [
          // Without partition_traces_by_id: one unkeyed otlp_proto message of every trace of the batch.
          { key: null, value: Buffer.from(encodeTraceRequest(exportOf([current, zeroSpanId, zeroTraceId, of2262, twoDaysAhead, zeroEnd]))), partition: 0 },
          // With it: otlp_json keyed by the lower-case hex trace id, in the partition the Collector's hash gives.
          { key: traceId(5), value: Buffer.from(encodeTraceRequestJson(exportOf([of2554]))), partition: saramaPartition(traceId(5), partitions) },
        ],
      });
    } finally {
      await producer.disconnect();
    }

    const metrics = await waitUntil(
      async () => {
        const text = await evaluator.metrics();
        const written = readSample(text, "ragscope_traces_written_total") ?? 0;
        const future = readSample(text, "ragscope_evaluator_spans_rejected_total", { reason: "future_time" }) ?? 0;
        const invalid = readSample(text, "ragscope_evaluator_spans_rejected_total", { reason: "invalid_id" }) ?? 0;
        const zeroTime = readSample(text, "ragscope_evaluator_spans_rejected_total", { reason: "zero_time" }) ?? 0;
        return written >= 2 && future >= 2 && invalid >= 2 && zeroTime >= 1 && text;
      },
      { description: "the two good traces written and the refused spans counted", timeoutMs: 60_000, intervalMs: 250 },
    );
    assert.equal(readSample(metrics, "ragscope_traces_written_total"), 2, "only the traces within the line are evaluated");
    assert.equal(readSample(metrics, "ragscope_evaluator_spans_rejected_total", { reason: "future_time" }), 2);
    assert.equal(readSample(metrics, "ragscope_evaluator_spans_rejected_total", { reason: "invalid_id" }), 2);
    assert.equal(readSample(metrics, "ragscope_messages_dead_lettered_total", { reason: "future_time" }), 2, "one letter per message that held such spans");
    assert.equal(readSample(metrics, "ragscope_messages_dead_lettered_total", { reason: "invalid_id" }), 1);
    assert.equal(readSample(metrics, "ragscope_evaluator_spans_rejected_total", { reason: "zero_time" }), 1);
    assert.equal(readSample(metrics, "ragscope_messages_dead_lettered_total", { reason: "zero_time" }), 1);
    assert.equal(readSample(metrics, "ragscope_evaluator_dropped_total", { item: "attribute" }), 1, "the over-long key is dropped and counted");

    const letters = await consumeMessages(kafka, { topic: deadLetterTopic, groupId: uniqueTopicName("screened-letters"), until: (received) => received.length >= 4 });
    assert.equal(letters.length, 4, "a letter per reason and message");
    const future = letters.filter((letter) => header(letter, deadLetterHeaders.reason) === "future_time");
    const invalid = letters.filter((letter) => header(letter, deadLetterHeaders.reason) === "invalid_id");
    const zeroTime = letters.filter((letter) => header(letter, deadLetterHeaders.reason) === "zero_time");
    assert.equal(future.length, 2);
    assert.equal(invalid.length, 1);
    assert.equal(zeroTime.length, 1);
    for (const letter of letters) {
      assert.equal(header(letter, deadLetterHeaders.sourceTopic), topic);
      assert.equal(header(letter, "content-type"), "application/x-protobuf");
    }
    const [from2262, from2554] = [...future].sort((left, right) => letterSpanIds(left)[0]!.localeCompare(letterSpanIds(right)[0]!));
    assert.deepEqual(letterSpanIds(from2262!), [spanId(3, 0)], "the letter holds exactly the refused span");
    assert.deepEqual(letterSpanIds(from2554!), [spanId(5, 0)]);
    assert.match(
      header(from2262!, deadLetterHeaders.detail) ?? "",
      new RegExp(`^1 span\\(s\\) starting or ending more than ${ALLOWANCE_SECONDS} s after the evaluator's clock \\(.*\\) were not evaluated, the latest at ${isoOf(YEAR_2262 + SECOND_NANOS / 10n)} \\(trace ${traceId(3)}\\).*Check the sending host's clock \\(NTP\\).*RAGSCOPE_MAX_FUTURE_SPAN_SECONDS`),
    );
    assert.ok(header(from2554!, deadLetterHeaders.detail)?.includes(`the latest at ${isoOf(YEAR_2554 + SECOND_NANOS / 10n)}`), header(from2554!, deadLetterHeaders.detail));
    assert.deepEqual(letterSpanIds(invalid[0]!), [spanId(2, 0), ZERO_SPAN_ID].sort());
    assert.match(header(invalid[0]!, deadLetterHeaders.detail) ?? "", /^2 span\(s\) with an all-zero trace or span id .* were not evaluated: .*merging unrelated requests into one Case Result/);
    assert.deepEqual(letterSpanIds(zeroTime[0]!), [spanId(1, 1)]);
    assert.match(header(zeroTime[0]!, deadLetterHeaders.detail) ?? "", new RegExp(`^1 span\\(s\\) with a zero \\(unset\\) start or end time, or one before 2000 \\(trace ${traceId(1)}\\), were not evaluated: OTLP requires both times, in Unix nanoseconds`));

    // The stop deadline given as a flag is the one the process keeps (RAGSCOPE_KAFKA_STOP_TIMEOUT_MS, --stop-timeout-ms).
    assert.equal(await evaluator.kill("SIGTERM"), 0, evaluator.output.slice(-10).join("\n"));
    assert.ok(
      evaluator.output.some((line) => line === "err ragscope evaluate: stopping (at most 20 s)"),
      evaluator.output.slice(-10).join("\n"),
    );
    // On stderr with the role's other lines, and its end said too.
    assert.ok(evaluator.output.includes("err ragscope evaluate: stopped"), evaluator.output.slice(-10).join("\n"));

    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const stored = await queryRows<{ trace_id: string }>(connection, "SELECT trace_id FROM {{database}}.case_results FINAL ORDER BY started_at DESC");
      assert.deepEqual(
        stored.map((row) => row.trace_id),
        [traceId(4), traceId(1)],
        "newest first: the trace two days ahead, then the one just made; nothing of 2262, 2554 or the all-zero ids",
      );
      const [spans] = await queryRows<{ spans: string }>(connection, "SELECT spans FROM {{database}}.trace_spans FINAL WHERE trace_id = {id:String}", { id: traceId(1) });
      const kept = JSON.parse(spans!.spans) as { span_id: string; attributes: Record<string, unknown> }[];
      assert.deepEqual(kept.map((entry) => entry.span_id), [spanId(1, 0)], "neither the span with an all-zero id nor the one without an end time is among its trace's spans");
      assert.ok(!(longKey in kept[0]!.attributes), "the over-long key is not stored");
      assert.match(JSON.stringify(kept[0]!.attributes["ragscope.dropped_attributes"]), /collector\.k+… \(2010 bytes\)/, "and its drop is listed on the span");
    } finally {
      await connection.close();
    }
  });
});
