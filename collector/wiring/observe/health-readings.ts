/**
 * What each role writes in its health snapshots (`collector_health`), read
 * from the same registry /metrics renders, so a snapshot and a scrape can
 * never disagree: each dashboard metric name maps to one registered metric
 * (summed over its samples, restricted to the role's label when one process
 * runs several roles).
 *
 * A role writes only what it can observe: the evaluator drops no span (it
 * dead-letters what it cannot read), so `spans_dropped` comes from the
 * receiver's snapshot; `sink_write_ms` is written only for an interval that
 * had a write (no write is no measurement, not a zero).
 */
import { MALFORMED_ATTRIBUTE_KINDS } from "../../../contracts/case-result.js";
import { LOG_EVENT_OUTCOMES } from "./collector-metrics.js";
import type { HealthReading } from "./health-snapshots.js";
import type { MeasuredSink } from "./measured-sink.js";
import type { Labels, MetricsRegistry } from "./metrics-registry.js";

interface Source {
  metric: string;
  labels?: Labels;
}

function read(registry: MetricsRegistry, sources: Record<string, Source>): Record<string, number> {
  return Object.fromEntries(Object.entries(sources).map(([name, source]) => [name, registry.sum(source.metric, source.labels)]));
}

/**
 * The process's memory, as /metrics shows it: resident set, JavaScript heap in use, and the embedded engine's
 * working memory. What the process does not report (no engine in-process, metrics not registered) is left out,
 * not written as 0.
 */
const memorySources = {
  resident_memory_bytes: "ragscope_process_resident_memory_bytes",
  heap_used_bytes: "ragscope_process_heap_used_bytes",
  engine_memory_bytes: "ragscope_engine_memory_bytes",
} as const;

/** Each source metric's level read now (its samples summed, or the largest); one not registered, or without a sample, is left out, not written as 0. */
function levels(registry: MetricsRegistry, sources: Readonly<Record<string, string>>, reading: "sum" | "max"): Record<string, number> {
  const found: Record<string, number> = {};
  for (const [name, metric] of Object.entries(sources)) {
    const value = !registry.has(metric) ? null : reading === "sum" ? registry.sumOrNull(metric) : registry.maxOrNull(metric);
    if (value !== null) found[name] = value;
  }
  return found;
}

const memory = (registry: MetricsRegistry) => levels(registry, memorySources, "sum");

/**
 * The OTLP/gRPC requests accepted and refused (for any reason, ragscope_receiver_grpc_requests_total's other
 * outcomes), as running totals the snapshot turns into increases; nothing where no receiver runs.
 */
function grpcRequests(registry: MetricsRegistry): Record<string, number> {
  return acceptedAndRefused(registry, "ragscope_receiver_grpc_requests_total", "grpc_requests");
}

/** `<prefix>_accepted` and `<prefix>_refused` (every outcome but accepted) of a requests counter; nothing where it is not registered. */
function acceptedAndRefused(registry: MetricsRegistry, metric: string, prefix: string): Record<string, number> {
  if (!registry.has(metric)) return {};
  const accepted = registry.sum(metric, { outcome: "accepted" });
  return { [`${prefix}_accepted`]: accepted, [`${prefix}_refused`]: registry.sum(metric) - accepted };
}

/**
 * Every OTLP request the receivers accepted and refused, HTTP and gRPC together (ragscope_receiver_requests_total),
 * counted as grpcRequests counts the gRPC ones: refused is every outcome but accepted. Those refused because the bus
 * could not take spans (publishUnavailable: Kafka known to be down, or serve's in-process queue full) are also counted
 * on their own: the one sign of an outage, since such a request is never read. Requests, not spans:
 * such a request is refused before its body is read, so its spans are unknown and never in spans_dropped.
 */
function receiverRequests(registry: MetricsRegistry): Record<string, number> {
  const metric = "ragscope_receiver_requests_total";
  if (!registry.has(metric)) return {};
  return { ...acceptedAndRefused(registry, metric, "requests"), requests_refused_unavailable: registry.sum(metric, { outcome: "publishUnavailable" }) };
}

/**
 * The store's fullest partition (the most active parts any partition of any table holds) and the engine's
 * parts_to_delay_insert, from the store gauges (store-parts-gauges.ts), for the pipeline's alert on merges falling
 * behind. The same figures from every instance that reads one store: the dashboard and the alert take the largest,
 * not the sum. Nothing before the first reading, after a failed one, or with the reading turned off.
 */
const storePartsSources = {
  store_largest_partition_parts: "ragscope_store_largest_partition_parts",
  store_parts_to_delay_insert: "ragscope_store_parts_to_delay_insert",
} as const;

const storeParts = (registry: MetricsRegistry) => levels(registry, storePartsSources, "max");

function withSinkWrite(gauges: Record<string, number>, sink: MeasuredSink): Record<string, number> {
  const slowest = sink.takeSlowestWriteMs();
  return slowest === null ? gauges : { ...gauges, sink_write_ms: slowest };
}

/**
 * The notes of rebuilt Case Results by kind (ragscope_malformed_attributes_total{kind}), one counter per kind named
 * `malformed_attributes_<kind>`, every kind from 0 as /metrics shows them: collector_health has no label column
 * (migration 0002), so a label becomes part of the name, as `grpc_requests_accepted` does. Nothing where the counter
 * is not registered (a receiver).
 */
function malformedAttributes(registry: MetricsRegistry): Record<string, number> {
  const metric = "ragscope_malformed_attributes_total";
  if (!registry.has(metric)) return {};
  return Object.fromEntries(MALFORMED_ATTRIBUTE_KINDS.map((kind) => [`malformed_attributes_${kind}`, registry.sum(metric, { kind })]));
}

/** What the evaluation counts, wherever it runs (serve, or an evaluator). */
const evaluationSources: Record<string, Source> = {
  traces_evaluated: { metric: "ragscope_traces_written_total" },
  traces_partial: { metric: "ragscope_traces_partial_total" },
  dead_letters: { metric: "ragscope_messages_dead_lettered_total" },
  malformed_json_attributes: { metric: "ragscope_malformed_json_attributes_total" },
  invalid_case_results: { metric: "ragscope_case_results_invalid_total" },
  traces_without_request: { metric: "ragscope_traces_without_request_total" },
  // What became of the log events (log records that are events of a span) at assembly.
  ...Object.fromEntries(LOG_EVENT_OUTCOMES.map((outcome) => [`log_events_${outcome}`, { metric: "ragscope_log_events_total", labels: { outcome } }])),
};

/**
 * Log records taken in but not kept, being no event of a span (ragscope_log_records_left_out_total), by whoever read
 * them: the receiver (a logs request), or an evaluator (a logs message read from Kafka, role="evaluator"). In
 * `collect` both count in one registry; a receiver alone writes no role label.
 */
function logRecordsLeftOut(registry: MetricsRegistry, role: "receiver" | "evaluator"): Record<string, number> {
  const metric = "ragscope_log_records_left_out_total";
  if (!registry.has(metric)) return {};
  const byEvaluator = registry.sum(metric, { role: "evaluator" });
  return { log_records_left_out: role === "evaluator" ? byEvaluator : registry.sum(metric) - byEvaluator };
}

/** `ragscope serve`: receiver, in-process bus and evaluation in one process (registerEmbeddedMetrics). */
export function embeddedHealthReading(registry: MetricsRegistry, sink: MeasuredSink): () => HealthReading {
  return () => ({
    counters: {
      ...read(registry, {
        spans_received: { metric: "ragscope_spans_received_total" },
        spans_dropped: { metric: "ragscope_spans_dropped_total" },
        ...evaluationSources,
      }),
      ...malformedAttributes(registry),
      ...receiverRequests(registry),
      ...grpcRequests(registry),
      ...logRecordsLeftOut(registry, "receiver"),
    },
    gauges: withSinkWrite({ ...read(registry, { consumer_lag: { metric: "ragscope_queued_messages" }, open_traces: { metric: "ragscope_open_traces" } }), ...memory(registry), ...storeParts(registry) }, sink),
  });
}

/** `ragscope evaluate` and the evaluator of `ragscope collect` (registerEvaluatorMetrics). */
export function evaluatorHealthReading(registry: MetricsRegistry, sink: MeasuredSink, ownedLag: () => number): () => HealthReading {
  const role = { role: "evaluator" };
  return () => ({
    counters: { ...read(registry, { spans_received: { metric: "ragscope_spans_received_total", labels: role }, ...evaluationSources }), ...malformedAttributes(registry), ...logRecordsLeftOut(registry, "evaluator") },
    // ragscope_kafka_consumer_lag covers every partition of the topic (each evaluator reports all of them);
    // the snapshot takes this member's own, so that snapshots of a group add up.
    gauges: withSinkWrite({ ...read(registry, { open_traces: { metric: "ragscope_open_traces" } }), consumer_lag: ownedLag(), ...memory(registry), ...storeParts(registry) }, sink),
  });
}

/** `ragscope receive` and the receiver of `ragscope collect` (registerReceiverMetrics). */
export function receiverHealthReading(registry: MetricsRegistry): () => HealthReading {
  const role = { role: "receiver" };
  return () => ({
    counters: {
      ...read(registry, {
        spans_received: { metric: "ragscope_spans_received_total", labels: role },
        spans_dropped: { metric: "ragscope_spans_dropped_total", labels: role },
      }),
      ...receiverRequests(registry),
      ...grpcRequests(registry),
      ...logRecordsLeftOut(registry, "receiver"),
    },
    gauges: memory(registry),
  });
}
