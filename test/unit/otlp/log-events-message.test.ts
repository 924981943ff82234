/**
 * Log events on Kafka (kafka/log-events-message.ts): what `ragscope receive` writes for a logs request — one message a
 * trace, keyed by its trace id, its events as an OTLP logs request (encode-log-events.ts) with the tenant in a header —
 * and how an evaluator routes such a message (route-message.ts): assembled with its trace, the events as the receiver
 * decoded them, where the trace is assembled; dead-lettered where not. The request is made by the OpenTelemetry JS
 * SDK's own OTLP/JSON logs serializer, not by ragscope.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { JsonLogsSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import { decodeLogEvents } from "../../../collector/00-otlp/decode-log-events.js";
import { prepareLogMessages } from "../../../collector/01-receive/prepare-log-messages.js";
import { routeMessage } from "../../../collector/02-transport/kafka/route-message.js";
import { limits } from "./request-fixtures.js";

const TRACE_IDS = ["5b8efff798038103d269b633813fc60c", "0af7651916cd43dd8448eb211c80319c"];
const SPAN_ID = "eee19b7ec3c1b174";

function logsRequest(): Uint8Array {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({ resource: resourceFromAttributes({ "service.name": "svc" }), processors: [new SimpleLogRecordProcessor({ exporter })] });
  const logger = provider.getLogger("opentelemetry.instrumentation.openai_v2");
  for (const traceId of TRACE_IDS) {
    const context = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: SPAN_ID, traceFlags: 1 });
    logger.emit({ eventName: "gen_ai.choice", attributes: { "gen_ai.system": "openai", count: 3, ratio: 0.5, flag: true }, body: { index: 0, message: { role: "assistant", content: `answer of ${traceId}` } }, context, timestamp: 1_783_503_000_005 });
  }
  return JsonLogsSerializer.serializeRequest(exporter.getFinishedLogRecords())!;
}

const checks = { nowMs: 0, maxFutureSpanSeconds: 0, latestSpanTimeNanos: 2n ** 62n, limits };

test("one message a trace, keyed by its trace id, the tenant in a header; routed to assembly with the events the receiver decoded", () => {
  const body = logsRequest();
  const prepared = prepareLogMessages({ body, encoding: "json", limits, tenant: "acme", output: "encoded", signal: "logs" });
  assert.equal(prepared.kind, "logMessages");
  if (prepared.kind !== "logMessages") return;
  assert.deepEqual(prepared.messages.map((message) => message.key), TRACE_IDS);
  assert.deepEqual(prepared.messages[0]!.headers, { "content-type": "application/x-protobuf", "ragscope.signal": "logs", "ragscope.tenant": "acme" });
  const decoded = decodeLogEvents(body, "json", { maxLogRecordsPerRequest: 10, maxAttributeValueBytes: 1024, maxAttributesPerRecord: 10 }, "acme");
  assert.ok(decoded.ok);
  for (const [index, message] of prepared.messages.entries()) {
    const route = routeMessage({ key: Buffer.from(message.key!, "latin1"), value: Buffer.from(message.value), partition: 0, headers: message.headers }, { maxMessageBytes: 1_000_000, partitionOf: () => 0, checks });
    assert.equal(route.kind, "assemble");
    if (route.kind !== "assemble") continue;
    assert.deepEqual([route.traceId, route.spans], [TRACE_IDS[index], []]);
    assert.deepEqual(route.logEvents, [decoded.value.events[index]], "the same events, values and tenant, as the receiver decoded them");
  }
});

test("a logs message that is not one trace's, keyed by it, in its partition, is dead-lettered", () => {
  const prepared = prepareLogMessages({ body: logsRequest(), encoding: "json", limits, tenant: null, output: "encoded", signal: "logs" });
  assert.equal(prepared.kind, "logMessages");
  if (prepared.kind !== "logMessages") return;
  const message = prepared.messages[0]!;
  const route = (key: string | null, partition: number) => routeMessage({ key: key === null ? null : Buffer.from(key, "latin1"), value: Buffer.from(message.value), partition, headers: message.headers }, { maxMessageBytes: 1_000_000, partitionOf: () => 0, checks });
  for (const [key, partition] of [[null, 0], [TRACE_IDS[1]!, 0], [message.key!, 1]] as const) {
    const routed = route(key, partition);
    assert.equal(routed.kind, "dead_letter", `key ${key}, partition ${partition}`);
    if (routed.kind === "dead_letter") assert.equal(routed.reason, "unreadable");
  }
});
