/**
 * `POST /v1/logs` (and gRPC's `LogsService/Export`): a logs export through the receiver's one pipeline
 * (export-trace-request.ts) — the same authentication, admission, body limits, decode threads and answers — whose
 * records are events of spans: each kept record goes to the bus with its trace, and the assembler joins it to its span
 * (log-event-record.ts, trace-assembler.ts). What the instrumentations of the GenAI conventions' event path send there
 * is a call's messages (opentelemetry-instrumentation-openai-v2's `gen_ai.choice` records; opentelemetry-util-genai's
 * `gen_ai.client.inference.operation.details`).
 *
 * On the bus in this process (`ragscope serve`) the records go as they were decoded; to Kafka (`ragscope receive`) as
 * one message a trace keyed by its trace id, beside the trace's spans (kafka/log-events-message.ts). A record that is
 * no event of a span (a log line, a log outside any span) is accepted and counted, not kept: the answer is a success,
 * as its sender did nothing wrong.
 */
import { RpcCode } from "../00-otlp/otlp-export-response.js";
import { countAccepted, refusalOfPublishFailure, refuse, refuseRecords, type ExportOutcome, type ReceivedBody, type TraceExportContext } from "./export-trace-request.js";
import type { ReceiverProtocol } from "./receiver-counters.js";

export async function exportLogBody(context: TraceExportContext, protocol: ReceiverProtocol, received: ReceivedBody): Promise<ExportOutcome> {
  const refused = (reason: "malformed" | "payloadTooLarge" | "internalError", rpcCode: (typeof RpcCode)[keyof typeof RpcCode], message: string): ExportOutcome => ({
    kind: "refused",
    refusal: refuse(context, protocol, { reason, rpcCode, message }),
  });
  const publishDecoded = context.publisher.publishDecoded?.bind(context.publisher);
  const prepared = await context.decoders.run({ body: received.body, encoding: received.encoding, limits: context.limits, tenant: received.credential.tenant, output: publishDecoded === undefined ? "encoded" : "decoded", signal: "logs" });
  switch (prepared.kind) {
    case "malformed":
      return refused("malformed", RpcCode.invalidArgument, prepared.message);
    case "tooLarge":
      return refused("payloadTooLarge", RpcCode.resourceExhausted, prepared.message);
    case "failed":
      return refused("internalError", RpcCode.internal, `the request could not be decoded: ${prepared.message}`);
    case "prepared":
    case "decoded":
      // Never for a request read as a logs export: a bug, told as one.
      return refused("internalError", RpcCode.internal, "the logs request was read as a trace export");
    case "logEvents":
    case "logMessages":
      break;
  }
  const { logRecords } = context.counters;
  logRecords.received += prepared.records;
  context.counters.attributeValuesTruncated += prepared.truncatedValues;
  const count = prepared.kind === "logEvents" ? prepared.traces.length : prepared.messages.length;
  if (count > 0) {
    // Records come back decoded only when they were asked for, i.e. when the bus takes them.
    const published = prepared.kind === "logMessages" ? await context.publisher.publish(prepared.messages) : await (publishDecoded ?? refuseRecords)(prepared.traces);
    if (!published.ok) return { kind: "refused", refusal: refusalOfPublishFailure(context, protocol, published.error, "the log records") };
  }
  logRecords.withoutSpan += prepared.withoutSpan;
  logRecords.withoutEventName += prepared.withoutEventName;
  countAccepted(context, protocol);
  // Records left out are no rejection (nothing the sender could send again would change them): a plain success.
  return { kind: "accepted", rejectedSpans: 0, message: "" };
}
