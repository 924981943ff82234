/**
 * Collector health — is the pipeline keeping up and losing nothing? Reads the
 * snapshots the collector roles write to collector_health
 * (deploy/clickhouse/migrations/0002_dashboard_sources.sql): `delta` rows hold
 * the increase since the previous snapshot, so a rate is sum / seconds;
 * `gauge` rows hold a level.
 */
import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import { dashboardShell } from "./dashboard-shell.js";
import { row, statPanel, timeSeriesPanel } from "./panel-builders.js";
import { sqlList } from "./sql-scope.js";

export const COLLECTOR_HEALTH_UID = "ragscope-collector-health";

/** The metrics the collector writes; the collector's own code must use these names. */
export const COLLECTOR_HEALTH_METRICS = {
  delta: ["spans_received", "traces_evaluated", "traces_partial", "dead_letters", "spans_dropped", "traces_without_request", "grpc_requests_accepted", "grpc_requests_refused", "requests_accepted", "requests_refused", "requests_refused_unavailable"],
  gauge: ["consumer_lag", "sink_write_ms", "open_traces", "resident_memory_bytes", "heap_used_bytes", "engine_memory_bytes", "store_largest_partition_parts", "store_parts_to_delay_insert"],
} as const;

const IN_RANGE = "$__timeFilter(ts)";

function ratePerSecond(metrics: readonly string[]): string {
  return [
    "SELECT $__timeInterval(ts) AS time, metric AS series, sum(value) / $__interval_s AS Value",
    "FROM collector_health FINAL",
    `WHERE ${IN_RANGE} AND kind = 'delta' AND metric IN (${sqlList(metrics)})`,
    "GROUP BY time, series",
    "ORDER BY time",
  ].join("\n");
}

/** Gauges per series (`series`: an expression of instance and metric): the highest level each reported in the bucket. */
function gaugesBySeries(series: string, metrics: readonly string[]): string {
  return [
    `SELECT $__timeInterval(ts) AS time, ${series} AS series, max(value) AS Value`,
    "FROM collector_health FINAL",
    `WHERE ${IN_RANGE} AND kind = 'gauge' AND metric IN (${sqlList(metrics)})`,
    "GROUP BY time, series",
    "ORDER BY time",
  ].join("\n");
}

/** A gauge per instance. */
const gaugeByInstance = (metric: string) => gaugesBySeries("instance", [metric]);

export function collectorHealthDashboard(): dashboard.DashboardBuilder {
  return dashboardShell(COLLECTOR_HEALTH_UID, "ragscope — Collector health", "Throughput, consumer lag, dead letters, drops and sink latency of the collector roles.")
    .withRow(row("Now"))
    .withPanel(
      statPanel(
        "Over the range",
        "Spans and traces per second over the range, dead letters, dropped spans and OTLP requests the receivers refused (any reason; while Kafka is down every request is refused before it is read, so its spans are not in Dropped spans) in total, the latest consumer lag summed over instances, and the slowest sink write. No data, not 0, where no role wrote the count (a receiver without a ClickHouse URL writes no snapshot).",
        [
          [
            // sumIfOrNull: no snapshot holding the metric is no data, never a made-up 0 (sumIf gives 0 over no rows).
            "SELECT sumIfOrNull(value, metric = 'spans_received') / greatest(dateDiff('second', $__fromTime, $__toTime), 1) AS \"Spans/s\",",
            "  sumIfOrNull(value, metric = 'traces_evaluated') / greatest(dateDiff('second', $__fromTime, $__toTime), 1) AS \"Traces/s\",",
            "  sumIfOrNull(value, metric = 'dead_letters') AS \"Dead letters\", sumIfOrNull(value, metric = 'spans_dropped') AS \"Dropped spans\",",
            "  sumIfOrNull(value, metric = 'requests_refused') AS \"Refused requests\"",
            "FROM collector_health FINAL",
            `WHERE ${IN_RANGE} AND kind = 'delta'`,
          ].join("\n"),
          [
            "SELECT sumIfOrNull(latest, metric = 'consumer_lag') AS \"Consumer lag\", maxIfOrNull(highest, metric = 'sink_write_ms') AS \"Slowest sink write\"",
            "FROM (SELECT instance, metric, argMax(value, ts) AS latest, max(value) AS highest FROM collector_health FINAL",
            `  WHERE ${IN_RANGE} AND kind = 'gauge' GROUP BY instance, metric)`,
          ].join("\n"),
        ],
        "short",
        { width: 24, height: 4 },
        [
          // Grafana's "reqps" would print spans and traces as "req/s".
          { column: "Spans/s", unit: "suffix: spans/s" },
          { column: "Traces/s", unit: "suffix: traces/s" },
          { column: "Slowest sink write", unit: "ms" },
        ],
      ),
    )
    .withRow(row("Throughput and loss"))
    .withPanel(timeSeriesPanel("Spans and traces per second", "Spans received and traces evaluated per second, all instances.", ratePerSecond(["spans_received", "traces_evaluated"]), "reqps", { width: 12, height: 8 }, { seriesColumn: "series" }))
    .withPanel(
      timeSeriesPanel(
        "Dead letters, drops and partial traces per second",
        "Messages sent to the dead-letter topic, spans dropped, and traces evaluated without their root span. Any drop is data lost.",
        ratePerSecond(["dead_letters", "spans_dropped", "traces_partial"]),
        "reqps",
        { width: 12, height: 8 },
        { seriesColumn: "series", bars: true },
      ),
    )
    .withPanel(
      timeSeriesPanel(
        "OTLP requests accepted and refused per second",
        "OTLP export requests (HTTP and gRPC together) the receivers accepted, those they refused for any reason, and among the refused those answered 503 because the bus could not take spans (requests_refused_unavailable): Kafka unreachable for ragscope receive and collect, the in-process queue full for ragscope serve. A request refused that way is not read, so its spans are unknown and not in Dropped spans; ragscope_receiver_requests_total by outcome on /metrics says the other reasons. Exporters retry 503 answers; other refusals are data they drop.",
        ratePerSecond(["requests_accepted", "requests_refused", "requests_refused_unavailable"]),
        "reqps",
        { width: 12, height: 8 },
        { seriesColumn: "series" },
      ),
    )
    .withPanel(
      timeSeriesPanel(
        "OTLP/gRPC requests per second",
        "OTLP/gRPC export calls the receivers accepted, and those they refused for any reason (ragscope_receiver_grpc_requests_total by outcome on /metrics says which). Refused calls over the byte budget or while Kafka is down are retried by the exporter; others are data it drops.",
        ratePerSecond(["grpc_requests_accepted", "grpc_requests_refused"]),
        "reqps",
        { width: 12, height: 8 },
        { seriesColumn: "series" },
      ),
    )
    .withPanel(
      timeSeriesPanel(
        "Traces without a RAG request per second",
        "Traces that carried no RAG request (an index built at start-up, a service's plain HTTP spans): not evaluated and not stored, only counted (ragscope_traces_without_request_total by reason on /metrics). Many of them mean an application sends traces that are not its requests.",
        ratePerSecond(["traces_without_request"]),
        "reqps",
        { width: 12, height: 8 },
        { seriesColumn: "series", bars: true },
      ),
    )
    .withPanel(
      timeSeriesPanel(
        "Log events per second",
        "GenAI messages sent as OpenTelemetry log records (POST /v1/logs, an OpenTelemetry Collector's logs topic): log_events_joined were joined to their span and read; log_events_trace_without_spans waited for spans that never came (spans sampled out or sent elsewhere: the messages they hold are not read); log_events_span_not_in_trace name a span their trace lacks; log_events_duplicate were sent again and kept once; log_records_left_out are records that are no event of a span (log lines, logs outside any span), counted and not kept (ragscope_log_events_total and ragscope_log_records_left_out_total on /metrics).",
        ratePerSecond(["log_events_joined", "log_events_duplicate", "log_events_span_not_in_trace", "log_events_trace_without_spans", "log_records_left_out"]),
        "reqps",
        { width: 12, height: 8 },
        { seriesColumn: "series", bars: true },
      ),
    )
    .withRow(row("Backlog and sink"))
    .withPanel(timeSeriesPanel("Consumer lag", "Messages behind the end of the input topic, per evaluator instance.", gaugeByInstance("consumer_lag"), "short", { width: 8, height: 8 }, { seriesColumn: "series" }))
    .withPanel(timeSeriesPanel("Sink write latency", "Slowest ClickHouse write per instance and bucket.", gaugeByInstance("sink_write_ms"), "ms", { width: 8, height: 8 }, { seriesColumn: "series" }))
    .withPanel(timeSeriesPanel("Open traces", "Traces buffered while their spans arrive, per instance.", gaugeByInstance("open_traces"), "short", { width: 8, height: 8 }, { seriesColumn: "series" }))
    .withRow(row("Memory"))
    .withPanel(
      timeSeriesPanel(
        "Resident memory",
        "Resident set of each collector process, the highest level reported in the bucket. With the embedded engine, about a quarter of it is the engine's code, mapped from its library.",
        gaugeByInstance("resident_memory_bytes"),
        "bytes",
        { width: 12, height: 8 },
        { seriesColumn: "series" },
      ),
    )
    .withPanel(
      timeSeriesPanel(
        "JavaScript heap and engine memory",
        "JavaScript heap in use, and what the embedded ClickHouse engine holds in use for its inserts, merges and queries (not reported with a ClickHouse server), per instance.",
        gaugesBySeries("concat(instance, ' · ', metric)", ["heap_used_bytes", "engine_memory_bytes"]),
        "bytes",
        { width: 12, height: 8 },
        { seriesColumn: "series" },
      ),
    )
    .withRow(row("Store"))
    .withPanel(
      timeSeriesPanel(
        "Fullest partition's active parts",
        "The most active data parts any partition of any store table holds (store_largest_partition_parts), beside the engine's parts_to_delay_insert: past it the engine slows inserts into that partition, past parts_to_throw_insert it refuses them. Parts climbing toward it mean merges fall behind the writes (the pipeline alert \"Store partition near the insert limit\" fires at half). The same store's figure from every instance: the highest is shown. /metrics ragscope_store_largest_partition_parts{table} names the table.",
        gaugesBySeries("metric", ["store_largest_partition_parts", "store_parts_to_delay_insert"]),
        "short",
        { width: 24, height: 8 },
        { seriesColumn: "series" },
      ),
    );
}
