/**
 * Log events on Kafka (kafka/log-events-message.ts): what `ragscope receive` writes for a logs request — one message a
 * trace, keyed by its trace id, its events as an OTLP logs request (encode-log-events.ts) with the tenant in a header —
 * and how an evaluator routes such a message (route-message.ts): assembled with its trace, the events as the receiver
 * decoded them, where the trace is assembled; republished by trace where not (repartitioner.ts), and so is an
 * OpenTelemetry Collector's logs request read from its logs topic, each record's tenant its resource's. The requests
 * are made by the OpenTelemetry JS SDK's own OTLP logs serializers, not by ragscope.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { JsonLogsSerializer, ProtobufLogsSerializer } from "@opentelemetry/otlp-transformer";
import { Kafka } from "kafkajs";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import { decodeLogEvents, tenantFromResource } from "../../../collector/00-otlp/decode-log-events.js";
import { KafkaTracePublisher } from "../../../collector/02-transport/kafka/kafka-trace-publisher.js";
import { Repartitioner } from "../../../collector/02-transport/kafka/repartitioner.js";
import { prepareLogMessages } from "../../../collector/01-receive/prepare-log-messages.js";
import { routeMessage, type MessageRoute } from "../../../collector/02-transport/kafka/route-message.js";
import { limits } from "./request-fixtures.js";

const TRACE_IDS = ["5b8efff798038103d269b633813fc60c", "0af7651916cd43dd8448eb211c80319c"];
const SPAN_ID = "eee19b7ec3c1b174";

/** One `gen_ai.choice` record a trace; `logLine` adds a record outside any span; `encoding` picks the SDK's serializer. */
function logsRequest(options: { tenant?: string; logLine?: boolean; encoding?: "json" | "protobuf" } = {}): Uint8Array {
  const exporter = new InMemoryLogRecordExporter();
  const resource = { "service.name": "svc", ...(options.tenant === undefined ? {} : { "ragscope.tenant.authenticated": options.tenant }) };
  const provider = new LoggerProvider({ resource: resourceFromAttributes(resource), processors: [new SimpleLogRecordProcessor({ exporter })] });
  const logger = provider.getLogger("opentelemetry.instrumentation.openai_v2");
  for (const traceId of TRACE_IDS) {
    const context = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: SPAN_ID, traceFlags: 1 });
    logger.emit({ eventName: "gen_ai.choice", attributes: { "gen_ai.system": "openai", count: 3, ratio: 0.5, flag: true }, body: { index: 0, message: { role: "assistant", content: `answer of ${traceId}` } }, context, timestamp: 1_783_503_000_005 });
  }
  if (options.logLine === true) logger.emit({ body: "service ready", context: ROOT_CONTEXT, timestamp: 1_783_503_000_006 });
  const records = exporter.getFinishedLogRecords();
  return options.encoding === "protobuf" ? ProtobufLogsSerializer.serializeRequest(records)! : JsonLogsSerializer.serializeRequest(records)!;
}

/** The repartitioner of an evaluator; its publisher is never called here (logEventMessagesFor only builds messages). */
function repartitioner(): Repartitioner {
  const producer = new Kafka({ brokers: ["127.0.0.1:1"], clientId: "unit" }).producer();
  return new Repartitioner(new KafkaTracePublisher(producer, { topic: "otlp_spans", maxMessageBytes: 1_000_000, compression: "none" }));
}

/** The messages the repartitioner writes for a route, routed again as read from the trace's partition of the assembled topic. */
function republishedAndRead(route: MessageRoute): MessageRoute[] {
  assert.equal(route.kind, "repartition_log_events");
  if (route.kind !== "repartition_log_events") return [];
  return repartitioner()
    .logEventMessagesFor(route.groups, { topic: "otlp_logs", partition: 0, offset: "7" })
    .map((message) => routeMessage({ key: Buffer.from(message.key!, "latin1"), value: Buffer.from(message.value), partition: 0, headers: message.headers }, { maxMessageBytes: 1_000_000, partitionOf: () => 0, checks }));
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

test("a logs message that is not one trace's, keyed by it, in its partition, is republished by trace and then assembled with the same events", () => {
  const prepared = prepareLogMessages({ body: logsRequest(), encoding: "json", limits, tenant: "acme", output: "encoded", signal: "logs" });
  assert.equal(prepared.kind, "logMessages");
  if (prepared.kind !== "logMessages") return;
  const message = prepared.messages[0]!;
  const route = (key: string | null, partition: number, partitionOf: ((traceId: string) => number) | null) =>
    routeMessage({ key: key === null ? null : Buffer.from(key, "latin1"), value: Buffer.from(message.value), partition, headers: message.headers }, { maxMessageBytes: 1_000_000, partitionOf, checks });
  const assembled = route(message.key!, 0, () => 0);
  assert.equal(assembled.kind, "assemble");
  // No key, another trace's key, another partition, a topic that is never assembled (a repartition topic is configured).
  for (const [key, partition, partitionOf] of [[null, 0, () => 0], [TRACE_IDS[1]!, 0, () => 0], [message.key!, 1, () => 0], [message.key!, 0, null]] as const) {
    const routed = route(key, partition, partitionOf);
    assert.equal(routed.kind, "repartition_log_events", `key ${key}, partition ${partition}`);
    const [again, ...more] = republishedAndRead(routed);
    assert.equal(more.length, 0);
    assert.equal(again!.kind, "assemble");
    if (again!.kind === "assemble" && assembled.kind === "assemble") assert.deepEqual(again!.logEvents, assembled.logEvents, "the same events, values and tenant (from the header)");
  }
});

for (const encoding of ["json", "protobuf"] as const) {
  test(`an OpenTelemetry Collector's logs request (${encoding}) on the logs topic: its events republished by trace, each with its resource's tenant; a log line counted`, () => {
    const body = logsRequest({ tenant: "acme", logLine: true, encoding });
    // The Collector's exporter: no headers; keyed or not, it is never assembled where it is read.
    for (const key of [null, TRACE_IDS[0]!]) {
      const route = routeMessage({ key: key === null ? null : Buffer.from(key, "latin1"), value: Buffer.from(body), partition: 0 }, { maxMessageBytes: 1_000_000, partitionOf: null, checks, logsTopic: true });
      assert.equal(route.kind, "repartition_log_events");
      if (route.kind !== "repartition_log_events") return;
      assert.deepEqual(route.logRecords, { events: 2, withoutSpan: 1, withoutEventName: 0 });
      assert.deepEqual(route.groups.map((events) => events.map((event) => [event.traceId, event.tenant])), TRACE_IDS.map((traceId) => [[traceId, "acme"]]));
      const read = republishedAndRead(route);
      assert.deepEqual(read.map((again) => again.kind === "assemble" && again.logEvents!.map((event) => [event.traceId, event.tenant, event.body])), TRACE_IDS.map((traceId) => [[traceId, "acme", { index: 0, message: { role: "assistant", content: `answer of ${traceId}` } }]]));
    }
  });
}

test("a Collector's records of one trace under two tenants are two groups, republished apart", () => {
  const withTenant = JSON.parse(Buffer.from(logsRequest({ tenant: "acme" })).toString("utf8")) as { resourceLogs: { resource: { attributes: { key: string; value: { stringValue: string } }[] }; scopeLogs: unknown[] }[] };
  const other = structuredClone(withTenant.resourceLogs[0]!);
  other.resource.attributes = other.resource.attributes.map((attribute) => (attribute.key === "ragscope.tenant.authenticated" ? { key: attribute.key, value: { stringValue: "globex" } } : attribute));
  withTenant.resourceLogs.push(other);
  const route = routeMessage({ key: null, value: Buffer.from(JSON.stringify(withTenant)), partition: 0 }, { maxMessageBytes: 1_000_000, partitionOf: null, checks, logsTopic: true });
  assert.equal(route.kind, "repartition_log_events");
  if (route.kind !== "repartition_log_events") return;
  assert.deepEqual(route.groups.map((events) => [events[0]!.traceId, events[0]!.tenant, events.length]).sort(), [[TRACE_IDS[0], "acme", 1], [TRACE_IDS[0], "globex", 1], [TRACE_IDS[1], "acme", 1], [TRACE_IDS[1], "globex", 1]].sort());
  const headers = repartitioner().logEventMessagesFor(route.groups, { topic: "otlp_logs", partition: 0, offset: "7" }).map((message) => [message.key, message.headers!["ragscope.tenant"], message.headers!["ragscope.repartitioned_from"]]);
  assert.deepEqual(headers.sort(), [[TRACE_IDS[0], "acme", "otlp_logs/0/7"], [TRACE_IDS[0], "globex", "otlp_logs/0/7"], [TRACE_IDS[1], "acme", "otlp_logs/0/7"], [TRACE_IDS[1], "globex", "otlp_logs/0/7"]].sort());
});

test("the resource's tenant is read only when asked for: a receiver's authenticated tenant wins, none stays none", () => {
  const body = logsRequest({ tenant: "claimed", encoding: "protobuf" });
  const bounds = { maxLogRecordsPerRequest: 10, maxAttributeValueBytes: 1024, maxAttributesPerRecord: 10 };
  const tenants = (tenant: Parameters<typeof decodeLogEvents>[3]) => {
    const decoded = decodeLogEvents(body, "protobuf", bounds, tenant);
    assert.ok(decoded.ok);
    return decoded.value.events.map((event) => event.tenant);
  };
  assert.deepEqual(tenants("acme"), ["acme", "acme"]);
  assert.deepEqual(tenants(null), [null, null]);
  assert.deepEqual(tenants(tenantFromResource), ["claimed", "claimed"]);
  const untenanted = decodeLogEvents(logsRequest({ encoding: "protobuf" }), "protobuf", bounds, tenantFromResource);
  assert.ok(untenanted.ok);
  assert.deepEqual(untenanted.value.events.map((event) => event.tenant), [null, null]);
});

test("a logs topic message that is no OTLP logs request, in another encoding than it declares, or over the records' limits, is dead-lettered saying which", () => {
  const route = (value: Uint8Array, bounds = limits) => routeMessage({ key: null, value: Buffer.from(value), partition: 0 }, { maxMessageBytes: 1_000_000, partitionOf: null, checks: { ...checks, limits: bounds }, logsTopic: true });
  const garbage = route(Buffer.from("{\"resourceLogs\": 5}"));
  assert.equal(garbage.kind, "dead_letter");
  if (garbage.kind === "dead_letter") assert.deepEqual([garbage.reason, /not an OTLP logs request \(otlp_json\)/.test(garbage.detail)], ["undecodable", true]);
  const mislabelled = routeMessage({ key: null, value: Buffer.from(logsRequest({ encoding: "protobuf" })), partition: 0, headers: { "content-type": "application/json" } }, { maxMessageBytes: 1_000_000, partitionOf: null, checks, logsTopic: true });
  assert.equal(mislabelled.kind, "dead_letter");
  if (mislabelled.kind === "dead_letter") assert.deepEqual([mislabelled.reason, mislabelled.detail], ["wrong_encoding", "declared application/json but the value is an OTLP logs request in protobuf"]);
  const crowded = route(logsRequest({ encoding: "protobuf" }), { ...limits, maxSpansPerRequest: 1 });
  assert.equal(crowded.kind, "dead_letter");
  if (crowded.kind === "dead_letter") assert.deepEqual([crowded.reason, /2 log records, more than 1/.test(crowded.detail)], ["oversized", true]);
});
