/**
 * The collector's configuration: one zod schema turns flags and `RAGSCOPE_*`
 * environment variables into a frozen typed object, once, at start. A bad value
 * fails there with a message naming the variable or flag and how to fix it.
 * Precedence: flags > environment > defaults.
 *
 * The same schema serves every role (`demo`, `receive`, `evaluate`,
 * `collect`): a role reads the sections it needs; the checks that relate two
 * values (a heartbeat shorter than the session, a dead-letter topic that is
 * not the input topic) run for all, so a bad combination fails at start
 * rather than at the first rebalance.
 */
import path from "node:path";
import v8 from "node:v8";
import { z } from "zod";
import type { RetryPolicy } from "../../contracts/retry.js";
import { failure, success, type Result } from "../../contracts/result.js";
import { compressionNames } from "../kafka/compression-names.js";

const MEBIBYTE = 1024 * 1024;

const integer = (minimum: number) => z.coerce.number({ error: "must be a number" }).int("must be a whole number").min(minimum, `must be at least ${minimum}`);

/** Kafka topic names: the broker's own rule (legal characters, at most 249 of them). */
const topicName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,249}$/, "must be a Kafka topic name: letters, digits, '.', '_' and '-', at most 249 characters")
  .refine((name) => name !== "." && name !== "..", "must be a Kafka topic name other than '.' or '..'");

const brokerAddress = z.string().regex(/^[^\s:,]+:\d{1,5}$/, "must be host:port, e.g. kafka:9092 (separate several brokers with commas)");

/** The broker's default group.min.session.timeout.ms: a shorter session is refused when the consumer joins. */
export const minimumSessionTimeoutMs = 6_000;

const kafkaSection = z.object({
  brokers: z.array(brokerAddress).min(1, "must name at least one broker, e.g. kafka:9092").default(["localhost:9092"]),
  clientId: z.string().min(1, "must not be empty").default("ragscope"),
  /** The OpenTelemetry Collector's Kafka exporter writes traces to `otlp_spans` by default (interop.md §4). */
  topic: topicName.default("otlp_spans"),
  deadLetterTopic: topicName.default("otlp_spans_dead_letters"),
  /**
   * Where unkeyed or multi-trace input is republished, keyed by trace id.
   * Null: the input topic itself. Another topic: every input message is
   * republished there and only that topic is assembled (see collector/kafka/README.md).
   */
  repartitionTopic: topicName.nullable().default(null),
  groupId: z.string().min(1, "must not be empty").default("ragscope-evaluators"),
  sessionTimeoutMs: z.coerce
    .number({ error: "must be a number of milliseconds" })
    .int("must be a whole number of milliseconds")
    .min(minimumSessionTimeoutMs, `must be at least ${minimumSessionTimeoutMs}: brokers refuse shorter sessions (group.min.session.timeout.ms)`)
    .default(30_000),
  heartbeatIntervalMs: integer(100).default(3_000),
  partitionsConsumedConcurrently: integer(1).max(64, "must be at most 64").default(1),
  /** Largest message accepted, consumed or produced; the Collector's exporter default is 1000000 (interop.md §4). */
  maxMessageBytes: integer(1024).default(1_000_000),
  /** What ragscope's producers write; every codec is read whatever this says (collector/kafka/compression-codecs.ts). */
  compression: z.enum(compressionNames, { error: "must be none, gzip, snappy, lz4 or zstd" }).default("none"),
  /**
   * How old the consumer's cluster metadata may get: partitions added to the
   * topic are read at most this long after they appear (kafkajs's default is
   * 5 minutes).
   */
  metadataMaxAgeMs: integer(100).default(30_000),
  /** Where a group without committed offsets starts. Earliest: spans produced before the first evaluator started are not skipped. */
  initialOffset: z.enum(["earliest", "latest"], { error: "must be earliest or latest" }).default("earliest"),
  commitIntervalMs: integer(50).default(1_000),
});

const memorySection = z.object({
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

const observeSection = z.object({
  host: z.string().min(1).default("127.0.0.1"),
  /** 9464 is the port the OpenTelemetry Prometheus exporter uses; 0 picks a free one. */
  port: integer(0).max(65535, "must be a TCP port (0-65535)").default(9464),
  /** Snapshots of the collector's own health into ClickHouse (collector_health) this often; 0 turns them off. */
  healthSnapshotMs: integer(0).default(15_000),
});

/** The heap bound when none is set: four fifths of V8's own limit (see memory.maxHeapMb). */
export function defaultMaxHeapMb(): number {
  return Math.max(32, Math.floor((v8.getHeapStatistics().heap_size_limit / (1024 * 1024)) * 0.8));
}

export const collectorConfigSchema = z.object({
  receiver: z.object({
    host: z.string().min(1).default("127.0.0.1"),
    port: integer(0).max(65535, "must be a TCP port (0-65535)").default(4318),
    maxBodyBytes: integer(1024).default(64 * MEBIBYTE),
    authTokens: z.array(z.string().min(1)).default([]),
    /** Decompressed request bodies held at once, all requests together; past it new bytes get 503 + Retry-After (SECURITY.md "Limits"). */
    maxInFlightBytes: integer(1024).default(128 * MEBIBYTE),
    /** Open client connections; more are closed as they arrive. */
    maxConnections: integer(1).default(256),
    /** Time a client has to send a whole request, headers and body (Node's default is 300 s). */
    requestTimeoutMs: integer(100).default(30_000),
    /** Time a client has to send the request headers. */
    headersTimeoutMs: integer(100).default(10_000),
    /** Spans in one request; more: 413. */
    maxSpansPerRequest: integer(1).default(100_000),
    /** Spans of one trace in one request; more: 413. */
    maxSpansPerTrace: integer(1).default(10_000),
    /** Attributes on one span (or span event); more: 413. */
    maxAttributesPerSpan: integer(1).default(1_024),
    /** UTF-8 bytes of one attribute value (each string or bytes leaf); longer values are truncated and listed on the Case Result. */
    maxAttributeValueBytes: integer(64).default(1 * MEBIBYTE),
    /** Threads that decode, check, split and re-encode request bodies off the main thread. */
    decodeThreads: integer(1).max(64, "must be at most 64").default(2),
  }),
  clickhouse: z.object({
    url: z.url({ error: "must be a URL such as http://localhost:8123" }).nullable().default(null),
    username: z.string().default("default"),
    password: z.string().default(""),
    database: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be a plain identifier (letters, digits, underscores)").default("ragscope"),
    dataPath: z.string().min(1).default(path.resolve(".ragscope", "chdb")),
  }),
  assembler: z.object({
    quietPeriodMs: integer(0).default(2_000),
    maxTraceWaitMs: integer(1).default(60_000),
    maxOpenSpans: integer(1).default(200_000),
    recentTraceMemory: integer(0).default(2_000),
    /** Estimated bytes of spans held in open traces; past it the oldest are released as partial. */
    maxOpenBytes: integer(1024).default(256 * MEBIBYTE),
    /** Estimated bytes of spans kept for recently released traces (re-opened by late spans); past it the oldest are forgotten. */
    maxRecentBytes: integer(0).default(64 * MEBIBYTE),
  }),
  queue: z.object({
    maxQueuedMessages: integer(1).default(10_000),
  }),
  sink: z.object({
    maxBatch: integer(1).default(500),
    retryInitialDelayMs: integer(1).default(200),
    retryMaxDelayMs: integer(1).default(10_000),
    retryDeadlineMs: integer(1).default(30_000),
  }),
  kafka: kafkaSection.prefault({}),
  memory: memorySection.prefault({}),
  observe: observeSection.prefault({}),
}).superRefine((config, context) => {
  // Checks that relate two values; each names both so the message says what to change.
  if (config.kafka.heartbeatIntervalMs * 3 > config.kafka.sessionTimeoutMs) {
    context.addIssue({
      code: "custom",
      path: ["kafka", "heartbeatIntervalMs"],
      message: `must be at most a third of the session timeout (${config.kafka.sessionTimeoutMs} ms, RAGSCOPE_KAFKA_SESSION_TIMEOUT_MS), or one late heartbeat ends the session; lower it or raise the session timeout`,
    });
  }
  if (config.kafka.deadLetterTopic === config.kafka.topic) {
    context.addIssue({
      code: "custom",
      path: ["kafka", "deadLetterTopic"],
      message: `must differ from the input topic "${config.kafka.topic}" (RAGSCOPE_KAFKA_TOPIC), or dead letters would be read again as input`,
    });
  }
  if (config.kafka.repartitionTopic === config.kafka.deadLetterTopic) {
    context.addIssue({
      code: "custom",
      path: ["kafka", "repartitionTopic"],
      message: `must differ from the dead-letter topic "${config.kafka.deadLetterTopic}"; leave it unset to republish to the input topic`,
    });
  }
  if (config.receiver.headersTimeoutMs > config.receiver.requestTimeoutMs) {
    context.addIssue({
      code: "custom",
      path: ["receiver", "headersTimeoutMs"],
      message: `must not exceed the request timeout (${config.receiver.requestTimeoutMs} ms, RAGSCOPE_REQUEST_TIMEOUT_MS); lower it or raise the request timeout`,
    });
  }
  if (config.receiver.maxInFlightBytes < config.receiver.maxBodyBytes) {
    context.addIssue({
      code: "custom",
      path: ["receiver", "maxInFlightBytes"],
      message: `must be at least the largest body (${config.receiver.maxBodyBytes} bytes, RAGSCOPE_MAX_BODY_BYTES), or a request of the largest allowed size could never be read; raise it or lower RAGSCOPE_MAX_BODY_BYTES`,
    });
  }
  if (config.memory.maxBufferedSpans > config.assembler.maxOpenSpans) {
    context.addIssue({
      code: "custom",
      path: ["memory", "maxBufferedSpans"],
      message: `must not exceed the assembler's bound of ${config.assembler.maxOpenSpans} open spans (RAGSCOPE_MAX_OPEN_SPANS), or traces are released as partial before consumption pauses; lower it or raise RAGSCOPE_MAX_OPEN_SPANS`,
    });
  }
});

export type CollectorConfig = z.infer<typeof collectorConfigSchema>;
export type CollectorConfigInput = z.input<typeof collectorConfigSchema>;

/** Environment variables and the config path each sets. */
export const environmentVariables: Record<string, string> = {
  RAGSCOPE_RECEIVER_HOST: "receiver.host",
  RAGSCOPE_RECEIVER_PORT: "receiver.port",
  RAGSCOPE_MAX_BODY_BYTES: "receiver.maxBodyBytes",
  RAGSCOPE_AUTH_TOKENS: "receiver.authTokens",
  RAGSCOPE_MAX_IN_FLIGHT_BYTES: "receiver.maxInFlightBytes",
  RAGSCOPE_MAX_CONNECTIONS: "receiver.maxConnections",
  RAGSCOPE_REQUEST_TIMEOUT_MS: "receiver.requestTimeoutMs",
  RAGSCOPE_HEADERS_TIMEOUT_MS: "receiver.headersTimeoutMs",
  RAGSCOPE_MAX_SPANS_PER_REQUEST: "receiver.maxSpansPerRequest",
  RAGSCOPE_MAX_SPANS_PER_TRACE: "receiver.maxSpansPerTrace",
  RAGSCOPE_MAX_ATTRIBUTES_PER_SPAN: "receiver.maxAttributesPerSpan",
  RAGSCOPE_MAX_ATTRIBUTE_VALUE_BYTES: "receiver.maxAttributeValueBytes",
  RAGSCOPE_DECODE_THREADS: "receiver.decodeThreads",
  RAGSCOPE_CLICKHOUSE_URL: "clickhouse.url",
  RAGSCOPE_CLICKHOUSE_USER: "clickhouse.username",
  RAGSCOPE_CLICKHOUSE_PASSWORD: "clickhouse.password",
  RAGSCOPE_CLICKHOUSE_DATABASE: "clickhouse.database",
  RAGSCOPE_DATA_DIR: "clickhouse.dataPath",
  RAGSCOPE_QUIET_PERIOD_MS: "assembler.quietPeriodMs",
  RAGSCOPE_TRACE_TIMEOUT_MS: "assembler.maxTraceWaitMs",
  RAGSCOPE_MAX_OPEN_SPANS: "assembler.maxOpenSpans",
  RAGSCOPE_MAX_OPEN_BYTES: "assembler.maxOpenBytes",
  RAGSCOPE_MAX_RECENT_TRACE_BYTES: "assembler.maxRecentBytes",
  RAGSCOPE_MAX_QUEUED_MESSAGES: "queue.maxQueuedMessages",
  RAGSCOPE_SINK_BATCH: "sink.maxBatch",
  RAGSCOPE_KAFKA_BROKERS: "kafka.brokers",
  RAGSCOPE_KAFKA_CLIENT_ID: "kafka.clientId",
  RAGSCOPE_KAFKA_TOPIC: "kafka.topic",
  RAGSCOPE_KAFKA_DEAD_LETTER_TOPIC: "kafka.deadLetterTopic",
  RAGSCOPE_KAFKA_REPARTITION_TOPIC: "kafka.repartitionTopic",
  RAGSCOPE_KAFKA_GROUP_ID: "kafka.groupId",
  RAGSCOPE_KAFKA_SESSION_TIMEOUT_MS: "kafka.sessionTimeoutMs",
  RAGSCOPE_KAFKA_HEARTBEAT_INTERVAL_MS: "kafka.heartbeatIntervalMs",
  RAGSCOPE_KAFKA_PARTITIONS_CONCURRENTLY: "kafka.partitionsConsumedConcurrently",
  RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES: "kafka.maxMessageBytes",
  RAGSCOPE_KAFKA_COMPRESSION: "kafka.compression",
  RAGSCOPE_KAFKA_INITIAL_OFFSET: "kafka.initialOffset",
  RAGSCOPE_KAFKA_COMMIT_INTERVAL_MS: "kafka.commitIntervalMs",
  RAGSCOPE_KAFKA_METADATA_MAX_AGE_MS: "kafka.metadataMaxAgeMs",
  RAGSCOPE_MAX_BUFFERED_SPANS: "memory.maxBufferedSpans",
  RAGSCOPE_MAX_HEAP_MB: "memory.maxHeapMb",
  RAGSCOPE_METRICS_HOST: "observe.host",
  RAGSCOPE_METRICS_PORT: "observe.port",
  RAGSCOPE_HEALTH_SNAPSHOT_MS: "observe.healthSnapshotMs",
};

/**
 * Command-line flags of the collector roles and the config path each sets
 * (flags win over the environment). The ClickHouse password has no flag on
 * purpose: a flag shows in the process list; use RAGSCOPE_CLICKHOUSE_PASSWORD.
 */
export const configFlags: readonly { flag: string; path: string; description: string }[] = [
  { flag: "--host <host>", path: "receiver.host", description: "OTLP/HTTP receiver address (RAGSCOPE_RECEIVER_HOST)" },
  { flag: "--port <port>", path: "receiver.port", description: "OTLP/HTTP receiver port, 0 for any free one (RAGSCOPE_RECEIVER_PORT)" },
  { flag: "--kafka-brokers <list>", path: "kafka.brokers", description: "comma-separated host:port list (RAGSCOPE_KAFKA_BROKERS, default localhost:9092)" },
  { flag: "--kafka-client-id <id>", path: "kafka.clientId", description: "Kafka client id (RAGSCOPE_KAFKA_CLIENT_ID)" },
  { flag: "--topic <name>", path: "kafka.topic", description: "span topic (RAGSCOPE_KAFKA_TOPIC, default otlp_spans)" },
  { flag: "--dead-letter-topic <name>", path: "kafka.deadLetterTopic", description: "dead-letter topic (RAGSCOPE_KAFKA_DEAD_LETTER_TOPIC, default otlp_spans_dead_letters)" },
  { flag: "--repartition-topic <name>", path: "kafka.repartitionTopic", description: "where unkeyed input is republished by trace id (RAGSCOPE_KAFKA_REPARTITION_TOPIC, default: the span topic)" },
  { flag: "--group-id <id>", path: "kafka.groupId", description: "consumer group of the evaluators (RAGSCOPE_KAFKA_GROUP_ID)" },
  { flag: "--session-timeout-ms <ms>", path: "kafka.sessionTimeoutMs", description: "consumer group session, at least 6000 (RAGSCOPE_KAFKA_SESSION_TIMEOUT_MS)" },
  { flag: "--heartbeat-interval-ms <ms>", path: "kafka.heartbeatIntervalMs", description: "at most a third of the session (RAGSCOPE_KAFKA_HEARTBEAT_INTERVAL_MS)" },
  { flag: "--partitions-concurrently <n>", path: "kafka.partitionsConsumedConcurrently", description: "partitions one evaluator works on at once (RAGSCOPE_KAFKA_PARTITIONS_CONCURRENTLY)" },
  { flag: "--max-message-bytes <bytes>", path: "kafka.maxMessageBytes", description: "largest Kafka message produced or accepted (RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES)" },
  { flag: "--compression <codec>", path: "kafka.compression", description: "none, gzip, snappy, lz4 or zstd for what ragscope produces; all are read (RAGSCOPE_KAFKA_COMPRESSION)" },
  { flag: "--initial-offset <where>", path: "kafka.initialOffset", description: "earliest or latest, for a group without commits (RAGSCOPE_KAFKA_INITIAL_OFFSET)" },
  { flag: "--commit-interval-ms <ms>", path: "kafka.commitIntervalMs", description: "how often durable progress is committed (RAGSCOPE_KAFKA_COMMIT_INTERVAL_MS)" },
  { flag: "--metadata-max-age-ms <ms>", path: "kafka.metadataMaxAgeMs", description: "longest wait before partitions added to the topic are read, default 30000 (RAGSCOPE_KAFKA_METADATA_MAX_AGE_MS)" },
  { flag: "--clickhouse-url <url>", path: "clickhouse.url", description: "ClickHouse server, e.g. http://clickhouse:8123; default: the embedded engine (RAGSCOPE_CLICKHOUSE_URL)" },
  { flag: "--clickhouse-user <name>", path: "clickhouse.username", description: "ClickHouse user (RAGSCOPE_CLICKHOUSE_USER); the password only from RAGSCOPE_CLICKHOUSE_PASSWORD" },
  { flag: "--clickhouse-database <name>", path: "clickhouse.database", description: "ClickHouse database (RAGSCOPE_CLICKHOUSE_DATABASE)" },
  { flag: "--data-dir <folder>", path: "clickhouse.dataPath", description: "embedded engine data folder (RAGSCOPE_DATA_DIR)" },
  { flag: "--quiet-period-ms <ms>", path: "assembler.quietPeriodMs", description: "wait after a trace's last span once its root arrived (RAGSCOPE_QUIET_PERIOD_MS)" },
  { flag: "--trace-timeout-ms <ms>", path: "assembler.maxTraceWaitMs", description: "evaluate a trace without root as partial after this (RAGSCOPE_TRACE_TIMEOUT_MS)" },
  { flag: "--max-open-spans <n>", path: "assembler.maxOpenSpans", description: "assembler bound; past it traces are released as partial (RAGSCOPE_MAX_OPEN_SPANS)" },
  { flag: "--max-buffered-spans <n>", path: "memory.maxBufferedSpans", description: "reading pauses at this many open spans (RAGSCOPE_MAX_BUFFERED_SPANS)" },
  { flag: "--max-heap-mb <mib>", path: "memory.maxHeapMb", description: "reading pauses before the heap reaches this (RAGSCOPE_MAX_HEAP_MB)" },
  { flag: "--sink-batch <n>", path: "sink.maxBatch", description: "Case Results per ClickHouse insert (RAGSCOPE_SINK_BATCH)" },
  { flag: "--metrics-host <host>", path: "observe.host", description: "address of /metrics, /healthz, /readyz (RAGSCOPE_METRICS_HOST)" },
  { flag: "--metrics-port <port>", path: "observe.port", description: "port of /metrics, /healthz, /readyz, 0 for any free one (RAGSCOPE_METRICS_PORT, default 9464)" },
];

/** Config paths that hold lists; a variable or flag gives them comma-separated. */
const listPaths = new Set(["receiver.authTokens", "kafka.brokers"]);

const splitList = (value: string) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const [section, field] = dotted.split(".") as [string, string];
  const existing = (target[section] as Record<string, unknown> | undefined) ?? {};
  target[section] = { ...existing, [field]: value };
}

/**
 * @param overrides values from command-line flags, by config path (e.g. "receiver.port")
 * @param flagNames the flag that set each path, for error messages
 */
export function loadCollectorConfig(
  environment: NodeJS.ProcessEnv,
  overrides: Record<string, unknown> = {},
  flagNames: Record<string, string> = {},
): Result<Readonly<CollectorConfig>, string[]> {
  const raw: Record<string, unknown> = { receiver: {}, clickhouse: {}, assembler: {}, queue: {}, sink: {}, kafka: {}, memory: {}, observe: {} };
  const sourceOf = new Map<string, string>();
  for (const [variable, dotted] of Object.entries(environmentVariables)) {
    const value = environment[variable];
    if (value === undefined || value === "") continue;
    setPath(raw, dotted, listPaths.has(dotted) ? splitList(value) : value);
    sourceOf.set(dotted, `environment variable ${variable}`);
  }
  for (const [dotted, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    setPath(raw, dotted, listPaths.has(dotted) && typeof value === "string" ? splitList(value) : value);
    sourceOf.set(dotted, flagNames[dotted] ? `flag ${flagNames[dotted]}` : dotted);
  }
  const parsed = collectorConfigSchema.safeParse(raw);
  if (!parsed.success) {
    return failure(
      parsed.error.issues.map((issue) => {
        // A list item's issue has its index after the config path: kafka.brokers.1.
        const dotted = issue.path.slice(0, 2).join(".");
        const item = issue.path.length > 2 ? ` (item ${Number(issue.path[2]) + 1})` : "";
        const variable = Object.entries(environmentVariables).find(([, target]) => target === dotted)?.[0];
        const where = sourceOf.get(dotted) ?? (variable ? `${dotted} (environment variable ${variable})` : dotted);
        return `${where}${item}: ${issue.message}`;
      }),
    );
  }
  return success(Object.freeze(parsed.data));
}

/** The retry policy of sink writes (and of the online stage's writes), from the sink section. */
export function sinkRetryPolicy(config: Readonly<CollectorConfig>): RetryPolicy {
  return { initialDelayMs: config.sink.retryInitialDelayMs, maxDelayMs: config.sink.retryMaxDelayMs, maxAttempts: Infinity, deadlineMs: config.sink.retryDeadlineMs };
}
