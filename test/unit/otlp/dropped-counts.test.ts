/**
 * A span's OTLP `dropped_events_count` and `dropped_attributes_count` on its span record, from bodies the real
 * OpenTelemetry JS SDK and serializers (the ones its OTLP exporters use) wrote for a span past its event and attribute
 * limits: through each decoder (the direct protobuf reader, protobufjs and OTLP/JSON with toSpanRecords), through the
 * receiver's preparation for either bus (protobuf messages for Kafka, records in this process) and through the Kafka
 * consumer's routing of such a message. Before, records did not carry the counts, so a span that lost its oldest
 * events (its best-ranked vector search hits) could not be told from a whole one.
 *
 * It also holds the premise of unread-dropped-events.ts on the real SDK: past its event limit it keeps the LAST events.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { decodeProtobufSpanRecords, NO_LIMITS } from "../../../collector/00-otlp/decode-protobuf-span-records.js";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import type { SpanRecord } from "../../../collector/00-otlp/span-record.js";
import { toSpanRecords } from "../../../collector/00-otlp/to-span-records.js";
import { prepareTraceMessages } from "../../../collector/01-receive/prepare-trace-messages.js";
import { routeMessage } from "../../../collector/02-transport/kafka/route-message.js";
import { limits } from "./request-fixtures.js";

const EVENT_LIMIT = 3;
const ATTRIBUTE_LIMIT = 4;
const EVENTS = 5;
const ATTRIBUTES = 6;

async function recordTruncatedSpan(): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "dropped-counts" }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    spanLimits: { eventCountLimit: EVENT_LIMIT, attributeCountLimit: ATTRIBUTE_LIMIT },
  });
  const span = provider.getTracer("dropped-counts").startSpan("chroma.query");
  for (let index = 0; index < ATTRIBUTES; index += 1) span.setAttribute(`attribute.${index}`, index);
  for (let index = 0; index < EVENTS; index += 1) span.addEvent("db.query.result", { "db.query.result.id": `hit-${index}` });
  span.end();
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

const spans = await recordTruncatedSpan();
const protobuf = ProtobufTraceSerializer.serializeRequest(spans)!;
const json = JsonTraceSerializer.serializeRequest(spans)!;
const traceId = spans[0]!.spanContext().traceId;

function decodedRecords(body: Uint8Array, encoding: "protobuf" | "json"): SpanRecord[] {
  const decoded = decodeTraceRequest(body, encoding);
  if (!decoded.ok) assert.fail(decoded.error.message);
  return toSpanRecords(decoded.value);
}

function assertCounts(records: readonly SpanRecord[], where: string): void {
  assert.equal(records.length, 1, where);
  assert.equal(records[0]!.droppedEventsCount, EVENTS - EVENT_LIMIT, `${where}: dropped_events_count`);
  assert.equal(records[0]!.droppedAttributesCount, ATTRIBUTES - ATTRIBUTE_LIMIT, `${where}: dropped_attributes_count`);
}

describe("a span's dropped event and attribute counts on its record", () => {
  test("the SDK past its event limit keeps the last events and counts the oldest as dropped", () => {
    assert.deepEqual(spans[0]!.events.map((event) => event.attributes?.["db.query.result.id"]), ["hit-2", "hit-3", "hit-4"]);
    assert.equal(spans[0]!.droppedEventsCount, EVENTS - EVENT_LIMIT);
    assert.equal(spans[0]!.droppedAttributesCount, ATTRIBUTES - ATTRIBUTE_LIMIT);
  });

  test("each decoder keeps them: the direct protobuf reader, protobufjs, OTLP/JSON", () => {
    const direct = decodeProtobufSpanRecords(protobuf, { limits: NO_LIMITS });
    assert.ok(direct !== null, "the direct reader takes the SDK's body");
    assertCounts(direct.traces.flatMap((trace) => trace.spans), "direct protobuf reader");
    assertCounts(decodedRecords(protobuf, "protobuf"), "protobufjs");
    assertCounts(decodedRecords(json, "json"), "OTLP/JSON");
  });

  for (const [encoding, body] of [
    ["protobuf", protobuf],
    ["json", json],
  ] as const) {
    test(`a ${encoding} request: the receiver's Kafka messages (protobuf bytes) and in-process records keep them, and so does the consumer's routing`, () => {
      const encoded = prepareTraceMessages({ body, encoding, limits, tenant: null });
      assert.equal(encoded.kind, "prepared");
      if (encoded.kind !== "prepared") return;
      assert.equal(encoded.messages.length, 1);
      const message = encoded.messages[0]!;
      assertCounts(decodeProtobufSpanRecords(message.value, { limits: NO_LIMITS })!.traces[0]!.spans, "Kafka message, direct reader");
      assertCounts(decodedRecords(message.value, "protobuf"), "Kafka message, protobufjs");
      const checks = { nowMs: 0, maxFutureSpanSeconds: 0, latestSpanTimeNanos: 2n ** 62n, limits: NO_LIMITS };
      const route = routeMessage({ key: Buffer.from(message.key, "latin1"), value: Buffer.from(message.value), partition: 0 }, { maxMessageBytes: 1_000_000, partitionOf: () => 0, checks });
      assert.equal(route.kind, "assemble");
      if (route.kind === "assemble") assertCounts(route.spans, "Kafka consumer's routing");

      const inProcess = prepareTraceMessages({ body, encoding, limits, tenant: null, output: "decoded" });
      assert.equal(inProcess.kind, "decoded");
      if (inProcess.kind === "decoded") assertCounts(inProcess.traces.flatMap((trace) => trace.spans), "in-process bus");
      assert.equal(message.key, traceId);
    });
  }
});
