/**
 * A Kafka message of log events: the log records of one trace that are events of its spans, as `ragscope receive`
 * writes them (prepare-log-messages.ts) — an OTLP logs export request (protobuf) keyed by the trace id, on the topic
 * of the spans, so that it lands in the trace's partition and the evaluator that assembles the trace joins it
 * (route-message.ts). Headers say what it is, and the tenant the receiver authenticated for it, which a span carries
 * in its resource (stamp-tenant.ts) and a log event does not.
 */
import { contentTypeHeader } from "./route-message.js";

/** Set to `logs` on a message of log events; a message without it is a trace request. */
export const signalHeader = "ragscope.signal";
export const logsSignal = "logs";
/** The tenant the receiver authenticated for the records; absent without tenant tokens. */
export const tenantHeader = "ragscope.tenant";

export function logEventsHeaders(tenant: string | null): Record<string, string> {
  return { [contentTypeHeader]: "application/x-protobuf", [signalHeader]: logsSignal, ...(tenant === null ? {} : { [tenantHeader]: tenant }) };
}
