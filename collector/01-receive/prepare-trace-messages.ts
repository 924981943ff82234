/**
 * The CPU-heavy part of a trace export: decode the body, refuse invalid ids,
 * apply the request limits, split by trace id and, per trace (a large trace
 * in parts of at most SPANS_PER_MESSAGE spans, split-into-parts.ts), either
 * re-encode one protobuf message for a bus that carries bytes (Kafka) or make
 * the span records for a bus in this process (`output: "decoded"`). A
 * protobuf request for a bus of bytes is first cut by copying its bytes
 * (split-protobuf-by-trace-id.ts), which gives the same messages without
 * decoding; a protobuf request for a bus in this process is read straight
 * into records (decode-protobuf-span-records.ts). The decoding path runs
 * when either declines. It runs
 * in a decode thread (decode-thread.ts) so one large request does not hold
 * the event loop that answers everyone else.
 */
import { cutEventsAndLinks, droppedByDecodedSpan } from "../00-otlp/cut-protobuf-events-and-links.js";
import { enforceRequestLimits, type LimitsApplied, type RequestLimits } from "../00-otlp/enforce-request-limits.js";
import { countSpans } from "../00-otlp/count-spans.js";
import { countJsonContainers, countProtobufItems } from "../00-otlp/count-request-items.js";
import { decodeProtobufSpanRecords } from "../00-otlp/decode-protobuf-span-records.js";
import { decodeTraceRequest } from "../00-otlp/decode-trace-request.js";
import { encodeTraceRequest } from "../00-otlp/encode-protobuf.js";
import type { OtlpEncoding } from "../00-otlp/otlp-encoding.js";
import { rejectInvalidIds } from "../00-otlp/reject-invalid-ids.js";
import { rejectFutureSpans } from "../00-otlp/reject-future-spans.js";
import { rejectZeroTimeSpans } from "../00-otlp/reject-zero-time-spans.js";
import { splitByTraceId } from "../00-otlp/split-by-trace-id.js";
import { splitIntoParts } from "../00-otlp/split-into-parts.js";
import { splitProtobufByTraceId } from "../00-otlp/split-protobuf-by-trace-id.js";
import { stampTenant } from "../00-otlp/stamp-tenant.js";
import { estimateSpanBytes } from "../05-assemble/estimate-span-bytes.js";
import { storeSpanTexts } from "../00-otlp/stored-span-text.js";
import { toSpanRecords } from "../00-otlp/to-span-records.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import type { DecodedTrace } from "../02-transport/trace-bus.js";
import type { TracesDocument } from "../00-otlp/traces-document.js";

export interface PrepareRequest {
  body: Uint8Array;
  encoding: OtlpEncoding;
  limits: RequestLimits;
  /** The tenant the credential names (SECURITY.md "Tenants"); null without tenant tokens. */
  tenant: string | null;
  /** What the bus takes: encoded messages (default) or decoded span records. */
  output?: "encoded" | "decoded";
  /** The largest message the bus takes (encoded output): a part above it is cut further (messagesWithin). */
  maxMessageBytes?: number;
  /**
   * Spans starting or ending later (Unix nanoseconds) are rejected (reject-future-spans.ts), and so are spans with a
   * zero start or end (reject-zero-time-spans.ts); absent: span times are not checked.
   */
  latestSpanTimeNanos?: bigint;
  /** What the body is: a trace export (default) or a logs export, whose records are events of spans (prepare-log-messages.ts). */
  signal?: "traces" | "logs";
}

export type PreparedMessages =
  | { kind: "prepared"; messages: { key: string; value: Uint8Array }[]; spanCount: number; rejectedSpans: number; futureSpans: number; zeroTimeSpans: number; limited: LimitsApplied }
  | { kind: "decoded"; traces: DecodedTrace[]; spanCount: number; rejectedSpans: number; futureSpans: number; zeroTimeSpans: number; limited: LimitsApplied }
  | { kind: "malformed"; message: string }
  | { kind: "tooLarge"; message: string };

/** What the limits changed in a request the byte readers took: nothing (they decline whenever the limits would change a span). */
const NOTHING_LIMITED: LimitsApplied = { truncatedValues: 0, droppedEvents: 0, droppedLinks: 0, droppedAttributes: 0, truncatedNames: 0 };

/** Spans in one message: bounds the main thread's decoding slice in the evaluation loop (a few tens of milliseconds). */
export const SPANS_PER_MESSAGE = 256;

export function prepareTraceMessages(request: PrepareRequest): PreparedMessages {
  // The request's items are counted on its bytes before any path decodes them (count-request-items.ts).
  const items = request.encoding === "protobuf" ? countProtobufItems(request.body, request.limits) : countJsonContainers(request.body, request.limits);
  if (items.kind === "over") return { kind: "tooLarge", message: items.message };
  if (request.output !== "decoded" && request.encoding === "protobuf" && request.tenant === null) {
    // Bytes to a bus of bytes: the request's spans copied into per-trace messages, nothing decoded (it declines, null,
    // whenever decoding would refuse the request or change a span).
    const split = splitProtobufByTraceId(request.body, {
      limits: request.limits,
      maxSpansPerMessage: SPANS_PER_MESSAGE,
      maxMessageBytes: request.maxMessageBytes ?? Number.POSITIVE_INFINITY,
      ...(request.latestSpanTimeNanos === undefined ? {} : { latestSpanTimeNanos: request.latestSpanTimeNanos }),
    });
    if (split !== null) return { kind: "prepared", messages: split.messages, spanCount: split.spanCount, rejectedSpans: 0, futureSpans: 0, zeroTimeSpans: 0, limited: NOTHING_LIMITED };
  }
  if (request.output === "decoded" && request.encoding === "protobuf") {
    // Bytes to records for a bus in this process, without the intermediate documents (it declines, null, whenever
    // the decoding path would refuse the request or change a span).
    const decoded = decodeProtobufSpanRecords(request.body, { limits: request.limits, stamp: { tenant: request.tenant }, ...(request.latestSpanTimeNanos === undefined ? {} : { latestSpanTimeNanos: request.latestSpanTimeNanos }) });
    if (decoded !== null) {
      const traces: DecodedTrace[] = [];
      for (const trace of decoded.traces) for (let start = 0; start < trace.spans.length; start += SPANS_PER_MESSAGE) traces.push(decodedTrace(trace.traceId, trace.spans.slice(start, start + SPANS_PER_MESSAGE)));
      return { kind: "decoded", traces, spanCount: decoded.spanCount, rejectedSpans: 0, futureSpans: 0, zeroTimeSpans: 0, limited: NOTHING_LIMITED };
    }
  }
  return prepareByDecoding(request);
}

/** One part of a trace for a bus in this process, with its stored texts (made here rather than in the evaluation loop, which then only joins them; one buffer a part, transferred) and its estimated bytes. */
function decodedTrace(key: string, spans: SpanRecord[]): DecodedTrace {
  storeSpanTexts(spans);
  let bytes = 0;
  for (const span of spans) bytes += estimateSpanBytes(span);
  return { key, spans, bytes };
}

/** The decoding path: every request it is given, either encoding, either output. */
export function prepareByDecoding(request: PrepareRequest): PreparedMessages {
  // Events and links past the per-span bounds are left out before protobufjs makes objects of them (null: none were).
  const cut = request.encoding === "protobuf" ? cutEventsAndLinks(request.body, request.limits) : null;
  const decoded = decodeTraceRequest(cut?.body ?? request.body, request.encoding);
  if (!decoded.ok) return { kind: "malformed", message: decoded.error.message };
  const droppedBeforeDecoding = cut === null ? undefined : droppedByDecodedSpan(decoded.value, cut);
  const { rejectedSpans } = rejectInvalidIds(decoded.value);
  const futureSpans = request.latestSpanTimeNanos === undefined ? 0 : rejectFutureSpans(decoded.value, request.latestSpanTimeNanos);
  // A span both future and zero-timed is counted once, as future: the order the Kafka screening keeps too.
  const zeroTimeSpans = request.latestSpanTimeNanos === undefined ? 0 : rejectZeroTimeSpans(decoded.value);
  const limited = enforceRequestLimits(decoded.value, request.limits, droppedBeforeDecoding);
  if (!limited.ok) return { kind: "tooLarge", message: limited.error };
  stampTenant(decoded.value, request.tenant);
  const spanCount = countSpans(decoded.value);
  if (request.output === "decoded") {
    const traces: DecodedTrace[] = [];
    for (const [traceId, trace] of splitByTraceId(decoded.value)) {
      for (const part of splitIntoParts(trace, SPANS_PER_MESSAGE)) traces.push(decodedTrace(traceId, toSpanRecords(part)));
    }
    return { kind: "decoded", traces, spanCount, rejectedSpans, futureSpans, zeroTimeSpans, limited: limited.value };
  }
  const messages: { key: string; value: Uint8Array }[] = [];
  const maxMessageBytes = request.maxMessageBytes ?? Number.POSITIVE_INFINITY;
  for (const [traceId, trace] of splitByTraceId(decoded.value)) for (const part of splitIntoParts(trace, SPANS_PER_MESSAGE)) for (const value of messagesWithin(part, maxMessageBytes)) messages.push({ key: traceId, value });
  return { kind: "prepared", messages, spanCount, rejectedSpans, futureSpans, zeroTimeSpans, limited: limited.value };
}

/**
 * A part encoded as one message, or, when that is larger than `maxMessageBytes`, as several of fewer spans each
 * (halved until each fits, or holds one span): a trace of many large spans — retrieved documents on every span — is
 * published whole, keyed as one trace, and the assembler joins its messages. Only a single span larger than the limit
 * stays too large; the bus refuses it (413).
 */
function messagesWithin(part: TracesDocument, maxMessageBytes: number): Uint8Array[] {
  const value = encodeTraceRequest(part);
  const spans = countSpans(part);
  if (value.byteLength <= maxMessageBytes || spans <= 1) return [value];
  const half = Math.ceil(spans / 2);
  return splitIntoParts(part, half).flatMap((smaller) => messagesWithin(smaller, maxMessageBytes));
}
