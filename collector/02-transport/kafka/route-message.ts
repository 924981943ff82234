/**
 * What an evaluator does with one consumed message — decided here, once per
 * message, from its key, partition and decoded content:
 *
 * - **assemble**: the message is keyed by its one trace id and sits in the
 *   partition that trace id belongs to. Every other message of that trace is
 *   in the same partition, read by the same evaluator, so its spans can be
 *   buffered here.
 * - **repartition**: anything else that decodes — no key (the OpenTelemetry
 *   Collector's exporter without `partition_traces_by_id` writes many traces
 *   in one unkeyed message, shared/reference/interop.md §4), several traces,
 *   a key that is not its trace id, or a partition other than the key's (a
 *   producer hashing with murmur2). Assembled here, such a trace could have
 *   other spans in a partition another evaluator reads, and both would write
 *   a partial Case Result under the same id. So the message is split by trace
 *   id and each trace is republished keyed, to the partition its id hashes to;
 *   the source message is done once those are acknowledged.
 * - **dead letter**: no value, larger than `maxMessageBytes`, or not an OTLP
 *   trace request in the encoding it declares (a `content-type` header) or,
 *   without one, in the encoding its first byte suggests.
 * - **empty**: a valid request without spans (or none left once screened);
 *   nothing to do.
 *
 * Every decoded message is screened first (screen-consumed-spans.ts): spans
 * the receiver would have refused are taken out and carried on the route,
 * to be dead-lettered, and the rest is held to the receiver's per-span
 * bounds; the route is decided on what is left.
 *
 * The message is decoded once: the assemble route carries the span records.
 *
 * A message of log events (kafka/log-events-message.ts: `ragscope receive`'s, one trace's records keyed by its trace
 * id) is assembled with its trace where it stays here, as a trace request would be. Any other logs message — read
 * from the logs topic (an OpenTelemetry Collector's `otlp_logs`: unkeyed, many traces, or keyed to a partition of
 * another topic), holding several traces, or on a topic that is never assembled — is **repartitioned**: its records
 * that are events of a span are grouped by trace (and tenant) and each group is republished as a message of log
 * events keyed by its trace id to the assembled topic, where it lands in the partition of the trace's spans. The
 * logs topic's partitions are assigned to evaluators independently of the spans topic's, so no logs message is
 * assembled where it was read. Its records that are no event of a span are counted (`logRecords`) and not kept, as
 * the receiver counts them. A logs message is bounded by `maxMessageBytes` and its records by the span path's
 * limits (records as spans, attributes per record as per span).
 */
import { decodeProtobufSpanRecords } from "../../00-otlp/decode-protobuf-span-records.js";
import { countSpans, decodeTraceRequest, detectEncoding, splitByTraceId, toSpanRecords, type OtlpEncoding } from "../../00-otlp/index.js";
import { decodeLogEvents, tenantFromResource } from "../../00-otlp/decode-log-events.js";
import type { LogEventRecord } from "../../00-otlp/log-event-record.js";
import type { SpanRecord } from "../../00-otlp/span-record.js";
import { logsSignal, signalHeader, tenantHeader } from "./log-events-message.js";
import type { TracesDocument } from "../../00-otlp/traces-document.js";
import { NOTHING_SCREENED, screenConsumedSpans, SPAN_REFUSAL_REASONS, type Screening, type SpanChecks } from "./screen-consumed-spans.js";

/** Why a message was dead-lettered: every reason, so that each has a series from the start (a rate or an absence alert needs one). */
export const DEAD_LETTER_REASONS = ["no_value", "oversized", "undecodable", "wrong_encoding", "unreadable", ...SPAN_REFUSAL_REASONS] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

/** The log records of a logs message, by what became of them: events of a span, kept; the rest counted by why they are not. */
export interface LogRecordTally {
  events: number;
  withoutSpan: number;
  withoutEventName: number;
}

/**
 * `screened`: the spans the screening took out (to dead-letter) and what its bounds cut in the rest. `logRecords`: set
 * on the route of a logs message.
 */
export type MessageRoute =
  | { kind: "assemble"; traceId: string; spans: SpanRecord[]; screened: Screening; logEvents?: LogEventRecord[]; logRecords?: LogRecordTally }
  | { kind: "repartition"; traces: Map<string, TracesDocument>; spanCount: number; screened: Screening }
  /** Log events to republish, one message per group: the events of one trace within one tenant. */
  | { kind: "repartition_log_events"; groups: LogEventRecord[][]; screened: Screening; logRecords: LogRecordTally }
  | { kind: "dead_letter"; reason: DeadLetterReason; detail: string }
  | { kind: "empty"; screened: Screening; logRecords?: LogRecordTally };

export interface ConsumedMessage {
  key: Buffer | null;
  value: Buffer | null;
  partition: number;
  headers?: Record<string, unknown> | undefined;
}

export interface RouteOptions {
  maxMessageBytes: number;
  /**
   * The partition a trace id belongs to in the topic being read, or null when
   * this topic is never assembled (a separate repartition topic is configured:
   * every message of the input topic is republished there).
   */
  partitionOf: ((traceId: string) => number) | null;
  /** What the spans are held to, at the evaluator's clock when the message is read (screen-consumed-spans.ts). */
  checks: SpanChecks;
  /** The message was read from the logs topic: an OTLP logs export request, whatever its headers say. */
  logsTopic?: boolean;
}

/** The header ragscope writes on messages it republishes, and that other producers may set. */
export const contentTypeHeader = "content-type";

/** Set on every message the repartitioner wrote: `<topic>/<partition>/<offset>` of its source. */
export const repartitionedFromHeader = "ragscope.repartitioned_from";

const declaredEncodings: Record<string, OtlpEncoding> = {
  "application/x-protobuf": "protobuf",
  "application/protobuf": "protobuf",
  "application/json": "json",
};

function headerText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (Buffer.isBuffer(value)) return value.toString("utf8");
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.length > 0) return headerText(value[0]);
  return null;
}

export function routeMessage(message: ConsumedMessage, options: RouteOptions): MessageRoute {
  const value = message.value;
  if (value === null || value.length === 0) return { kind: "dead_letter", reason: "no_value", detail: "the message has no value; an OTLP trace request was expected" };
  if (value.length > options.maxMessageBytes) {
    return { kind: "dead_letter", reason: "oversized", detail: `the message has ${value.length} bytes, more than the ${options.maxMessageBytes} allowed (RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES)` };
  }
  const declaredType = headerText(message.headers?.[contentTypeHeader])?.split(";", 1)[0]?.trim().toLowerCase() ?? null;
  const declared = declaredType === null ? null : (declaredEncodings[declaredType] ?? null);
  if (declaredType !== null && declared === null) {
    return { kind: "dead_letter", reason: "wrong_encoding", detail: `content-type "${declaredType}" is not an OTLP encoding (application/x-protobuf or application/json)` };
  }
  const encoding = declared ?? detectEncoding(value);
  const key = message.key === null ? null : message.key.toString("latin1");
  const ragscopeLogs = headerText(message.headers?.[signalHeader]) === logsSignal;
  if (ragscopeLogs || options.logsTopic === true) return routeLogEvents(value, { encoding, declared }, key, message, options, ragscopeLogs);
  if (encoding === "protobuf") {
    // The usual message (one trace, keyed by it, on its partition) read straight into records; anything else, or
    // anything the reader leaves to the decoding path (decode-protobuf-span-records.ts), is decoded below. The
    // reader stops at a second trace, so a message of many is not read twice over. It declines whenever the
    // screening would take a span out or change one, so what it reads passes the screening as it is.
    const { checks } = options;
    const direct = decodeProtobufSpanRecords(value, { limits: checks.limits, latestSpanTimeNanos: checks.latestSpanTimeNanos, oneTrace: true });
    const only = direct?.traces.length === 1 ? direct.traces[0]! : null;
    if (only !== null && staysHere(only.traceId, key, message, options)) return { kind: "assemble", traceId: only.traceId, spans: only.spans, screened: NOTHING_SCREENED };
  }
  const decoded = decodeTraceRequest(value, encoding);
  if (!decoded.ok) {
    if (declared !== null && decodeTraceRequest(value, declared === "json" ? "protobuf" : "json").ok) {
      return { kind: "dead_letter", reason: "wrong_encoding", detail: `declared ${declaredType} but the value is OTLP ${declared === "json" ? "protobuf" : "JSON"}` };
    }
    return { kind: "dead_letter", reason: "undecodable", detail: `not an OTLP trace request (${encoding === "json" ? "otlp_json" : "otlp_proto"}): ${decoded.error.message}` };
  }
  const document = decoded.value;
  const screened = countSpans(document) === 0 ? NOTHING_SCREENED : screenConsumedSpans(document, options.checks);
  const traceIds = new Set<string>();
  let spanCount = 0;
  for (const resourceSpans of document.resourceSpans) {
    for (const scopeSpans of resourceSpans.scopeSpans) {
      for (const span of scopeSpans.spans) {
        traceIds.add(span.traceId);
        spanCount += 1;
      }
    }
  }
  if (spanCount === 0) return { kind: "empty", screened };
  if (traceIds.size === 1) {
    const only = traceIds.values().next().value as string;
    if (staysHere(only, key, message, options)) return { kind: "assemble", traceId: only, spans: toSpanRecords(document), screened };
  }
  return { kind: "repartition", traces: splitByTraceId(document), spanCount, screened };
}

/**
 * A message of log events: assembled with its one trace where that trace is assembled, else republished by trace.
 * `ragscope receive` wrote it (`fromReceiver`): the tenant it authenticated is in a header; otherwise (a Collector's
 * logs) each record's tenant is its resource's, as the Collector's spans carry theirs.
 */
function routeLogEvents(
  value: Buffer,
  { encoding, declared }: { encoding: OtlpEncoding; declared: OtlpEncoding | null },
  key: string | null,
  message: ConsumedMessage,
  options: RouteOptions,
  fromReceiver: boolean,
): MessageRoute {
  const { limits } = options.checks;
  const tenant = fromReceiver ? headerText(message.headers?.[tenantHeader]) : tenantFromResource;
  const decode = (as: OtlpEncoding) =>
    decodeLogEvents(value, as, { maxLogRecordsPerRequest: limits.maxSpansPerRequest, maxAttributeValueBytes: limits.maxAttributeValueBytes, maxAttributesPerRecord: limits.maxAttributesPerSpan }, tenant);
  const decoded = decode(encoding);
  if (!decoded.ok) {
    if ("tooLarge" in decoded.error) return { kind: "dead_letter", reason: "oversized", detail: `an OTLP logs request over the evaluator's limits: ${decoded.error.message}` };
    const other = encoding === "json" ? "protobuf" : "json";
    if (declared !== null && decode(other).ok) {
      return { kind: "dead_letter", reason: "wrong_encoding", detail: `declared ${declared === "json" ? "application/json" : "application/x-protobuf"} but the value is an OTLP logs request in ${other === "json" ? "JSON" : "protobuf"}` };
    }
    return { kind: "dead_letter", reason: "undecodable", detail: `not an OTLP logs request (${encoding === "json" ? "otlp_json" : "otlp_proto"}): ${decoded.error.message}` };
  }
  const { events, withoutSpan, withoutEventName } = decoded.value;
  const logRecords: LogRecordTally = { events: events.length, withoutSpan, withoutEventName };
  if (events.length === 0) return { kind: "empty", screened: NOTHING_SCREENED, logRecords };
  const first = events[0]!;
  const oneGroup = events.every((event) => event.traceId === first.traceId && event.tenant === first.tenant);
  if (fromReceiver && oneGroup && staysHere(first.traceId, key, message, options)) {
    return { kind: "assemble", traceId: first.traceId, spans: [], screened: NOTHING_SCREENED, logEvents: events, logRecords };
  }
  // One group per tenant and trace: a message of log events carries one tenant header.
  const byTenant = new Map<string | null, Map<string, LogEventRecord[]>>();
  for (const event of events) {
    let traces = byTenant.get(event.tenant);
    if (traces === undefined) byTenant.set(event.tenant, (traces = new Map()));
    const list = traces.get(event.traceId);
    if (list === undefined) traces.set(event.traceId, [event]);
    else list.push(event);
  }
  const groups = [...byTenant.values()].flatMap((traces) => [...traces.values()]);
  return { kind: "repartition_log_events", groups, screened: NOTHING_SCREENED, logRecords };
}

/** Whether a message of one trace is evaluated where it is: keyed by its trace, on the trace's partition. */
function staysHere(traceId: string, key: string | null, message: ConsumedMessage, options: RouteOptions): boolean {
  if (options.partitionOf === null || key !== traceId) return false;
  // A message ragscope already repartitioned is trusted where it landed: were
  // the producer's view of the partition count briefly older than ours (a
  // topic being expanded), republishing it again could go round in a loop.
  return options.partitionOf(traceId) === message.partition || headerText(message.headers?.[repartitionedFromHeader]) !== null;
}
