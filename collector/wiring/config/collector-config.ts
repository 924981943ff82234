/**
 * The collector's settings sections (receiver, store, assembler, queue, sink,
 * Kafka, memory, metrics): the part of the one settings schema
 * (collector/wiring/config/settings-schema.ts) that the pipeline's components read.
 * The schema is parsed once, at the command line (collector/wiring/config/load-settings.ts);
 * components receive this typed, frozen slice and never the environment.
 *
 * The same sections serve every role (`demo`, `serve`, `receive`, `evaluate`,
 * `collect`): a role reads the sections it needs; the checks that relate two
 * values (a heartbeat shorter than the session, a dead-letter topic that is
 * not the input topic) run for the parts the command runs (command-parts.ts),
 * so a bad combination fails at start rather than at the first rebalance, and
 * a value a role never reads does not stop it.
 */
import { MOST_TIMER_MILLISECONDS, TIMER_LIMIT_REASON } from "./timer-limit.js";
import path from "node:path";
import v8 from "node:v8";
import { z } from "zod";
import type { RetryPolicy } from "../../../core/retry.js";
import { DEFAULT_MAX_QUEUED_BYTES } from "../../02-transport/in-process/in-process-bus.js";
import { DEFAULT_MAX_ATTRIBUTE_KEY_BYTES, DEFAULT_MAX_ATTRIBUTES_PER_SPAN, DEFAULT_MAX_EVENTS_PER_SPAN, DEFAULT_MAX_LINKS_PER_SPAN, DEFAULT_MAX_NAME_BYTES } from "../../00-otlp/per-span-bounds.js";
import { DEFAULT_MAX_ITEMS_PER_REQUEST } from "../../00-otlp/count-request-items.js";
import { compressionNames } from "../../02-transport/kafka/compression-names.js";
import { DEFAULT_ROLLUP_REFRESH_MS } from "../../../store/clickhouse/metric-rollups.js";
import { DEFAULT_QUERY_MEMORY_MB } from "../../../store/clickhouse/query-memory-bound.js";
import { STORE_PARTS_INTERVAL_MS } from "../observe/store-parts-gauges.js";
import type { CollectorParts } from "./command-parts.js";
import { relatedOrigin } from "./related-setting.js";
import { wholeNumberOrOffSetting, wholeNumberSetting } from "./whole-number-setting.js";
import { TCP_PORT_RANGE } from "./tcp-port.js";

const MEBIBYTE = 1024 * 1024;

const integer = (minimum: number, maximum?: number) => wholeNumberSetting({ minimum, ...(maximum === undefined ? {} : { maximum }) });
/** A duration in milliseconds that a timer waits: whole, from `minimum`, at most MOST_TIMER_MILLISECONDS. */
const milliseconds = (minimum: number) => wholeNumberSetting({ minimum, maximum: MOST_TIMER_MILLISECONDS, why: `${TIMER_LIMIT_REASON}; a longer one would fire at once` });
const tcpPort = () => wholeNumberSetting(TCP_PORT_RANGE);

/** Kafka topic names: the broker's own rule (legal characters, at most 249 of them). */
const topicName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,249}$/, "must be a Kafka topic name: letters, digits, '.', '_' and '-', at most 249 characters")
  .refine((name) => name !== "." && name !== "..", "must be a Kafka topic name other than '.' or '..'");

const brokerAddress = z.string().regex(/^[^\s:,]+:\d{1,5}$/, "must be host:port, e.g. kafka:9092 (separate several brokers with commas)");

/** The broker's default group.min.session.timeout.ms: a shorter session is refused when the consumer joins. */
export const minimumSessionTimeoutMs = 6_000;

const kafkaSection = z.strictObject({
  brokers: z.array(brokerAddress).min(1, "must name at least one broker, e.g. kafka:9092").default(["localhost:9092"]),
  clientId: z.string().min(1, "must not be empty").default("ragscope"),
  /** The OpenTelemetry Collector's Kafka exporter writes traces to `otlp_spans` by default (interop.md §4). */
  topic: topicName.default("otlp_spans"),
  deadLetterTopic: topicName.default("otlp_spans_dead_letters"),
  /**
   * Where unkeyed or multi-trace input is republished, keyed by trace id.
   * Null: the input topic itself. Another topic: every input message is
   * republished there and only that topic is assembled (see collector/02-transport/kafka/README.md).
   */
  repartitionTopic: topicName.nullable().default(null),
  /**
   * Where an OpenTelemetry Collector's Kafka exporter writes logs (`otlp_logs` is its default), read by the
   * evaluators for the log records that are events of spans (GenAI messages sent as log records); null: not read.
   * Every message is republished by trace to the assembled topic, to meet the trace's spans.
   */
  logsTopic: topicName.nullable().default(null),
  groupId: z.string().min(1, "must not be empty").default("ragscope-evaluators"),
  sessionTimeoutMs: wholeNumberSetting({ minimum: minimumSessionTimeoutMs, why: "milliseconds; brokers refuse shorter sessions, group.min.session.timeout.ms" }).default(30_000),
  heartbeatIntervalMs: milliseconds(100).default(3_000),
  partitionsConsumedConcurrently: integer(1, 64).default(1),
  /** Largest message accepted, consumed or produced; the Collector's exporter default is 1000000 (interop.md §4). */
  maxMessageBytes: integer(1024).default(1_000_000),
  /** What ragscope's producers write; every codec is read whatever this says (collector/02-transport/kafka/compression-codecs.ts). */
  compression: z.enum(compressionNames, { error: "must be none, gzip, snappy, lz4 or zstd" }).default("none"),
  /**
   * How old the consumer's cluster metadata may get: partitions added to the
   * topic are read at most this long after they appear (kafkajs's default is
   * 5 minutes).
   */
  metadataMaxAgeMs: milliseconds(100).default(30_000),
  /** Where a group without committed offsets starts. Earliest: spans produced before the first evaluator started are not skipped. */
  initialOffset: z.enum(["earliest", "latest"], { error: "must be earliest or latest" }).default("earliest"),
  commitIntervalMs: milliseconds(50).default(1_000),
  /**
   * Longest wait of the receiver (`receive`, `collect`) for Kafka to acknowledge a request's spans before the client
   * hears 503 + Retry-After (kafka-receiver-role.ts). The OpenTelemetry SDKs give up on an export after 10 s, and a
   * client that gave up drops its spans instead of retrying: keep it well below your clients' export timeout.
   */
  publishTimeoutMs: wholeNumberSetting({
    minimum: 100,
    maximum: 60_000,
    why: "milliseconds, a minute at most: a client waiting longer has given up on its export and dropped the spans; keep it below the clients' export timeout (10 s in the OpenTelemetry SDKs)",
  }).default(5_000),
  /**
   * How often the receiver asks Kafka for the span topic's metadata while Kafka answers (broker-availability.ts), so
   * /readyz and the receiver's immediate 503s notice an outage without traffic; during an outage it asks every second.
   */
  probeIntervalMs: wholeNumberSetting({ minimum: 1_000, maximum: 300_000, why: "milliseconds, 5 minutes at most: longer, an outage without traffic goes unnoticed by /readyz that long" }).default(5_000),
  /**
   * How long a role (`receive`, `evaluate`, `collect`) gets on SIGTERM or SIGINT to write what is ready, commit what is
   * durable and leave the group before the process ends without committing (collector-process.ts). Keep it below the
   * supervisor's grace period (deploy/k8s gives 60 s).
   */
  stopTimeoutMs: wholeNumberSetting({ minimum: 1_000, maximum: 600_000, why: "milliseconds, 10 minutes at most: a supervisor kills the process long before (Kubernetes' default grace period is 30 s)" }).default(30_000),
});

const memorySection = z.strictObject({
  /** Consumption pauses while this many spans wait in open traces (pending assembly). */
  maxBufferedSpans: integer(1).default(100_000),
  /** Consumption pauses while the JavaScript heap in use is above this many MiB and the evaluator holds data. */
  /**
   * Default: four fifths of V8's own heap limit, so the bound and V8's
   * garbage collection agree without flags; a lower bound needs
   * --max-old-space-size to match (the roles say so at start).
   */
  maxHeapMb: integer(32).default(() => defaultMaxHeapMb()),
});

const observeSection = z.strictObject({
  host: z.string().min(1).default("127.0.0.1"),
  /** 9464 is the port the OpenTelemetry Prometheus exporter uses; 0 picks a free one. */
  port: tcpPort().default(9464),
  /** Snapshots of the collector's own health into ClickHouse (collector_health) this often; 0 turns them off. */
  healthSnapshotMs: milliseconds(0).default(15_000),
  /** The store's parts, rows and bytes per table on /metrics (observe/store-parts-gauges.ts) read this often; 0 turns them off. */
  storePartsMs: milliseconds(0).default(STORE_PARTS_INTERVAL_MS),
});

/** The heap bound when none is set: four fifths of V8's own limit (see memory.maxHeapMb). */
export function defaultMaxHeapMb(): number {
  return Math.max(32, Math.floor((v8.getHeapStatistics().heap_size_limit / (1024 * 1024)) * 0.8));
}

/** The byte bounds of what the collector holds in its heap (settings queue.maxQueuedBytes, assembler.maxOpenBytes, assembler.maxRecentBytes, sink.maxBatchBytes). */
export interface MemoryBounds {
  queuedBytes: number;
  openBytes: number;
  recentBytes: number;
  sinkBatchBytes: number;
}

/**
 * Each bound as configured, else its default, but never more than a share
 * of the heap bound (memory.maxHeapMb): the queue and the open traces an
 * eighth each, the recent traces and one write a thirty-second each. What is
 * held is counted by estimate, a write's insert bodies take a few times its
 * estimate while they are built, and the rest of the heap is the garbage
 * every trace leaves; fixed defaults sized for a large heap let serve fill a
 * small one under load (V8 gets ~256 MiB in a 1 GiB container) and stall in
 * garbage collection instead of answering 503. From a heap bound of 2 GiB
 * up, the shares are above the defaults and change nothing.
 */
export function memoryBounds(config: {
  queue: { maxQueuedBytes?: number | undefined };
  assembler: { maxOpenBytes?: number | undefined; maxRecentBytes?: number | undefined };
  sink: { maxBatchBytes?: number | undefined };
  memory: { maxHeapMb: number };
}): MemoryBounds {
  const heap = config.memory.maxHeapMb * MEBIBYTE;
  const share = (fallback: number, fraction: number) => Math.max(1024, Math.min(fallback, Math.floor(heap * fraction)));
  return {
    queuedBytes: config.queue.maxQueuedBytes ?? share(DEFAULT_MAX_QUEUED_BYTES, 1 / 8),
    openBytes: config.assembler.maxOpenBytes ?? share(256 * MEBIBYTE, 1 / 8),
    recentBytes: config.assembler.maxRecentBytes ?? share(64 * MEBIBYTE, 1 / 32),
    sinkBatchBytes: config.sink.maxBatchBytes ?? share(64 * MEBIBYTE, 1 / 32),
  };
}

/** The collector's sections of the settings schema; each section is filled from its defaults when nothing sets it. */
export const collectorSections = {
  receiver: z.strictObject({
    host: z.string().min(1).default("127.0.0.1"),
    port: tcpPort().default(4318),
    /**
     * OTLP/gRPC port on the same host, or "off". Unset: 4317, OTLP's gRPC port as 4318 is its HTTP one (what
     * opentelemetry-exporter-otlp in Python sends to by default) — or a free port when `port` is 0, so a collector
     * started on free ports (`ragscope demo`, tests) never takes 4317 from one already running (receiver-options.ts).
     */
    grpcPort: wholeNumberOrOffSetting(TCP_PORT_RANGE).optional(),
    maxBodyBytes: integer(1024).default(64 * MEBIBYTE),
    authTokens: z.array(z.string().min(1)).default([]),
    /**
     * Tenant → SHA-256 of its bearer token (64 hex digits): a request's tenant is the one its token
     * names (SECURITY.md "Tenants"). Make a digest with `printf %s "$TOKEN" | sha256sum`.
     */
    tenantTokens: z
      .record(
        z.string().regex(/^[\p{L}\p{N}_\-.:@+]{1,128}$/u, "a tenant is 1 to 128 letters, digits or _ - . : @ +"),
        z.string().regex(/^[0-9a-f]{64}$/, "must be the SHA-256 of the token as 64 lowercase hex digits (printf %s \"$TOKEN\" | sha256sum)"),
      )
      .default({}),
    /** Decompressed request bodies held at once, all requests together; past it new bytes get 503 + Retry-After (SECURITY.md "Limits"). */
    maxInFlightBytes: integer(1024).default(128 * MEBIBYTE),
    /** Open client connections; more are closed as they arrive. */
    maxConnections: integer(1).default(256),
    /** Time a client has to send a whole request, headers and body (Node's default is 300 s). */
    requestTimeoutMs: milliseconds(100).default(30_000),
    /** Time a client has to send the request headers. */
    headersTimeoutMs: milliseconds(100).default(10_000),
    /** Spans in one request; more: 413. */
    maxSpansPerRequest: integer(1).default(100_000),
    /** Spans of one trace in one request; more: 413. */
    maxSpansPerTrace: integer(1).default(10_000),
    /**
     * Attributes on one span, span event or span link; more: 413. At least the SDK's own span attribute count limit
     * (instrumentation/setup.ts RAGSCOPE_ATTRIBUTE_COUNT_LIMIT), so whatever it sends is taken: a retrieval writes 12
     * attributes a chunk, ~1,360 chunks in 16,384. Memory is bounded by the request's items (maxItemsPerRequest).
     */
    maxAttributesPerSpan: integer(1).default(DEFAULT_MAX_ATTRIBUTES_PER_SPAN),
    /** UTF-8 bytes of one attribute value (each string or bytes leaf); longer values are truncated and listed on the Case Result. */
    maxAttributeValueBytes: integer(64).default(1 * MEBIBYTE),
    /**
     * UTF-8 bytes of one attribute key (span, event, link, resource, scope); an attribute with a longer key is dropped
     * and listed on its span (per-span-bounds.ts). The longest keys the conventions ragscope reads write are under
     * 100 bytes, so a bound below 128 would drop real attributes.
     */
    maxAttributeKeyBytes: integer(128).default(DEFAULT_MAX_ATTRIBUTE_KEY_BYTES),
    /** Events one span keeps; later ones are dropped and counted on the span. 0 keeps none. */
    maxEventsPerSpan: integer(0).default(DEFAULT_MAX_EVENTS_PER_SPAN),
    /** Links one span keeps; later ones are dropped and counted on the span. 0 keeps none. */
    maxLinksPerSpan: integer(0).default(DEFAULT_MAX_LINKS_PER_SPAN),
    /**
     * Items one request decodes into — spans, span events and links, attributes (each element of an array value, and a
     * resource's attributes once for each of its spans) — counted on the body before it is decoded; more: 413
     * (count-request-items.ts).
     */
    maxItemsPerRequest: integer(1).default(DEFAULT_MAX_ITEMS_PER_REQUEST),
    /** UTF-8 bytes of a span's or span event's name; longer names are truncated and listed on the span and the Case Result. */
    maxNameBytes: integer(64).default(DEFAULT_MAX_NAME_BYTES),
    /**
     * Seconds a span's start or end may lie after the receiver's clock; a later span is rejected, counted and told to
     * the client (partial success): it would sit above every real trace in newest-first lists until its time came.
     */
    maxFutureSpanSeconds: integer(1).default(3_600),
    /** Threads that decode, check, split and re-encode request bodies off the main thread. */
    decodeThreads: integer(1, 64).default(2),
  }).prefault({}),
  clickhouse: z.strictObject({
    // ClickHouse's HTTP interface: another scheme (ftp://, tcp://, clickhouse://) was accepted and failed only at the first query.
    url: z.url({ protocol: /^https?$/, error: "must be the http:// or https:// URL of ClickHouse's HTTP interface, such as http://localhost:8123" }).nullable().default(null),
    username: z.string().default("default"),
    password: z.string().default(""),
    database: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be a plain identifier (letters, digits, underscores)").default("ragscope"),
    /** Resolved against the working directory at start, so messages and `ragscope config` show the folder used. */
    dataPath: z
      .string()
      .min(1, "must name a folder")
      .default(".ragscope/chdb")
      .transform((folder) => path.resolve(folder)),
    /**
     * Least time between two refreshes of the dashboards' rollups (metric_rollups,
     * store/clickhouse/metric-rollups.ts): how long a write may wait to show on the
     * quality board's range panels. Shorter = fresher boards and more refresh work.
     */
    rollupRefreshMs: wholeNumberSetting({ minimum: 100, maximum: 3_600_000, why: "milliseconds, an hour at most" }).default(DEFAULT_ROLLUP_REFRESH_MS),
    /** Memory bound of one dashboard query (report, UI boards), MiB; past it that query fails with an error naming this setting. 0 = no bound. */
    queryMemoryMb: integer(0).default(DEFAULT_QUERY_MEMORY_MB),
  }).prefault({}),
  assembler: z.strictObject({
    quietPeriodMs: milliseconds(0).default(2_000),
    maxTraceWaitMs: milliseconds(1).default(60_000),
    maxOpenSpans: integer(1).default(200_000),
    recentTraceMemory: integer(0).default(2_000),
    /** Estimated bytes of spans held in open traces; past it the oldest are released as partial. Unset: memoryBounds. */
    maxOpenBytes: integer(1024).optional(),
    /** Estimated bytes of spans kept for recently released traces (re-opened by late spans); past it the oldest are forgotten. Unset: memoryBounds. */
    maxRecentBytes: integer(0).optional(),
  }).prefault({}),
  queue: z.strictObject({
    maxQueuedMessages: integer(1).default(10_000),
    /**
     * Bytes the embedded in-process queue holds at most (decoded traces by estimated heap); past it the receiver
     * answers 503 with Retry-After. Unset: memoryBounds.
     */
    maxQueuedBytes: integer(1024).optional(),
  }).prefault({}),
  sink: z.strictObject({
    maxBatch: integer(1).default(500),
    /** Estimated bytes of the traces of one write at most (at least one trace a write): bounds each insert body below V8's string length limit. */
    maxBatchBytes: integer(1024).optional(),
    retryInitialDelayMs: milliseconds(1).default(200),
    retryMaxDelayMs: milliseconds(1).default(10_000),
    retryDeadlineMs: milliseconds(1).default(30_000),
  }).prefault({}),
  kafka: kafkaSection.prefault({}),
  memory: memorySection.prefault({}),
  observe: observeSection.prefault({}),
};

const collectorSectionsSchema = z.object(collectorSections);

/** Checks that relate two values, for the parts a command runs; each names both so the message says what to change. */
export function checkCollectorCombinations(config: CollectorConfig, context: z.RefinementCtx, parts: Readonly<CollectorParts>): void {
  if (parts.kafkaConsumer) checkConsumerCombinations(config, context);
  if (parts.kafkaPublisher) checkPublisherCombinations(config, context);
  if (parts.httpReceiver) checkReceiverCombinations(config, context);
  if (parts.assembler) checkAssemblerCombinations(config, context);
}

/** The consumer group member: its session, and the topics it reads and writes. */
function checkConsumerCombinations(config: CollectorConfig, context: z.RefinementCtx): void {
  if (config.kafka.heartbeatIntervalMs * 3 > config.kafka.sessionTimeoutMs) {
    context.addIssue({
      code: "custom",
      path: ["kafka", "heartbeatIntervalMs"],
      message: `must be at most a third of the session timeout (${config.kafka.sessionTimeoutMs} ms, ${relatedOrigin("kafka.sessionTimeoutMs")}), or one late heartbeat ends the session; lower it or raise the session timeout`,
    });
  }
  if (config.kafka.deadLetterTopic === config.kafka.topic) {
    context.addIssue({
      code: "custom",
      path: ["kafka", "deadLetterTopic"],
      message: `must differ from the input topic "${config.kafka.topic}" (${relatedOrigin("kafka.topic")}), or dead letters would be read again as input`,
    });
  }
  const { logsTopic } = config.kafka;
  if (logsTopic !== null && [config.kafka.topic, config.kafka.deadLetterTopic, config.kafka.repartitionTopic].includes(logsTopic)) {
    context.addIssue({
      code: "custom",
      path: ["kafka", "logsTopic"],
      message: `must differ from the span, dead-letter and repartition topics ("${logsTopic}" is one of them): the logs topic holds OTLP logs requests, which are republished to the topic where traces are assembled; leave it unset when logs reach ragscope through ragscope receive`,
    });
  }
  if (config.kafka.repartitionTopic === config.kafka.deadLetterTopic) {
    context.addIssue({
      code: "custom",
      path: ["kafka", "repartitionTopic"],
      message: `must differ from the dead-letter topic "${config.kafka.deadLetterTopic}"; leave it unset to republish to the input topic`,
    });
  }
}

/** The receiver's publisher: a request waiting for Kafka must not outlast the stop. */
function checkPublisherCombinations(config: CollectorConfig, context: z.RefinementCtx): void {
  if (config.kafka.publishTimeoutMs >= config.kafka.stopTimeoutMs) {
    context.addIssue({
      code: "custom",
      path: ["kafka", "publishTimeoutMs"],
      message: `must be shorter than the stop deadline (${config.kafka.stopTimeoutMs} ms, ${relatedOrigin("kafka.stopTimeoutMs")}), or a request waiting for Kafka holds the receiver's stop past it; lower it or raise the stop deadline`,
    });
  }
}

/** The OTLP/HTTP receiver's own bounds. */
function checkReceiverCombinations(config: CollectorConfig, context: z.RefinementCtx): void {
  if (config.receiver.headersTimeoutMs > config.receiver.requestTimeoutMs) {
    context.addIssue({
      code: "custom",
      path: ["receiver", "headersTimeoutMs"],
      message: `must not exceed the request timeout (${config.receiver.requestTimeoutMs} ms, ${relatedOrigin("receiver.requestTimeoutMs")}); lower it or raise the request timeout`,
    });
  }
  if (config.receiver.maxInFlightBytes < config.receiver.maxBodyBytes) {
    context.addIssue({
      code: "custom",
      path: ["receiver", "maxInFlightBytes"],
      message: `must be at least the largest body (${config.receiver.maxBodyBytes} bytes, ${relatedOrigin("receiver.maxBodyBytes")}), or a request of the largest allowed size could never be read; raise it or lower the largest body`,
    });
  }
}

/** Where reading pauses against the assembler's own bound. */
function checkAssemblerCombinations(config: CollectorConfig, context: z.RefinementCtx): void {
  if (config.memory.maxBufferedSpans > config.assembler.maxOpenSpans) {
    context.addIssue({
      code: "custom",
      path: ["memory", "maxBufferedSpans"],
      message: `must not exceed the assembler's bound of ${config.assembler.maxOpenSpans} open spans (${relatedOrigin("assembler.maxOpenSpans")}), or traces are released as partial before consumption pauses; lower it or raise that bound`,
    });
  }
}

export type CollectorConfig = z.infer<typeof collectorSectionsSchema>;

/** The retry policy of sink writes (and of the online stage's writes), from the sink section. */
export function sinkRetryPolicy(config: Readonly<CollectorConfig>): RetryPolicy {
  return { initialDelayMs: config.sink.retryInitialDelayMs, maxDelayMs: config.sink.retryMaxDelayMs, maxAttempts: Infinity, deadlineMs: config.sink.retryDeadlineMs };
}
