/**
 * The CPU-heavy part of a logs export (`POST /v1/logs`), run in a decode thread as a trace export's is
 * (prepare-trace-messages.ts): count the request's items on its bytes, decode it into the log records that are events
 * of a span (decode-log-events.ts), and group them by trace — for the bus in this process, which hands them to the
 * assembler beside the traces' spans, or, for Kafka, as one message a trace (encode-log-events.ts) keyed by its trace
 * id, so that it lands in the partition of the trace's spans and the evaluator that reads them joins it
 * (route-message.ts). The message says what it holds in its headers (logEventsHeaders). A logs request is held to
 * the trace path's limits: records as spans (RAGSCOPE_MAX_SPANS_PER_REQUEST), attributes per record as per span,
 * values cut at the same length, items as items.
 */
import { countJsonContainers } from "../00-otlp/count-request-items.js";
import { countLogRequestItems } from "../00-otlp/count-log-request-items.js";
import { decodeLogEvents } from "../00-otlp/decode-log-events.js";
import type { LogEventRecord } from "../00-otlp/log-event-record.js";
import { encodeLogEvents } from "../00-otlp/encode-log-events.js";
import type { BusMessage, DecodedTrace } from "../02-transport/trace-bus.js";
import { logEventsHeaders } from "../02-transport/kafka/log-events-message.js";
import { estimateLogEventBytes } from "../05-assemble/estimate-span-bytes.js";
import type { PrepareRequest } from "./prepare-trace-messages.js";

/** What became of a request's records, whichever the output. */
interface LogRecordOutcome {
  records: number;
  withoutSpan: number;
  withoutEventName: number;
  truncatedValues: number;
}

export type PreparedLogEvents =
  /** For the bus in this process: one part per trace, no spans, its log events. */
  | ({ kind: "logEvents"; traces: DecodedTrace[] } & LogRecordOutcome)
  /** For a bus of bytes: one message per trace. */
  | ({ kind: "logMessages"; messages: BusMessage[] } & LogRecordOutcome)
  | { kind: "malformed"; message: string }
  | { kind: "tooLarge"; message: string };

export function prepareLogMessages(request: PrepareRequest): PreparedLogEvents {
  const { body, encoding, limits } = request;
  const items = encoding === "protobuf" ? countLogRequestItems(body, limits.maxItemsPerRequest) : countJsonContainers(body, limits);
  if (items.kind === "over") return { kind: "tooLarge", message: items.message };
  // Unreadable bytes are left to the decoder, which says what is wrong with them.
  const decoded = decodeLogEvents(
    body,
    encoding,
    { maxLogRecordsPerRequest: limits.maxSpansPerRequest, maxAttributeValueBytes: limits.maxAttributeValueBytes, maxAttributesPerRecord: limits.maxAttributesPerSpan },
    request.tenant,
  );
  if (!decoded.ok) return "tooLarge" in decoded.error ? { kind: "tooLarge", message: decoded.error.message } : { kind: "malformed", message: decoded.error.message };
  const byTrace = new Map<string, LogEventRecord[]>();
  for (const event of decoded.value.events) {
    const list = byTrace.get(event.traceId);
    if (list === undefined) byTrace.set(event.traceId, [event]);
    else list.push(event);
  }
  const { records, withoutSpan, withoutEventName, truncatedValues } = decoded.value;
  const outcome = { records, withoutSpan, withoutEventName, truncatedValues };
  if (request.output !== "decoded") {
    const messages = [...byTrace].map(([key, logEvents]): BusMessage => ({ key, value: encodeLogEvents(logEvents), headers: logEventsHeaders(request.tenant) }));
    return { kind: "logMessages", messages, ...outcome };
  }
  const traces = [...byTrace].map(([key, logEvents]): DecodedTrace => ({ key, spans: [], logEvents, bytes: logEvents.reduce((sum, event) => sum + estimateLogEventBytes(event), 0) }));
  return { kind: "logEvents", traces, ...outcome };
}
