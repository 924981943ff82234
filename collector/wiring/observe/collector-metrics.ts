/**
 * The metrics a collector process exposes on /metrics, read from the counters
 * its parts keep. Names follow Prometheus conventions (`_total` counters,
 * base units); `role` tells the receiver's numbers from the evaluator's when
 * one process runs both (`ragscope collect`).
 *
 * Nothing an evaluator reads is dropped: an undecodable message is
 * dead-lettered, and so are spans it refuses as the receiver would (an
 * all-zero id, a time far ahead, a zero time); spans arriving after their trace was
 * evaluated re-open it.
 * Dropped spans are counted where they can happen: in requests the receiver
 * decoded and could not publish (503 answers are retried by OTLP clients).
 */
import { readFileSync } from "node:fs";
import { getHeapStatistics } from "node:v8";
import type { EvaluationWorker } from "../../07-evaluate/evaluation-worker.js";
import { unread } from "../../02-transport/kafka/broker-lag.js";
import type { ConsumerGroupRunner } from "../../02-transport/kafka/consumer-group-runner.js";
import type { KafkaTracePublisher } from "../../02-transport/kafka/kafka-trace-publisher.js";
import type { Repartitioner } from "../../02-transport/kafka/repartitioner.js";
import type { ReceiverCounters } from "../../01-receive/receiver-counters.js";
import type { MeasuredSink } from "./measured-sink.js";
import type { Histogram, MetricsRegistry, Sample } from "./metrics-registry.js";
import { DEAD_LETTER_REASONS } from "../../02-transport/kafka/route-message.js";
import { SPAN_REFUSAL_REASONS } from "../../02-transport/kafka/screen-consumed-spans.js";
import { NO_REQUEST_REASONS } from "../../06-rebuild/rag-request-evidence.js";
import { MALFORMED_ATTRIBUTE_KINDS } from "../../../contracts/case-result.js";

/** Seconds; ClickHouse inserts of a batch take milliseconds to seconds. */
export const sinkLatencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Seconds from a trace's last span to its result stored: at least the quiet period (2 s by default), so the
 * buckets are dense from 1 to 5 s, where "quiet period + 1 s" falls for the usual settings.
 */
export const freshnessBuckets = [0.5, 1, 1.5, 2, 2.25, 2.5, 2.75, 3, 3.5, 4, 5, 7.5, 10, 15, 30, 60, 120];

/**
 * ragscope_trace_freshness_seconds: how long after its last span a trace's evaluation was stored and queryable
 * (the quiet period, the wait for evaluation and the write). Counted from when the span was received by the
 * embedded collector, from when it was read from Kafka by an evaluator (Kafka's own delay is its consumer lag).
 */
export function registerFreshness(registry: MetricsRegistry): Histogram {
  return registry.histogram("ragscope_trace_freshness_seconds", "seconds from a trace's last span received (embedded) or read from Kafka (evaluator) to its evaluation stored", freshnessBuckets);
}

/**
 * RssFile of /proc/self/status: the resident pages mapped from files. The embedded engine's library is ~570 MB of
 * code, of which serve touches ~200–250 MB: a quarter of its resident set at load, shared and reclaimable, unlike
 * the heap. No sample where the kernel does not report it (not Linux).
 */
function residentFileBytes(): Sample[] {
  let status: string;
  try {
    status = readFileSync("/proc/self/status", "latin1");
  } catch {
    return [];
  }
  const kibibytes = /^RssFile:\s+(\d+) kB$/m.exec(status)?.[1];
  return kibibytes === undefined ? [] : [{ value: Number(kibibytes) * 1024 }];
}

export function registerProcessMetrics(registry: MetricsRegistry, limits: { maxHeapBytes: number }): void {
  // V8's heap statistics, not process.memoryUsage(): that one also reads the resident set from the kernel on every
  // call, three times a scrape (~40 µs each; 1.6 % of serve's event loop when the benchmarks sample /metrics every 100 ms).
  registry.gauge("ragscope_process_heap_used_bytes", "JavaScript heap in use", () => getHeapStatistics().used_heap_size);
  // What of the resident set is JavaScript: the heap V8 holds (in use or not yet collected), and memory outside it that
  // JavaScript objects own (Buffers: request bodies, insert bodies). The rest is the engine, code and the allocator's.
  registry.gauge("ragscope_process_heap_total_bytes", "JavaScript heap held by the main thread (in use and garbage not yet collected)", () => getHeapStatistics().total_heap_size);
  registry.gauge("ragscope_process_external_bytes", "memory outside the JavaScript heap owned by JavaScript objects (Buffers)", () => getHeapStatistics().external_memory);
  registry.gauge("ragscope_process_resident_memory_bytes", "resident set size of the process", () => process.memoryUsage.rss());
  registry.gauge("ragscope_process_resident_file_bytes", "resident memory backed by files: mapped code, most of it the embedded engine's library, which the kernel can drop and read again (Linux)", residentFileBytes);
  registry.gauge("ragscope_memory_bound_bytes", "configured heap bound (RAGSCOPE_MAX_HEAP_MB); the evaluator pauses reading before it", () => limits.maxHeapBytes);
}

/** serve's and the receiver's drop counter say the same: both count ReceiverCounters.spansDropped. */
const SPANS_DROPPED_HELP =
  "spans in decoded requests that were answered with an error (clients retry 503 answers), and spans refused in accepted ones (invalid ids, future times); counted once decided, never a span still waiting for the bus";

export function registerReceiverMetrics(registry: MetricsRegistry, counters: ReceiverCounters, publisher: KafkaTracePublisher): void {
  const role = { role: "receiver" };
  registerReceiverRequestMetrics(registry, counters);
  // `ragscope collect` starts the evaluator first: the receiver then adds its samples under role="receiver".
  const shared = (name: string, help: string, value: () => number) => counterOrExtend(registry, { name, help }, () => [{ labels: role, value: value() }]);
  shared("ragscope_spans_received_total", "spans received: in decoded OTLP requests (receiver) or in messages assembled from Kafka (evaluator)", () => counters.spansReceived);
  shared("ragscope_traces_received_total", "traces received: per-trace messages published (receiver) or traces opened for assembly (evaluator)", () => counters.tracesPublished);
  registry.counter("ragscope_spans_published_total", "spans acknowledged by Kafka", () => counters.spansAccepted);
  registry.counter("ragscope_spans_dropped_total", SPANS_DROPPED_HELP, () => [
    { labels: role, value: counters.spansDropped },
  ]);
  registry.counter("ragscope_kafka_publish_failures_total", "failed publishes to Kafka", () => [{ labels: role, value: publisher.counters.failures }]);
  registerReceiverBoundMetrics(registry, counters);
  registerLogRecordMetrics(registry, counters);
}

/** The receiver's requests by outcome: all of them (OTLP/HTTP and OTLP/gRPC), and the gRPC ones among them on their own. */
function registerReceiverRequestMetrics(registry: MetricsRegistry, counters: ReceiverCounters): void {
  registry.counter("ragscope_receiver_requests_total", "OTLP requests (HTTP and gRPC) by outcome", () => [
    { labels: { outcome: "accepted" }, value: counters.accepted },
    ...Object.entries(counters.rejected).map(([reason, value]) => ({ labels: { outcome: reason }, value })),
  ]);
  registry.counter("ragscope_receiver_grpc_requests_total", "OTLP/gRPC requests by outcome (also counted in ragscope_receiver_requests_total)", () => [
    { labels: { outcome: "accepted" }, value: counters.grpc.accepted },
    ...Object.entries(counters.grpc.rejected).map(([reason, value]) => ({ labels: { outcome: reason }, value })),
  ]);
}

/** What the receiver changed in spans it accepted, at its bounds (SECURITY.md "Limits"): each change is also recorded on its span. */
function registerReceiverBoundMetrics(registry: MetricsRegistry, counters: ReceiverCounters): void {
  registry.counter(
    "ragscope_receiver_dropped_total",
    "span events and links past RAGSCOPE_MAX_EVENTS_PER_SPAN / RAGSCOPE_MAX_LINKS_PER_SPAN, and attributes with a key longer than RAGSCOPE_MAX_ATTRIBUTE_KEY_BYTES, that the receiver dropped; counted on each span (ragscope.dropped_events_count, ragscope.dropped_links_count, ragscope.dropped_attributes)",
    () => [
      { labels: { item: "event" }, value: counters.eventsDropped },
      { labels: { item: "link" }, value: counters.linksDropped },
      { labels: { item: "attribute" }, value: counters.attributesDroppedForKeyLength },
    ],
  );
  registry.counter("ragscope_receiver_spans_rejected_total", "spans the receiver refused in requests it otherwise accepted, told to the client as partial success: an all-zero trace or span id, a time past RAGSCOPE_MAX_FUTURE_SPAN_SECONDS after its clock, or a zero (unset) or pre-2000 start or end time (zero_time)", () => [
    { labels: { reason: "invalid_id" }, value: counters.spansRejectedInvalidId },
    { labels: { reason: "future_time" }, value: counters.spansRejectedFutureTime },
    { labels: { reason: "zero_time" }, value: counters.spansRejectedZeroTime },
  ]);
  registry.counter("ragscope_receiver_attribute_values_truncated_total", "attribute values the receiver truncated to RAGSCOPE_MAX_ATTRIBUTE_VALUE_BYTES; listed on each span (ragscope.truncated_attributes)", () => counters.attributeValuesTruncated);
  registry.counter("ragscope_receiver_names_truncated_total", "span and span event names the receiver truncated to RAGSCOPE_MAX_NAME_BYTES; listed on each span (ragscope.truncated_names)", () => counters.namesTruncated);
  // Refused before any request could be read, so in no request's outcome: without this a client turned away at the cap went uncounted.
  registry.counter("ragscope_receiver_connections_dropped_total", "client connections closed as they arrived because RAGSCOPE_MAX_CONNECTIONS were open (OTLP/HTTP and OTLP/gRPC ports each)", () => counters.connectionsDropped);
}

/**
 * OTLP log records (`POST /v1/logs`, gRPC `LogsService/Export`) at the receiver: received, and those left out as no
 * event of a span (no trace or span id, no event name).
 */
function registerLogRecordMetrics(registry: MetricsRegistry, receiver: ReceiverCounters): void {
  // `ragscope collect` registers its evaluator's samples first (role="evaluator"): the receiver's then say their role.
  const role: Record<string, string> = registry.has(logRecordsReceived.name) ? { role: "receiver" } : {};
  counterOrExtend(registry, logRecordsReceived, () => [{ labels: role, value: receiver.logRecords.received }]);
  counterOrExtend(registry, logRecordsLeftOut, () => [
    { labels: { ...role, reason: "without_span" }, value: receiver.logRecords.withoutSpan },
    { labels: { ...role, reason: "without_event_name" }, value: receiver.logRecords.withoutEventName },
  ]);
}

const logRecordsReceived = { name: "ragscope_log_records_received_total", help: "OTLP log records in logs requests that decoded (role=evaluator: in the logs messages an evaluator read from Kafka)" };
const logRecordsLeftOut = {
  name: "ragscope_log_records_left_out_total",
  help: "OTLP log records accepted but not kept, being no event of a span: no trace or span id (without_span), no event name (without_event_name)",
};

/** A counter that more than one role writes: `collect` runs a receiver and an evaluator in one process, one registry. */
function counterOrExtend(registry: MetricsRegistry, metric: { name: string; help: string }, samples: () => Sample[]): void {
  if (registry.has(metric.name)) registry.extend(metric.name, samples);
  else registry.counter(metric.name, metric.help, samples);
}

/** What becomes of a log event at assembly (ragscope_log_events_total{outcome}; the health snapshots' `log_events_<outcome>`). */
export const LOG_EVENT_OUTCOMES = ["joined", "duplicate", "span_not_in_trace", "trace_without_spans"] as const;

/**
 * Log events at assembly, by what became of them: joined to their span, sent again and kept once, or read by nothing —
 * the trace has no such span, or no span at all (its spans never came, or came to a trace already forgotten); counted
 * at each release of a re-opened trace.
 */
function registerLogEventMetrics(registry: MetricsRegistry, worker: EvaluationWorker): void {
  const assembled = worker.assembler.counters;
  const values: Record<(typeof LOG_EVENT_OUTCOMES)[number], () => number> = {
    joined: () => assembled.logEventsAccepted - assembled.logEventsWithoutSpan - assembled.logEventsWithoutTrace,
    duplicate: () => assembled.duplicateLogEvents,
    span_not_in_trace: () => assembled.logEventsWithoutSpan,
    trace_without_spans: () => assembled.logEventsWithoutTrace,
  };
  registry.counter("ragscope_log_events_total", "log events (OTLP log records that are events of a span) at assembly: joined to their span, duplicate (sent again, kept once), span_not_in_trace, trace_without_spans", () =>
    LOG_EVENT_OUTCOMES.map((outcome) => ({ labels: { outcome }, value: values[outcome]() })),
  );
}

/**
 * The log records of the logs messages an evaluator read from Kafka (an OpenTelemetry Collector's logs topic, and
 * `ragscope receive`'s messages of log events), under role="evaluator": the receiver's two counters when the same
 * process also receives (`collect`), their own otherwise. Events of a span go on to the assembler
 * (ragscope_log_events_total says what became of them); the rest are counted here and not kept.
 */
function registerConsumedLogRecordMetrics(registry: MetricsRegistry, runner: ConsumerGroupRunner): void {
  const read = runner.logRecords;
  const role = { role: "evaluator" };
  counterOrExtend(registry, logRecordsReceived, () => [{ labels: role, value: read.events + read.withoutSpan + read.withoutEventName }]);
  counterOrExtend(registry, logRecordsLeftOut, () => [
    { labels: { ...role, reason: "without_span" }, value: read.withoutSpan },
    { labels: { ...role, reason: "without_event_name" }, value: read.withoutEventName },
  ]);
}

export interface EvaluatorParts {
  runner: ConsumerGroupRunner;
  worker: EvaluationWorker;
  sink: MeasuredSink;
  repartitioner: Repartitioner;
  sinkLatency: Histogram;
}

export function registerEvaluatorMetrics(registry: MetricsRegistry, parts: EvaluatorParts): void {
  const { runner, worker, sink } = parts;
  const role = { role: "evaluator" };
  // When the receiver registered the same metric (collect), the evaluator adds its samples under role="evaluator".
  const shared = (name: string, help: string, value: () => number) => counterOrExtend(registry, { name, help }, () => [{ labels: role, value: value() }]);
  shared("ragscope_spans_received_total", "spans received", () => runner.counters.spansAssembled);
  // A re-opened trace is released twice but received once.
  shared("ragscope_traces_received_total", "traces received", () => worker.assembler.openTraces + worker.assembler.counters.tracesReleased - worker.assembler.counters.reopenedTraces);
  registry.counter("ragscope_kafka_messages_consumed_total", "Kafka messages handled, by route", () => [
    { labels: { route: "assembled" }, value: runner.counters.messagesAssembled },
    { labels: { route: "repartitioned" }, value: runner.counters.messagesRepartitioned },
    { labels: { route: "dead_lettered" }, value: runner.counters.messagesDeadLettered },
    { labels: { route: "empty" }, value: runner.counters.messagesEmpty },
  ]);
  registry.counter("ragscope_traces_repartitioned_total", "traces republished keyed by trace id", () => parts.repartitioner.counters.traces);
  registry.counter("ragscope_spans_repartitioned_total", "spans republished keyed by trace id", () => parts.repartitioner.counters.spans);
  registry.counter("ragscope_log_events_repartitioned_total", "log events (log records that are events of a span) republished keyed by trace id, to meet their trace's spans", () => parts.repartitioner.counters.logEvents);
  // Every reason from the start, at 0: a labelled counter without samples until its first dead letter gave rate() and
  // absence alerts no series to read.
  registry.counter("ragscope_messages_dead_lettered_total", "letters written to the dead-letter topic, by reason: a message the evaluator cannot use, or the spans it refused in one (invalid_id, future_time, zero_time)", () =>
    [...new Set<string>([...DEAD_LETTER_REASONS, ...runner.deadLettersByReason.keys()])].map((reason): Sample => ({ labels: { reason }, value: runner.deadLettersByReason.get(reason) ?? 0 })),
  );
  registerEvaluatorScreeningMetrics(registry, runner);
  registry.counter("ragscope_traces_evaluated_total", "traces evaluated (offered to the sink)", () => sink.counters.tracesEvaluated);
  registry.counter("ragscope_spans_evaluated_total", "spans of the traces evaluated", () => sink.counters.spansEvaluated);
  registry.counter("ragscope_traces_written_total", "traces whose results the sink confirmed", () => sink.counters.traces);
  registry.counter("ragscope_spans_written_total", "spans of the traces written", () => sink.counters.spans);
  registerEvaluationWorkerMetrics(registry, worker);
  registerConsumedLogRecordMetrics(registry, runner);
  registry.counter("ragscope_sink_write_failures_total", "failed sink writes (each retried)", () => sink.counters.failures);
  registry.gauge("ragscope_consumer_paused", "1 while reading is paused, by reason", () =>
    (["sink_backlog", "buffered_spans", "heap"] as const).map((reason) => ({ labels: { reason }, value: runner.pausedFor === reason ? 1 : 0 })),
  );
  registry.counter("ragscope_consumer_pauses_total", "times reading paused", () => runner.counters.pauses);
  // Every partition of the topics read, from the broker's offsets (broker-lag.ts): several evaluators report the
  // same partitions, so aggregate across them with max, not sum.
  registry.gauge("ragscope_kafka_consumer_lag", "messages between the read position (this member's, or the group's commit for partitions it does not read) and the high watermark, per partition of the topic", () =>
    runner.partitionLag().map((lag) => ({ labels: { topic: lag.topic, partition: String(lag.partition) }, value: unread(lag) })),
  );
  registry.gauge("ragscope_kafka_commit_lag", "messages between the group's committed offset and the high watermark, per partition of the topic (NaN before the first commit)", () =>
    runner.partitionLag().map((lag) => ({ labels: { topic: lag.topic, partition: String(lag.partition) }, value: lag.committed === null ? NaN : Number(lag.highWatermark - lag.committed) })),
  );
  // The lag above is the last one read: while Kafka is unreachable it stands still, and its age says so.
  registry.gauge("ragscope_kafka_consumer_lag_age_seconds", "seconds since ragscope_kafka_consumer_lag and ragscope_kafka_commit_lag were last read from the broker (every commit tick while Kafka answers)", () =>
    runner.brokerLag.ageSeconds(),
  );
  registry.counter("ragscope_kafka_consumer_crashes_total", "crashes of the Kafka consumer (kafkajs leaves the group and restarts it; /readyz is 503 until it joined again)", () => runner.counters.crashes);
  registry.counter("ragscope_kafka_rebalances_total", "group joins of this member", () => runner.counters.rebalances);
  registry.counter("ragscope_kafka_commits_total", "offset commits", () => runner.committer.counters.commits);
  registry.counter("ragscope_kafka_commit_failures_total", "offset commits that failed (retried on the next tick)", () => runner.committer.counters.failures);
  registry.counter("ragscope_kafka_produce_retries_total", "retries of republishing or dead-lettering while the broker refused", () => runner.counters.produceRetries);
}

/**
 * What the evaluation worker counts, the same wherever it runs (`serve`, or an evaluator reading Kafka): assembly
 * (duplicates, open traces, log events), rebuild (notes, refused identifiers, invalid results, traces without a
 * request), and the store's answers (quarantined results, the backlog). One function, so that a counter added for one
 * role is never missing from the other.
 */
function registerEvaluationWorkerMetrics(registry: MetricsRegistry, worker: EvaluationWorker): void {
  registry.counter("ragscope_traces_partial_total", "traces evaluated without their root (deadline, memory bound), flagged partial", () => worker.counters.partialTraces);
  registry.counter(
    "ragscope_malformed_json_attributes_total",
    "span attributes defined as JSON text (document metadata, messages, retrieval documents) that did not parse; listed on the Case Result as rag_observation.malformed_attributes",
    () => worker.counters.malformedJsonAttributes,
  );
  registerMalformedAttributes(registry, worker);
  registry.counter("ragscope_case_results_invalid_total", "rebuilt Case Results that failed their schema: dead-lettered with the reasons, not stored", () => worker.counters.invalidCaseResults);
  registry.counter("ragscope_identifiers_rejected_total", "run, case, dataset, tenant, route or service identifiers refused at ingestion: not stored, noted on the Case Result", () => worker.counters.rejectedIdentifiers);
  registry.counter("ragscope_unknown_cases_total", "traces naming an Eval Case (case id and version) the store does not hold: evaluated without gold data, as online traffic; counted once per trace, also when late spans re-open it", () => worker.counters.unknownCases);
  registerTracesWithoutRequest(registry, worker);
  registry.counter("ragscope_spans_duplicate_total", "spans received again (a client's retry, at-least-once delivery) and kept once", () => worker.assembler.counters.duplicateSpans);
  registerLogEventMetrics(registry, worker);
  registry.counter("ragscope_traces_quarantined_total", "traces whose results the store refused as bad data, kept in the quarantined_results table", () => worker.counters.quarantined);
  registry.gauge("ragscope_open_traces", "traces being assembled", () => worker.assembler.openTraces);
  registry.gauge("ragscope_open_spans", "spans held in open traces", () => worker.assembler.openSpans);
  registry.gauge("ragscope_sink_backlog_traces", "evaluated traces waiting for the store", () => worker.backlog);
}

/**
 * The notes on rebuilt Case Results (`rag_observation.malformed_attributes`), by kind, every kind from the start at 0:
 * values the collector could not take as sent — JSON that did not parse, values a reader could not read, refused
 * identifiers, impossible times, truncations, tenant claims — which the Case Result shows as not available.
 */
function registerMalformedAttributes(registry: MetricsRegistry, worker: EvaluationWorker): void {
  registry.counter(
    "ragscope_malformed_attributes_total",
    "notes on rebuilt Case Results (rag_observation.malformed_attributes) by kind: malformed_json (JSON text that did not parse), unreadable_value (a value a convention's reader could not read: an item that is no document, a score that is no number, a message without text), invalid_identifier, invalid_time, truncated, tenant_claim; each note counted once per trace: a trace that late spans re-open adds only the notes it did not have (remembered for as many traces as are kept to be re-opened, assembler.recentTraceMemory; a re-opened trace no longer remembered has all its notes counted again)",
    () => MALFORMED_ATTRIBUTE_KINDS.map((kind) => ({ labels: { kind }, value: worker.malformedAttributesByKind[kind] })),
  );
}

/**
 * Traces that record no RAG request (collector/06-rebuild/rag-request-evidence.ts), by reason, every reason from the
 * start at 0: not Case Results, so no other counter shows them, and an operator sees what the collector set aside.
 */
function registerTracesWithoutRequest(registry: MetricsRegistry, worker: EvaluationWorker): void {
  registry.counter(
    "ragscope_traces_without_request_total",
    "traces that record no RAG request (no retrieval, rerank, context, generation, citation or feedback span and no request span marked as one): not rebuilt into Case Results, not stored; embedding_only: only embedding spans (an index being built), no_rag_stage: any other; counted once, when first released (late spans that re-open it do not count it again)",
    () => NO_REQUEST_REASONS.map((reason) => ({ labels: { reason }, value: worker.tracesWithoutRequest[reason] })),
  );
  registry.counter(
    "ragscope_traces_reopened_total",
    "traces that spans arriving after their release re-opened (the released traces kept for this are bounded by RAGSCOPE_MAX_RECENT_TRACE_BYTES): evaluated again with every span, the new result replacing the earlier one",
    () => worker.assembler.counters.reopenedTraces,
  );
}

/**
 * What the evaluator's screening of spans read from Kafka (screen-consumed-spans.ts) refused and cut: the receiver's
 * checks, with its reason and item names, for spans that reached the topic without passing a receiver.
 */
function registerEvaluatorScreeningMetrics(registry: MetricsRegistry, runner: ConsumerGroupRunner): void {
  registry.counter(
    "ragscope_evaluator_spans_rejected_total",
    "spans read from Kafka that the evaluator refused as the receiver does (an all-zero trace or span id, a time past RAGSCOPE_MAX_FUTURE_SPAN_SECONDS after its clock, or a zero (unset) or pre-2000 start or end time (zero_time)): not evaluated, dead-lettered with the reason",
    () => SPAN_REFUSAL_REASONS.map((reason) => ({ labels: { reason }, value: runner.spansRefused[reason] })),
  );
  const limited = runner.spansLimited;
  registry.counter(
    "ragscope_evaluator_dropped_total",
    "span events and links past RAGSCOPE_MAX_EVENTS_PER_SPAN / RAGSCOPE_MAX_LINKS_PER_SPAN, and attributes with a key longer than RAGSCOPE_MAX_ATTRIBUTE_KEY_BYTES, that the evaluator dropped from spans read from Kafka; counted on each span as the receiver does",
    () => [
      { labels: { item: "event" }, value: limited.droppedEvents },
      { labels: { item: "link" }, value: limited.droppedLinks },
      { labels: { item: "attribute" }, value: limited.droppedAttributes },
    ],
  );
  registry.counter("ragscope_evaluator_attribute_values_truncated_total", "attribute values of spans read from Kafka that the evaluator truncated to RAGSCOPE_MAX_ATTRIBUTE_VALUE_BYTES; listed on each span (ragscope.truncated_attributes)", () => limited.truncatedValues);
  registry.counter("ragscope_evaluator_names_truncated_total", "span and span event names read from Kafka that the evaluator truncated to RAGSCOPE_MAX_NAME_BYTES; listed on each span (ragscope.truncated_names)", () => limited.truncatedNames);
}

/** The parts of the embedded collector (`ragscope serve`) that /metrics reads. */
export interface EmbeddedParts {
  receiver: ReceiverCounters;
  worker: EvaluationWorker;
  /** Messages waiting in the in-process bus. */
  queued: () => number;
  /** Bytes the in-process bus holds (encoded lengths, decoded traces' estimated heap). */
  queuedBytes: () => number;
  /** Requests whose decoded traces waited for room in the in-process bus (and were taken), and those waiting now. */
  publishes: { waited: () => number; waiting: () => number };
  deadLetters: { readonly counters: { readonly received: number }; readonly stored: number; readonly pending: number };
}

export function registerEmbeddedMetrics(registry: MetricsRegistry, parts: EmbeddedParts): void {
  const { receiver, worker } = parts;
  registerReceiverRequestMetrics(registry, receiver);
  registry.counter("ragscope_spans_received_total", "spans in decoded OTLP requests", () => receiver.spansReceived);
  registry.counter("ragscope_spans_dropped_total", SPANS_DROPPED_HELP, () => receiver.spansDropped);
  registerReceiverBoundMetrics(registry, receiver);
  registerLogRecordMetrics(registry, receiver);
  registry.counter("ragscope_traces_written_total", "traces evaluated and written to the store (durable)", () => worker.counters.tracesEvaluated);
  registry.counter("ragscope_messages_dead_lettered_total", "messages the evaluation could not read, kept as dead letters", () => parts.deadLetters.counters.received);
  registry.gauge("ragscope_dead_letters_stored", "dead letters in the store's dead_letters table, earlier runs included (ragscope dead-letters lists them)", () => parts.deadLetters.stored);
  registry.gauge("ragscope_dead_letters_unsaved", "dead letters the store refused so far, held in memory and retried", () => parts.deadLetters.pending);
  registerEvaluationWorkerMetrics(registry, worker);
  registry.counter("ragscope_sink_write_failures_total", "failed store writes (each retried)", () => worker.counters.sinkFailures);
  registry.gauge("ragscope_queued_messages", "messages waiting in the in-process bus", () => parts.queued());
  registry.gauge("ragscope_queued_bytes", "bytes the in-process bus holds (estimated heap of decoded traces), bounded by RAGSCOPE_MAX_QUEUED_BYTES", () => parts.queuedBytes());
  registry.counter("ragscope_publishes_waited_total", "requests whose decoded traces did not fit the in-process bus and waited for room rather than being refused after decoding (taken once the queue was read)", () => parts.publishes.waited());
  registry.gauge("ragscope_publishes_waiting", "requests waiting for room in the in-process bus now (each refused with 503 after 2 s at most, or at once when reading pauses for the heap)", () => parts.publishes.waiting());
}
