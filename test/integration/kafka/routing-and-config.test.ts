/**
 * The pieces of the Kafka path that need no broker: the Collector-compatible
 * partitioner, message routing, backpressure decisions, offset commits, the
 * metrics exposition and the configuration's fix-it messages. (Kept beside
 * the broker tests they support; they start nothing.)
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { collectorSettings } from "../../../collector/wiring/config/settings-schema.js";
import { ProgressTracker } from "../../../collector/03-consume/progress-tracker.js";
import { canResume, pauseReason } from "../../../collector/03-consume/backpressure.js";
import { OffsetCommitter, type TopicPartitionOffset } from "../../../collector/02-transport/kafka/offset-committer.js";
import { repartitionedFromHeader, routeMessage } from "../../../collector/02-transport/kafka/route-message.js";
import { spanChecksAt } from "../../../collector/02-transport/kafka/screen-consumed-spans.js";
import { decodeTraceRequest, encodeTraceRequest, toSpanRecords } from "../../../collector/00-otlp/index.js";
import { spanCheckSettings } from "../../../collector/wiring/run/kafka-evaluator-role.js";
import { evaluatorConfig } from "./support/in-process-evaluators.js";
import { fnv1a32, saramaPartition } from "../../../collector/02-transport/kafka/sarama-partitioner.js";
import { MetricsRegistry, readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { otlpBody, recordTraces } from "./support/synthetic-traces.js";

describe("sarama-compatible partitioner", () => {
  test("FNV-1a 32 gives the reference test vectors", () => {
    // The FNV reference values (fnv1a32 of "", "a", "foobar").
    assert.equal(fnv1a32(Buffer.from("")), 0x811c9dc5);
    assert.equal(fnv1a32(Buffer.from("a")), 0xe40c292c);
    assert.equal(fnv1a32(Buffer.from("foobar")), 0xbf9cf968);
  });

  test("the partition is |int32(hash) % n|, as sarama and the Collector compute it", () => {
    // int32(0xbf9cf968) = -1080231576; -1080231576 % 7 = -4; % 10 = -6.
    assert.equal(saramaPartition("foobar", 7), 4);
    assert.equal(saramaPartition("foobar", 10), 6);
    // int32(0x811c9dc5) = -2128831035; % 2 = -1; % 7 = -2.
    assert.equal(saramaPartition(Buffer.alloc(0), 2), 1);
    assert.equal(saramaPartition(Buffer.alloc(0), 7), 2);
    assert.throws(() => saramaPartition("x", 0), RangeError);
  });
});

describe("routing a consumed message", async () => {
  const traces = await recordTraces(3);
  const [first, second] = traces;
  const partitionOf = (traceId: string) => saramaPartition(traceId, 3);
  const checkSettings = spanCheckSettings(evaluatorConfig({}));
  const options = { maxMessageBytes: 1_000_000, partitionOf, checks: spanChecksAt(checkSettings, Date.now()) };
  const single = Buffer.from(otlpBody(first!.spans, "protobuf"));

  test("a message keyed by its one trace, in that trace's partition, is assembled", () => {
    const route = routeMessage({ key: Buffer.from(first!.traceId), value: single, partition: partitionOf(first!.traceId) }, options);
    assert.equal(route.kind, "assemble");
    assert.ok(route.kind === "assemble" && route.spans.length === 5 && route.traceId === first!.traceId);
  });

  test("the same message in another partition, unkeyed, or keyed otherwise is repartitioned", () => {
    const elsewhere = (partitionOf(first!.traceId) + 1) % 3;
    for (const message of [
      { key: Buffer.from(first!.traceId), value: single, partition: elsewhere },
      { key: null, value: single, partition: partitionOf(first!.traceId) },
      { key: Buffer.from(second!.traceId), value: single, partition: partitionOf(second!.traceId) },
    ]) {
      const route = routeMessage(message, options);
      assert.equal(route.kind, "repartition");
      assert.ok(route.kind === "repartition" && route.traces.size === 1 && route.traces.has(first!.traceId));
    }
  });

  test("a message ragscope already repartitioned is assembled where it landed", () => {
    const elsewhere = (partitionOf(first!.traceId) + 1) % 3;
    const route = routeMessage({ key: Buffer.from(first!.traceId), value: single, partition: elsewhere, headers: { [repartitionedFromHeader]: Buffer.from("t/0/1") } }, options);
    assert.equal(route.kind, "assemble");
  });

  test("an unkeyed message of several traces, in either encoding, is split by trace id", () => {
    for (const encoding of ["protobuf", "json"] as const) {
      const value = Buffer.from(otlpBody(traces.flatMap((trace) => trace.spans), encoding));
      const route = routeMessage({ key: null, value, partition: 0 }, options);
      assert.ok(route.kind === "repartition");
      assert.deepEqual([...route.traces.keys()].sort(), traces.map((trace) => trace.traceId).sort());
      assert.equal(route.spanCount, 15);
    }
  });

  test("garbage is dead-lettered with a reason", () => {
    const json = Buffer.from(otlpBody(first!.spans, "json"));
    const cases: [Parameters<typeof routeMessage>[0], string][] = [
      [{ key: null, value: null, partition: 0 }, "no_value"],
      [{ key: null, value: Buffer.from([0xff, 0x01, 0x02]), partition: 0 }, "undecodable"],
      [{ key: null, value: Buffer.from('{"resourceSpans": 3}'), partition: 0 }, "undecodable"],
      [{ key: null, value: json, partition: 0, headers: { "content-type": Buffer.from("application/x-protobuf") } }, "wrong_encoding"],
      [{ key: null, value: single, partition: 0, headers: { "content-type": "text/csv" } }, "wrong_encoding"],
    ];
    for (const [message, reason] of cases) {
      const route = routeMessage(message, options);
      assert.equal(route.kind, "dead_letter");
      assert.ok(route.kind === "dead_letter" && route.reason === reason && route.detail.length > 0, reason);
    }
    const oversized = routeMessage({ key: null, value: single, partition: 0 }, { ...options, maxMessageBytes: 100 });
    assert.ok(oversized.kind === "dead_letter" && oversized.reason === "oversized" && oversized.detail.includes("RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES"));
  });

  test("spans past the allowance at the evaluator's (injected) clock are taken out and kept as an OTLP request of their own with the reason; at the recording's clock none are", () => {
    // The clock is injected: a day before the traces were recorded, with an allowance of an hour, every span is a day ahead.
    const dayBefore = spanChecksAt(checkSettings, Date.now() - 24 * 3_600_000);
    const both = Buffer.from(otlpBody([...first!.spans, ...second!.spans], "protobuf"));
    const future = routeMessage({ key: Buffer.from(first!.traceId), value: single, partition: partitionOf(first!.traceId) }, { ...options, checks: dayBefore });
    assert.equal(future.kind, "empty", "nothing is left to assemble");
    assert.ok(future.kind === "empty");
    assert.equal(future.screened.refused.length, 1);
    const [refused] = future.screened.refused;
    assert.equal(refused!.reason, "future_time");
    assert.equal(refused!.spans, 5);
    assert.match(refused!.detail, new RegExp(`^5 span\\(s\\) starting or ending more than 3600 s after the evaluator's clock .* \\(trace ${first!.traceId}\\).*RAGSCOPE_MAX_FUTURE_SPAN_SECONDS`));
    const letter = decodeTraceRequest(refused!.value, "protobuf");
    assert.ok(letter.ok);
    assert.deepEqual(toSpanRecords(letter.value).map((span) => span.spanId).sort(), first!.spans.map((span) => span.spanContext().spanId).sort(), "the letter holds exactly the refused spans");
    // At the clock of the recording, the same message is assembled, nothing refused.
    const now = routeMessage({ key: null, value: both, partition: 0 }, options);
    assert.ok(now.kind === "repartition" && now.spanCount === 10 && now.screened.refused.length === 0);
  });

  test("spans with a zero (unset) start or end time are taken out and kept as an OTLP request of their own with the reason zero_time; the trace's other spans are assembled", () => {
    const decoded = decodeTraceRequest(single, "protobuf");
    assert.ok(decoded.ok);
    const spans = decoded.value.resourceSpans.flatMap((resourceSpans) => resourceSpans.scopeSpans.flatMap((scopeSpans) => scopeSpans.spans));
    spans[0]!.startTimeUnixNano = 0n;
    spans[1]!.endTimeUnixNano = 0n;
    const zeroed = [spans[0]!.spanId, spans[1]!.spanId].sort();
    const value = Buffer.from(encodeTraceRequest(decoded.value));
    // Keyed by its trace on its partition: the message the direct reader takes, unless it declines.
    const route = routeMessage({ key: Buffer.from(first!.traceId), value, partition: partitionOf(first!.traceId) }, options);
    assert.equal(route.kind, "assemble");
    assert.ok(route.kind === "assemble");
    assert.equal(route.spans.length, 3, "the trace's timed spans are assembled");
    assert.deepEqual(route.screened.refused.map((refused) => [refused.reason, refused.spans]), [["zero_time", 2]]);
    const [refused] = route.screened.refused;
    assert.match(refused!.detail, new RegExp(`^2 span\\(s\\) with a zero \\(unset\\) start or end time, or one before 2000 \\(trace ${first!.traceId}\\), were not evaluated: OTLP requires both times, in Unix nanoseconds`));
    const letter = decodeTraceRequest(refused!.value, "protobuf");
    assert.ok(letter.ok);
    assert.deepEqual(toSpanRecords(letter.value).map((span) => span.spanId).sort(), zeroed, "the letter holds exactly the refused spans");
  });

  test("a topic that is never assembled repartitions even keyed messages", () => {
    const route = routeMessage({ key: Buffer.from(first!.traceId), value: single, partition: partitionOf(first!.traceId) }, { ...options, partitionOf: null });
    assert.equal(route.kind, "repartition");
  });
});

describe("backpressure", () => {
  const limits = { maxBufferedSpans: 1_000, maxHeapBytes: 100 };
  test("pauses for a sink backlog, full buffers, or a full heap while holding data", () => {
    assert.equal(pauseReason({ sinkBacklog: 1, openSpans: 0, heapUsedBytes: 0 }, limits), "sink_backlog");
    assert.equal(pauseReason({ sinkBacklog: 0, openSpans: 1_000, heapUsedBytes: 0 }, limits), "buffered_spans");
    assert.equal(pauseReason({ sinkBacklog: 0, openSpans: 10, heapUsedBytes: 90 }, limits), "heap");
    assert.equal(pauseReason({ sinkBacklog: 0, openSpans: 0, heapUsedBytes: 90 }, limits), null, "a heap of garbage alone is no reason to stop");
    assert.equal(pauseReason({ sinkBacklog: 0, openSpans: 999, heapUsedBytes: 84 }, limits), null);
  });
  test("resumes only once drained well below the bounds", () => {
    assert.equal(canResume({ sinkBacklog: 1, openSpans: 0, heapUsedBytes: 0 }, limits), false);
    assert.equal(canResume({ sinkBacklog: 0, openSpans: 600, heapUsedBytes: 0 }, limits), false);
    assert.equal(canResume({ sinkBacklog: 0, openSpans: 400, heapUsedBytes: 80 }, limits), false);
    assert.equal(canResume({ sinkBacklog: 0, openSpans: 400, heapUsedBytes: 60 }, limits), true);
    assert.equal(canResume({ sinkBacklog: 0, openSpans: 0, heapUsedBytes: 99 }, limits), true);
  });
});

describe("offset commits", () => {
  test("commit the oldest offset still feeding an open trace, only for assigned partitions, only when it moved", async () => {
    const progress = new ProgressTracker();
    const commits: TopicPartitionOffset[][] = [];
    let assigned = new Map([["spans", new Set([0, 1])]]);
    const committer = new OffsetCommitter({ sources: new Map([["spans", progress]]), assigned: () => assigned, commit: async (offsets) => void commits.push(offsets) });
    progress.received({ partition: 0, offset: "10" }, ["a"]);
    progress.received({ partition: 0, offset: "11" }, ["b"]);
    progress.received({ partition: 1, offset: "5" }, []);
    progress.received({ partition: 2, offset: "7" }, []);
    await committer.commit();
    assert.deepEqual(commits.at(-1), [
      { topic: "spans", partition: 0, offset: "10" },
      { topic: "spans", partition: 1, offset: "6" },
    ]);
    progress.durable("b");
    assert.equal(await committer.commit(), 0, "trace a still holds partition 0 at 10");
    progress.durable("a");
    await committer.commit();
    assert.deepEqual(commits.at(-1), [{ topic: "spans", partition: 0, offset: "12" }]);
    assigned = new Map([["spans", new Set([2])]]);
    committer.forgetAll();
    assert.equal(await committer.commit(), 0, "after a rebalance nothing is committed until the replay is seen again");
  });
});

describe("metrics exposition", () => {
  test("Prometheus text: HELP, TYPE, escaped labels, histograms; a name registered twice throws", () => {
    const registry = new MetricsRegistry();
    registry.counter("ragscope_test_total", "a test\\counter", () => [{ labels: { reason: 'say "hi"\n' }, value: 3 }]);
    registry.gauge("ragscope_test_gauge", "a gauge", () => 1.5);
    const histogram = registry.histogram("ragscope_test_seconds", "latency", [0.1, 1]);
    histogram.observe(0.05);
    histogram.observe(0.5);
    const text = registry.render();
    assert.match(text, /^# HELP ragscope_test_total a test\\\\counter$/m);
    assert.match(text, /^# TYPE ragscope_test_total counter$/m);
    assert.match(text, /^ragscope_test_total\{reason="say \\"hi\\"\\n"\} 3$/m);
    assert.equal(readSample(text, "ragscope_test_gauge"), 1.5);
    assert.equal(readSample(text, "ragscope_test_seconds_bucket", { le: "0.1" }), 1);
    assert.equal(readSample(text, "ragscope_test_seconds_bucket", { le: "+Inf" }), 2);
    assert.equal(readSample(text, "ragscope_test_seconds_count"), 2);
    assert.throws(() => registry.gauge("ragscope_test_gauge", "again", () => 0), /registered twice/);
  });
});

describe("Kafka configuration", () => {
  test("defaults follow the OpenTelemetry Collector's Kafka exporter", () => {
    const loaded = loadSettings({});
    assert.ok(loaded.ok);
    assert.deepEqual(loaded.value.kafka.brokers, ["localhost:9092"]);
    assert.equal(loaded.value.kafka.topic, "otlp_spans");
    assert.equal(loaded.value.kafka.deadLetterTopic, "otlp_spans_dead_letters");
    assert.equal(loaded.value.kafka.maxMessageBytes, 1_000_000);
  });

  test("flags win over variables, lists are comma-separated", () => {
    const loaded = loadSettings({ environment: { RAGSCOPE_KAFKA_BROKERS: "a:9092, b:9093", RAGSCOPE_KAFKA_TOPIC: "from_env" }, flags: { "kafka.topic": { value: "from_flag", flag: "--topic" } } });
    assert.ok(loaded.ok);
    assert.deepEqual(loaded.value.kafka.brokers, ["a:9092", "b:9093"]);
    assert.equal(loaded.value.kafka.topic, "from_flag");
  });

  test("bad values fail at start with the variable or flag and how to fix it", () => {
    const loaded = loadSettings({
      environment: { RAGSCOPE_KAFKA_BROKERS: "kafka:9092,kafka", RAGSCOPE_KAFKA_SESSION_TIMEOUT_MS: "3000", RAGSCOPE_KAFKA_COMPRESSION: "brotli" },
      flags: { "kafka.deadLetterTopic": { value: "otlp_spans", flag: "--dead-letter-topic" }, "memory.maxHeapMb": { value: "lots", flag: "--max-heap-mb" } },
    });
    assert.ok(!loaded.ok);
    const messages = loaded.error.join("\n");
    assert.match(messages, /environment variable RAGSCOPE_KAFKA_BROKERS \(item 2\): must be host:port, e\.g\. kafka:9092/);
    assert.match(messages, /RAGSCOPE_KAFKA_SESSION_TIMEOUT_MS: must be at least 6000 \(milliseconds; brokers refuse shorter sessions/);
    assert.match(messages, /RAGSCOPE_KAFKA_COMPRESSION: must be none, gzip, snappy, lz4 or zstd/);
    assert.match(messages, /flag --max-heap-mb: must be a whole number of at least 32 in decimal digits only/);
    const combination = loadSettings({ environment: { RAGSCOPE_KAFKA_HEARTBEAT_INTERVAL_MS: "20000" }, flags: { "kafka.deadLetterTopic": { value: "otlp_spans", flag: "--dead-letter-topic" } } });
    assert.ok(!combination.ok);
    assert.match(combination.error.join("\n"), /RAGSCOPE_KAFKA_HEARTBEAT_INTERVAL_MS: must be at most a third of the session timeout/);
    assert.match(combination.error.join("\n"), /flag --dead-letter-topic: must differ from the input topic "otlp_spans"/);
    for (const taken of ["otlp_spans", "otlp_spans_dead_letters", "repartitioned"]) {
      const logs = loadSettings({ environment: { RAGSCOPE_KAFKA_REPARTITION_TOPIC: "repartitioned" }, flags: { "kafka.logsTopic": { value: taken, flag: "--logs-topic" } } });
      assert.ok(!logs.ok, taken);
      assert.match(logs.error.join("\n"), new RegExp(`flag --logs-topic: must differ from the span, dead-letter and repartition topics \\("${taken}" is one of them\\)`));
    }
    const logs = loadSettings({ environment: { RAGSCOPE_KAFKA_LOGS_TOPIC: "otlp_logs" } });
    assert.ok(logs.ok);
    assert.equal(collectorSettings(logs.value).kafka.logsTopic, "otlp_logs");
  });
});
