/**
 * Grafana alert rules on the pipeline itself, beside the gate rules
 * (alert-rules.ts): a stopped or losing pipeline produced no gate alert at all
 * — the gate rules stay silent without traffic (noDataState OK), so a
 * collector that stopped writing looked healthy. These read the snapshots the
 * collector roles write to collector_health every RAGSCOPE_HEALTH_SNAPSHOT_MS
 * (15 s; collector-health-dashboard.ts, migration 0002):
 *   - dead letters: messages the evaluation could not read, in the window;
 *   - dropped spans: spans in requests answered with an error, in the window;
 *   - receiver refusing requests: at least 5 OTLP requests, and at least 10 %
 *     of them, refused in 5 minutes (a Kafka outage: every request is refused
 *     before it is read, so no span of it is counted as dropped);
 *   - consumer stalled: Kafka consumer lag above zero while no trace was
 *     evaluated in the window;
 *   - store partition near the insert limit: the store's fullest partition
 *     holds half or more of the engine's parts_to_delay_insert (merges fall
 *     behind the writes; past the limit the engine slows, then refuses them);
 *   - silent: no snapshot at all in the window (every role writes one per
 *     interval, idle or not): the collector is down or cannot write.
 * Each query returns one row whatever the data (aggregates without GROUP BY),
 * so "no data" never hides a problem; it is still treated as alerting.
 */
import { FORMAT_CODES } from "./clickhouse-query.js";
import { CLICKHOUSE_DATASOURCE, CLICKHOUSE_PLUGIN_VERSION } from "./datasource.js";

const EXPRESSION_DATASOURCE = { type: "__expr__", uid: "__expr__" };

export interface PipelineAlert {
  uid: string;
  title: string;
  /** Seconds of history query A reads, up to now. */
  windowSeconds: number;
  /** Query A: one row, `time` and `Value`. */
  sql: string;
  /** Grafana math on the reduced value B: true when the alert fires. */
  firesWhen: string;
  summary: string;
  description: string;
}

/** Latest consumer lag summed over the instances that reported one in the window. */
const LATEST_LAG =
  "(SELECT sum(latest) FROM (SELECT instance, argMax(value, ts) AS latest FROM collector_health FINAL WHERE $__timeFilter(ts) AND kind = 'gauge' AND metric = 'consumer_lag' GROUP BY instance))";

export const PIPELINE_ALERTS: readonly PipelineAlert[] = [
  {
    uid: "ragscope-pipeline-dead-letters",
    title: "Dead letters (pipeline)",
    windowSeconds: 900,
    sql: "SELECT $__toTime AS time, sum(value) AS Value\nFROM collector_health FINAL\nWHERE $__timeFilter(ts) AND kind = 'delta' AND metric = 'dead_letters'",
    firesWhen: "$B > 0",
    summary: "{{ .Values.B.Value }} messages dead-lettered in the last 15 minutes",
    // The Kafka roles' letters are in the dead-letter topic, not the store: `ragscope dead-letters` reads only the
    // embedded collector's table, so naming it alone sent an operator of the production stack to an empty list.
    description:
      "Messages the evaluation could not read were kept as dead letters: by the Kafka evaluators in the topic otlp_spans_dead_letters (RAGSCOPE_KAFKA_DEAD_LETTER_TOPIC), the reason in each message's ragscope.dead_letter.reason header; by ragscope serve in its store, listed by ragscope dead-letters (README \"Dead letters\"). Their traces are not evaluated until they are replayed.",
  },
  {
    uid: "ragscope-pipeline-dropped-spans",
    title: "Dropped spans (pipeline)",
    windowSeconds: 900,
    sql: "SELECT $__toTime AS time, sum(value) AS Value\nFROM collector_health FINAL\nWHERE $__timeFilter(ts) AND kind = 'delta' AND metric = 'spans_dropped'",
    firesWhen: "$B > 0",
    summary: "{{ .Values.B.Value }} spans were answered with an error in the last 15 minutes",
    description: "The receiver answered requests holding these spans with an error (the Collector health dashboard's Dropped spans): clients retry 503 answers, others lose the spans. See ragscope_receiver_requests_total by outcome.",
  },
  {
    uid: "ragscope-pipeline-receiver-refusing",
    title: "Receiver refusing requests (pipeline)",
    windowSeconds: 300,
    // At least 5 refusals and at least a tenth of the requests: a client with a bad token or a malformed body now and
    // then does not page anyone; a Kafka outage (every request refused, and retried by the exporters) does within minutes.
    sql: [
      "SELECT $__toTime AS time, if(refused >= 5 AND refused >= 0.1 * (accepted + refused), refused, 0) AS Value",
      "FROM (SELECT sumIf(value, metric = 'requests_refused') AS refused, sumIf(value, metric = 'requests_accepted') AS accepted",
      "  FROM collector_health FINAL WHERE $__timeFilter(ts) AND kind = 'delta')",
    ].join("\n"),
    firesWhen: "$B > 0",
    summary: "The receivers refused {{ .Values.B.Value }} OTLP requests in the last 5 minutes",
    description:
      "At least 5 OTLP requests, and at least 10 % of all, were refused (HTTP and gRPC; the Collector health dashboard's \"OTLP requests accepted and refused per second\"). Refused with 503 because Kafka is unreachable (requests_refused_unavailable; the receiver's /readyz and log say so), they are retried by the exporters until they give up, and their spans are in no dropped-spans count: the receiver does not read them. Other reasons (ragscope_receiver_requests_total by outcome on /metrics): a bad token, a malformed or too large body — data the exporter drops.",
  },
  {
    uid: "ragscope-pipeline-consumer-stalled",
    title: "Kafka consumer stalled (pipeline)",
    windowSeconds: 900,
    sql: [
      "SELECT $__toTime AS time, if(evaluated = 0 AND lag > 0, lag, 0) AS Value",
      `FROM (SELECT sumIf(value, kind = 'delta' AND metric = 'traces_evaluated') AS evaluated, ${LATEST_LAG} AS lag`,
      "  FROM collector_health FINAL WHERE $__timeFilter(ts))",
    ].join("\n"),
    firesWhen: "$B > 0",
    summary: "Kafka consumer lag {{ .Values.B.Value }} with no trace evaluated in the last 15 minutes",
    description: "The evaluators have messages to read but evaluated nothing: the consumer group is not reading (broker, rebalance, crash loop) or the store refuses writes. /readyz and the evaluator's log say which.",
  },
  {
    uid: "ragscope-pipeline-store-parts",
    title: "Store partition near the insert limit (pipeline)",
    windowSeconds: 900,
    // The latest snapshot's figures (every instance on one store reports the same), against half the engine's own limit.
    sql: [
      "SELECT $__toTime AS time, if(delay > 0 AND largest >= 0.5 * delay, largest, 0) AS Value",
      "FROM (SELECT argMaxIf(value, ts, metric = 'store_largest_partition_parts') AS largest, argMaxIf(value, ts, metric = 'store_parts_to_delay_insert') AS delay",
      "  FROM collector_health FINAL WHERE $__timeFilter(ts) AND kind = 'gauge')",
    ].join("\n"),
    firesWhen: "$B > 0",
    summary: "A store partition holds {{ .Values.B.Value }} active parts, half or more of the engine's parts_to_delay_insert",
    description:
      "The engine joins each table's parts in background merges; when the writes make parts faster than merges join them, a partition's parts climb, and past parts_to_delay_insert the engine slows every insert into it, past parts_to_throw_insert it refuses them (Too many parts) and the collector's writes fail. /metrics ragscope_store_largest_partition_parts{table} names the table. Make fewer, larger writes (RAGSCOPE_SINK_BATCH_BYTES), give a ClickHouse server more background merge threads, or look for a mutation still running (system.mutations).",
  },
  {
    uid: "ragscope-pipeline-log-events-without-spans",
    title: "Log events without their spans (pipeline)",
    windowSeconds: 900,
    // At least 20 and at least half of the log events: a few records of traces sampled out do not page anyone; an
    // application whose records all miss their spans (its traces sampled, sent elsewhere, or its spans topic unread)
    // does.
    sql: [
      "SELECT $__toTime AS time, if(waiting >= 20 AND waiting >= 0.5 * (joined + waiting + elsewhere), waiting, 0) AS Value",
      "FROM (SELECT sumIf(value, metric = 'log_events_trace_without_spans') AS waiting, sumIf(value, metric = 'log_events_joined') AS joined, sumIf(value, metric = 'log_events_span_not_in_trace') AS elsewhere",
      "  FROM collector_health FINAL WHERE $__timeFilter(ts) AND kind = 'delta')",
    ].join("\n"),
    firesWhen: "$B > 0",
    summary: "{{ .Values.B.Value }} log events waited for spans that never came in the last 15 minutes",
    description:
      "GenAI messages sent as OpenTelemetry log records (the answer of a chat call, among others) are read only when they are joined to their span; at least half of the log events of the last 15 minutes waited for spans that never came (the Collector health dashboard's \"Log events per second\", log_events_trace_without_spans), so the answers they hold are not read and those requests are not judged on them. Usual causes: the traces are sampled (a Collector's tail sampling, an SDK sampler) and the logs are not; the spans go to another endpoint or topic than the logs; with Kafka, no evaluator reads the spans' topic. ragscope_log_events_total by outcome on /metrics.",
  },
  {
    uid: "ragscope-pipeline-silent",
    title: "Collector silent (pipeline)",
    windowSeconds: 300,
    sql: "SELECT $__toTime AS time, count() AS Value\nFROM collector_health FINAL\nWHERE $__timeFilter(ts)",
    firesWhen: "$B < 1",
    summary: "No collector health snapshot in the last 5 minutes",
    description: "Every collector role writes a health snapshot every RAGSCOPE_HEALTH_SNAPSHOT_MS (15 s), idle or not: none arrived, so the collector is down, cannot reach ClickHouse, or snapshots are turned off (0).",
  },
];

export function pipelineAlertRulesDocument(options: { folder: string; interval: string; pendingFor: string }): { apiVersion: 1; groups: unknown[] } {
  const rules = PIPELINE_ALERTS.map((alert) => ({
    uid: alert.uid,
    title: alert.title,
    condition: "C",
    data: [
      {
        refId: "A",
        datasourceUid: CLICKHOUSE_DATASOURCE.uid,
        relativeTimeRange: { from: alert.windowSeconds, to: 0 },
        model: { refId: "A", datasource: { ...CLICKHOUSE_DATASOURCE }, editorType: "sql", format: FORMAT_CODES.time_series, pluginVersion: CLICKHOUSE_PLUGIN_VERSION, rawSql: alert.sql },
      },
      { refId: "B", datasourceUid: EXPRESSION_DATASOURCE.uid, model: { refId: "B", type: "reduce", expression: "A", reducer: "last", datasource: { ...EXPRESSION_DATASOURCE } } },
      { refId: "C", datasourceUid: EXPRESSION_DATASOURCE.uid, model: { refId: "C", type: "math", expression: alert.firesWhen, datasource: { ...EXPRESSION_DATASOURCE } } },
    ],
    for: options.pendingFor,
    // A query that returns nothing, or fails, is itself a sign that the pipeline cannot be watched.
    noDataState: "Alerting",
    execErrState: "Error",
    labels: { source: "ragscope-pipeline" },
    annotations: { summary: alert.summary, description: alert.description },
  }));
  return { apiVersion: 1, groups: [{ orgId: 1, name: "ragscope-pipeline", folder: options.folder, interval: options.interval, rules }] };
}
