/**
 * Where each setting can come from besides the config file: its environment
 * variable and, for some, a command-line flag (collector/wiring/cli/config-flags.ts
 * adds them to commands). Keys are the settings schema's paths
 * (settings-schema.ts), which are also the config file's keys.
 */

/** Environment variables and the setting path each sets. */
export const environmentVariables: Readonly<Record<string, string>> = {
  RAGSCOPE_RECEIVER_HOST: "receiver.host",
  RAGSCOPE_RECEIVER_PORT: "receiver.port",
  RAGSCOPE_GRPC_PORT: "receiver.grpcPort",
  RAGSCOPE_MAX_BODY_BYTES: "receiver.maxBodyBytes",
  RAGSCOPE_AUTH_TOKENS: "receiver.authTokens",
  RAGSCOPE_TENANT_TOKENS: "receiver.tenantTokens",
  RAGSCOPE_MAX_IN_FLIGHT_BYTES: "receiver.maxInFlightBytes",
  RAGSCOPE_MAX_CONNECTIONS: "receiver.maxConnections",
  RAGSCOPE_REQUEST_TIMEOUT_MS: "receiver.requestTimeoutMs",
  RAGSCOPE_HEADERS_TIMEOUT_MS: "receiver.headersTimeoutMs",
  RAGSCOPE_MAX_SPANS_PER_REQUEST: "receiver.maxSpansPerRequest",
  RAGSCOPE_MAX_SPANS_PER_TRACE: "receiver.maxSpansPerTrace",
  RAGSCOPE_MAX_ATTRIBUTES_PER_SPAN: "receiver.maxAttributesPerSpan",
  RAGSCOPE_MAX_ATTRIBUTE_VALUE_BYTES: "receiver.maxAttributeValueBytes",
  RAGSCOPE_MAX_ATTRIBUTE_KEY_BYTES: "receiver.maxAttributeKeyBytes",
  RAGSCOPE_MAX_EVENTS_PER_SPAN: "receiver.maxEventsPerSpan",
  RAGSCOPE_MAX_FUTURE_SPAN_SECONDS: "receiver.maxFutureSpanSeconds",
  RAGSCOPE_MAX_LINKS_PER_SPAN: "receiver.maxLinksPerSpan",
  RAGSCOPE_MAX_ITEMS_PER_REQUEST: "receiver.maxItemsPerRequest",
  RAGSCOPE_MAX_NAME_BYTES: "receiver.maxNameBytes",
  RAGSCOPE_DECODE_THREADS: "receiver.decodeThreads",
  RAGSCOPE_CLICKHOUSE_URL: "clickhouse.url",
  RAGSCOPE_CLICKHOUSE_USER: "clickhouse.username",
  RAGSCOPE_CLICKHOUSE_PASSWORD: "clickhouse.password",
  RAGSCOPE_CLICKHOUSE_DATABASE: "clickhouse.database",
  RAGSCOPE_DATA_DIR: "clickhouse.dataPath",
  RAGSCOPE_ROLLUP_REFRESH_MS: "clickhouse.rollupRefreshMs",
  RAGSCOPE_QUERY_MEMORY_MB: "clickhouse.queryMemoryMb",
  RAGSCOPE_QUIET_PERIOD_MS: "assembler.quietPeriodMs",
  RAGSCOPE_TRACE_TIMEOUT_MS: "assembler.maxTraceWaitMs",
  RAGSCOPE_MAX_OPEN_SPANS: "assembler.maxOpenSpans",
  RAGSCOPE_MAX_OPEN_BYTES: "assembler.maxOpenBytes",
  RAGSCOPE_MAX_RECENT_TRACE_BYTES: "assembler.maxRecentBytes",
  RAGSCOPE_MAX_QUEUED_MESSAGES: "queue.maxQueuedMessages",
  RAGSCOPE_MAX_QUEUED_BYTES: "queue.maxQueuedBytes",
  RAGSCOPE_SINK_BATCH: "sink.maxBatch",
  RAGSCOPE_SINK_BATCH_BYTES: "sink.maxBatchBytes",
  RAGSCOPE_KAFKA_BROKERS: "kafka.brokers",
  RAGSCOPE_KAFKA_CLIENT_ID: "kafka.clientId",
  RAGSCOPE_KAFKA_TOPIC: "kafka.topic",
  RAGSCOPE_KAFKA_DEAD_LETTER_TOPIC: "kafka.deadLetterTopic",
  RAGSCOPE_KAFKA_REPARTITION_TOPIC: "kafka.repartitionTopic",
  RAGSCOPE_KAFKA_LOGS_TOPIC: "kafka.logsTopic",
  RAGSCOPE_KAFKA_GROUP_ID: "kafka.groupId",
  RAGSCOPE_KAFKA_SESSION_TIMEOUT_MS: "kafka.sessionTimeoutMs",
  RAGSCOPE_KAFKA_HEARTBEAT_INTERVAL_MS: "kafka.heartbeatIntervalMs",
  RAGSCOPE_KAFKA_PARTITIONS_CONCURRENTLY: "kafka.partitionsConsumedConcurrently",
  RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES: "kafka.maxMessageBytes",
  RAGSCOPE_KAFKA_COMPRESSION: "kafka.compression",
  RAGSCOPE_KAFKA_INITIAL_OFFSET: "kafka.initialOffset",
  RAGSCOPE_KAFKA_COMMIT_INTERVAL_MS: "kafka.commitIntervalMs",
  RAGSCOPE_KAFKA_METADATA_MAX_AGE_MS: "kafka.metadataMaxAgeMs",
  RAGSCOPE_KAFKA_PUBLISH_TIMEOUT_MS: "kafka.publishTimeoutMs",
  RAGSCOPE_KAFKA_PROBE_INTERVAL_MS: "kafka.probeIntervalMs",
  RAGSCOPE_KAFKA_STOP_TIMEOUT_MS: "kafka.stopTimeoutMs",
  RAGSCOPE_MAX_BUFFERED_SPANS: "memory.maxBufferedSpans",
  RAGSCOPE_MAX_HEAP_MB: "memory.maxHeapMb",
  RAGSCOPE_METRICS_HOST: "observe.host",
  RAGSCOPE_METRICS_PORT: "observe.port",
  RAGSCOPE_HEALTH_SNAPSHOT_MS: "observe.healthSnapshotMs",
  RAGSCOPE_STORE_PARTS_INTERVAL_MS: "observe.storePartsMs",
  RAGSCOPE_SAMPLE_RATE: "sampling.defaultRate",
  RAGSCOPE_SAMPLE_RATES_BY_SERVICE: "sampling.services",
  RAGSCOPE_SAMPLE_RATES_BY_ROUTE: "sampling.routes",
  RAGSCOPE_SAMPLE_RATES_BY_TENANT: "sampling.tenants",
  RAGSCOPE_JUDGE_ENABLED: "judge.enabled",
  RAGSCOPE_JUDGE_QUEUE: "judge.queue",
  RAGSCOPE_JUDGE_TOPIC: "judge.topic",
  RAGSCOPE_JUDGE_CONSUMER_GROUP: "judge.consumerGroup",
  RAGSCOPE_JUDGE_CONCURRENCY: "judge.concurrency",
  RAGSCOPE_JUDGE_RATE_PER_SECOND: "judge.ratePerSecond",
  RAGSCOPE_JUDGE_BURST: "judge.burst",
  RAGSCOPE_JUDGE_BATCH: "judge.batchSize",
  RAGSCOPE_JUDGE_MAX_QUEUED: "judge.maxQueued",
  RAGSCOPE_JUDGE_CACHE_ENTRIES: "judge.cacheEntries",
  RAGSCOPE_ALERT_GATE_FILE: "alerts.gateFile",
  RAGSCOPE_ALERT_WINDOW: "alerts.window",
  RAGSCOPE_ALERT_WINDOW_SAMPLES: "alerts.windowSamples",
  RAGSCOPE_ALERT_MIN_SAMPLES: "alerts.minSamples",
  RAGSCOPE_ALERT_CONFIDENCE: "alerts.confidence",
  RAGSCOPE_ALERT_HYSTERESIS: "alerts.hysteresis",
  RAGSCOPE_ALERT_WEBHOOK_URLS: "alerts.webhookUrls",
  RAGSCOPE_ALERT_SLACK_WEBHOOK_URLS: "alerts.slackWebhookUrls",
  RAGSCOPE_ALERT_TOPIC: "alerts.kafkaTopic",
  RAGSCOPE_ALERT_TABLE: "alerts.table",
  RAGSCOPE_ALERT_EVALUATE_EVERY_MS: "alerts.evaluateEveryMs",
  RAGSCOPE_JUDGE_BASE_URL: "judgeEndpoint.baseUrl",
  RAGSCOPE_JUDGE_MODEL: "judgeEndpoint.model",
  RAGSCOPE_JUDGE_API_KEY: "judgeEndpoint.apiKey",
  RAGSCOPE_JUDGE_TIMEOUT_MS: "judgeEndpoint.requestTimeoutMs",
  RAGSCOPE_JUDGE_SPENDING_LIMIT_PER_HOUR: "judgeEndpoint.spendingLimitPerHour",
  RAGSCOPE_JUDGE_INPUT_PRICE_PER_1K: "judgeEndpoint.inputPricePer1kTokens",
  RAGSCOPE_JUDGE_OUTPUT_PRICE_PER_1K: "judgeEndpoint.outputPricePer1kTokens",
  RAGSCOPE_JUDGE_STRUCTURED_OUTPUT: "judgeEndpoint.structuredOutput",
  RAGSCOPE_JUDGE_MAX_OUTPUT_TOKENS: "judgeEndpoint.maxOutputTokens",
  RAGSCOPE_JUDGE_METRICS: "judgeEndpoint.metrics",
  RAGSCOPE_EMBEDDINGS_BASE_URL: "embeddingsEndpoint.baseUrl",
  RAGSCOPE_EMBEDDINGS_MODEL: "embeddingsEndpoint.model",
  RAGSCOPE_EMBEDDINGS_API_KEY: "embeddingsEndpoint.apiKey",
  RAGSCOPE_EMBEDDINGS_TIMEOUT_MS: "embeddingsEndpoint.requestTimeoutMs",
  RAGSCOPE_EMBEDDINGS_CACHE_ENTRIES: "embeddingsEndpoint.cacheEntries",
  RAGSCOPE_EMBEDDINGS_SAMPLE_RATE: "embeddingsEndpoint.sampleRate",
  RAGSCOPE_TOKEN_EMBEDDINGS_URL: "embeddingsEndpoint.tokenEmbeddingsUrl",
  RAGSCOPE_TOKEN_EMBEDDINGS_MODEL: "embeddingsEndpoint.tokenEmbeddingsModel",
};

/** The variable that names another config file than --config's (flags still win). */
export const configFileVariable = "RAGSCOPE_CONFIG";

/**
 * Command-line flags of the collector roles and the setting path each sets
 * (flags win over the environment). Secrets have no flag on purpose: a flag
 * shows in the process list; use the environment or the config file.
 */
export const configFlags: readonly { flag: string; path: string; description: string }[] = [
  { flag: "--host <host>", path: "receiver.host", description: "OTLP/HTTP receiver address (RAGSCOPE_RECEIVER_HOST)" },
  { flag: "--port <port>", path: "receiver.port", description: "OTLP/HTTP receiver port, 0 for any free one (RAGSCOPE_RECEIVER_PORT)" },
  { flag: "--grpc-port <port>", path: "receiver.grpcPort", description: "OTLP/gRPC receiver port, 0 for any free one, off for none (RAGSCOPE_GRPC_PORT; default 4317, or a free port when --port is 0)" },
  { flag: "--kafka-brokers <list>", path: "kafka.brokers", description: "comma-separated host:port list (RAGSCOPE_KAFKA_BROKERS, default localhost:9092)" },
  { flag: "--kafka-client-id <id>", path: "kafka.clientId", description: "Kafka client id (RAGSCOPE_KAFKA_CLIENT_ID)" },
  { flag: "--topic <name>", path: "kafka.topic", description: "span topic (RAGSCOPE_KAFKA_TOPIC, default otlp_spans)" },
  { flag: "--dead-letter-topic <name>", path: "kafka.deadLetterTopic", description: "dead-letter topic (RAGSCOPE_KAFKA_DEAD_LETTER_TOPIC, default otlp_spans_dead_letters)" },
  { flag: "--repartition-topic <name>", path: "kafka.repartitionTopic", description: "where unkeyed input is republished by trace id (RAGSCOPE_KAFKA_REPARTITION_TOPIC, default: the span topic)" },
  { flag: "--logs-topic <name>", path: "kafka.logsTopic", description: "an OpenTelemetry Collector's logs topic, read for GenAI log events (RAGSCOPE_KAFKA_LOGS_TOPIC, default: not read; the Collector writes otlp_logs)" },
  { flag: "--group-id <id>", path: "kafka.groupId", description: "consumer group of the evaluators (RAGSCOPE_KAFKA_GROUP_ID)" },
  { flag: "--session-timeout-ms <ms>", path: "kafka.sessionTimeoutMs", description: "consumer group session, at least 6000 (RAGSCOPE_KAFKA_SESSION_TIMEOUT_MS)" },
  { flag: "--heartbeat-interval-ms <ms>", path: "kafka.heartbeatIntervalMs", description: "at most a third of the session (RAGSCOPE_KAFKA_HEARTBEAT_INTERVAL_MS)" },
  { flag: "--partitions-concurrently <n>", path: "kafka.partitionsConsumedConcurrently", description: "partitions one evaluator works on at once (RAGSCOPE_KAFKA_PARTITIONS_CONCURRENTLY)" },
  { flag: "--max-message-bytes <bytes>", path: "kafka.maxMessageBytes", description: "largest Kafka message produced or accepted (RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES)" },
  { flag: "--compression <codec>", path: "kafka.compression", description: "none, gzip, snappy, lz4 or zstd for what ragscope produces; all are read (RAGSCOPE_KAFKA_COMPRESSION)" },
  { flag: "--initial-offset <where>", path: "kafka.initialOffset", description: "earliest or latest, for a group without commits (RAGSCOPE_KAFKA_INITIAL_OFFSET)" },
  { flag: "--commit-interval-ms <ms>", path: "kafka.commitIntervalMs", description: "how often durable progress is committed (RAGSCOPE_KAFKA_COMMIT_INTERVAL_MS)" },
  { flag: "--metadata-max-age-ms <ms>", path: "kafka.metadataMaxAgeMs", description: "longest wait before partitions added to the topic are read, default 30000 (RAGSCOPE_KAFKA_METADATA_MAX_AGE_MS)" },
  { flag: "--publish-timeout-ms <ms>", path: "kafka.publishTimeoutMs", description: "receiver: longest wait for Kafka to acknowledge a request before answering 503, default 5000 (RAGSCOPE_KAFKA_PUBLISH_TIMEOUT_MS)" },
  { flag: "--probe-interval-ms <ms>", path: "kafka.probeIntervalMs", description: "receiver: how often Kafka's reachability is checked while it answers, default 5000 (RAGSCOPE_KAFKA_PROBE_INTERVAL_MS)" },
  { flag: "--stop-timeout-ms <ms>", path: "kafka.stopTimeoutMs", description: "longest stop on SIGTERM before the process ends without committing, default 30000 (RAGSCOPE_KAFKA_STOP_TIMEOUT_MS)" },
  { flag: "--clickhouse-url <url>", path: "clickhouse.url", description: "ClickHouse server, e.g. http://clickhouse:8123; default: the embedded engine (RAGSCOPE_CLICKHOUSE_URL)" },
  { flag: "--clickhouse-user <name>", path: "clickhouse.username", description: "ClickHouse user (RAGSCOPE_CLICKHOUSE_USER); the password has no flag: RAGSCOPE_CLICKHOUSE_PASSWORD or the config file" },
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

/** Settings that hold lists; a variable or flag gives them comma-separated. */
export const listSettings: ReadonlySet<string> = new Set(["receiver.authTokens", "kafka.brokers", "alerts.webhookUrls", "alerts.slackWebhookUrls", "judgeEndpoint.metrics"]);

/** Settings that hold `name=rate` tables; a variable gives them as pairs separated by commas: "checkout=1,search=0.05". */
export const tableSettings: ReadonlySet<string> = new Set(["sampling.services", "sampling.routes", "sampling.tenants", "receiver.tenantTokens"]);

/**
 * Settings whose values are credentials, masked wherever settings are shown.
 * A Slack webhook URL is its own secret (whoever has it can post). URLs with
 * a password (http://user:secret@host) are masked too, whatever the setting.
 */
export const secretSettings: ReadonlySet<string> = new Set(["clickhouse.password", "receiver.authTokens", "receiver.tenantTokens", "judgeEndpoint.apiKey", "embeddingsEndpoint.apiKey", "alerts.slackWebhookUrls"]);

/** The variable of a setting path, if it has one. */
export function variableOf(path: string): string | undefined {
  return Object.entries(environmentVariables).find(([, target]) => target === path)?.[0];
}
