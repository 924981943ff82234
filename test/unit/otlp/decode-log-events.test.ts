/**
 * OTLP logs bodies written by the real OpenTelemetry JS serializers (the ones the OTLP log exporters use), from records
 * emitted through the JS logs SDK, must decode into the events of their spans with ids, name, time, attributes and
 * body intact; records that are no span's event are counted, not kept; the limits refuse or cut as the span path's do.
 * The bodies come from an encoder independent of the decoder, so a wrong field number or type shows.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ROOT_CONTEXT, trace, TraceFlags, type HrTime, type SpanContext } from "@opentelemetry/api";
import type { Logger } from "@opentelemetry/api-logs";
import { JsonLogsSerializer, ProtobufLogsSerializer } from "@opentelemetry/otlp-transformer";
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor, type ReadableLogRecord } from "@opentelemetry/sdk-logs";
import { decodeLogEvents, type DecodedLogEvents, type LogEventLimits, type LogEventsDecodeError } from "../../../collector/00-otlp/decode-log-events.js";

const encodings = ["protobuf", "json"] as const;
type Encoding = (typeof encodings)[number];

const limits: LogEventLimits = { maxLogRecordsPerRequest: 100, maxAttributeValueBytes: 1024, maxAttributesPerRecord: 16 };

const spanContext: SpanContext = { traceId: "5b8efff798038103d269b633813fc60c", spanId: "eee19b7ec3c1b174", traceFlags: TraceFlags.SAMPLED };
const inSpan = trace.setSpanContext(ROOT_CONTEXT, spanContext);

const choiceBody = { index: 0, finish_reason: "stop", message: { role: "assistant", content: "Up to five days." } };

async function emitRecords(emit: (logger: Logger) => void): Promise<ReadableLogRecord[]> {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter })] });
  emit(provider.getLogger("decode-log-events-test", "1.0.0"));
  await provider.forceFlush();
  const records = exporter.getFinishedLogRecords();
  await provider.shutdown();
  return records;
}

function serialize(records: ReadableLogRecord[], encoding: Encoding): Uint8Array {
  const body = encoding === "json" ? JsonLogsSerializer.serializeRequest(records) : ProtobufLogsSerializer.serializeRequest(records);
  assert.ok(body);
  return body;
}

function decodeOrFail(body: Uint8Array, encoding: Encoding, tenant: string | null = null, bounds = limits): DecodedLogEvents {
  const result = decodeLogEvents(body, encoding, bounds, tenant);
  if (!result.ok) assert.fail(result.error.message);
  return result.value;
}

function refusal(body: Uint8Array, encoding: Encoding, bounds = limits): LogEventsDecodeError {
  const result = decodeLogEvents(body, encoding, bounds, null);
  if (result.ok) assert.fail(`expected a refusal, got ${result.value.records} records`);
  return result.error;
}

function nanoseconds(time: HrTime): bigint {
  return BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]);
}

function json(document: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(document));
}

describe("decoding OTLP logs into span events", async () => {
  const records = await emitRecords((logger) => {
    logger.emit({
      eventName: "gen_ai.choice",
      timestamp: [1_700_000_000, 123_456_789],
      attributes: { "gen_ai.system": "openai", "gen_ai.choice.count": 1, "gen_ai.streamed": false, "gen_ai.tags": ["a", "b"] },
      body: choiceBody,
      context: inSpan,
    });
    logger.emit({ eventName: "app.startup", body: "outside any span", context: ROOT_CONTEXT });
    logger.emit({ body: "a plain log line inside the span", context: inSpan });
  });
  const choice = records.find((record) => record.eventName === "gen_ai.choice")!;

  for (const encoding of encodings) {
    test(`${encoding}: the span's event keeps ids, name, time, attributes and body; the other records are counted by why`, () => {
      const decoded = decodeOrFail(serialize(records, encoding), encoding, "tenant-a");
      assert.equal(decoded.records, 3);
      assert.equal(decoded.withoutSpan, 1);
      assert.equal(decoded.withoutEventName, 1);
      assert.equal(decoded.truncatedValues, 0);
      assert.deepEqual(decoded.events, [
        {
          traceId: spanContext.traceId,
          spanId: spanContext.spanId,
          name: "gen_ai.choice",
          timeUnixNano: nanoseconds(choice.hrTime),
          attributes: { "gen_ai.system": "openai", "gen_ai.choice.count": 1, "gen_ai.streamed": false, "gen_ai.tags": ["a", "b"] },
          body: choiceBody,
          tenant: "tenant-a",
        },
      ]);
    });
  }

  test("a body string longer than the value limit is cut at a code-point boundary, in both encodings", async () => {
    // "é" takes bytes 63 and 64: a cut at 64 bytes would split it, so the 63 bytes before it are kept.
    const content = `${"a".repeat(63)}é and the rest`;
    const long = await emitRecords((logger) => {
      logger.emit({ eventName: "gen_ai.choice", body: { ...choiceBody, message: { role: "assistant", content } }, context: inSpan });
    });
    for (const encoding of encodings) {
      const decoded = decodeOrFail(serialize(long, encoding), encoding, null, { ...limits, maxAttributeValueBytes: 64 });
      assert.equal(decoded.truncatedValues, 1, encoding);
      assert.deepEqual(decoded.events[0]?.body, { ...choiceBody, message: { role: "assistant", content: "a".repeat(63) } }, encoding);
    }
  });

  test("more records than the limit, or more attributes on one, refuse the request as too large, naming the limit and the count", () => {
    for (const encoding of encodings) {
      const tooMany = refusal(serialize(records, encoding), encoding, { ...limits, maxLogRecordsPerRequest: 2 });
      assert.ok("tooLarge" in tooMany && tooMany.tooLarge, encoding);
      assert.match(tooMany.message, /3 log records, more than 2 \(RAGSCOPE_MAX_SPANS_PER_REQUEST/);
      const crowded = refusal(serialize(records, encoding), encoding, { ...limits, maxAttributesPerRecord: 3 });
      assert.ok("tooLarge" in crowded && crowded.tooLarge, encoding);
      assert.match(crowded.message, /logRecords\[0\]\.attributes: 4 attributes, more than 3/);
    }
  });
});

describe("OTLP/JSON written by hand: older SDKs and ids that name no span", () => {
  test("the event.name attribute names the event when event_name is unset and leaves the attributes; time falls back to the observed time", () => {
    const body = json({
      resource_logs: [
        {
          scope_logs: [
            {
              log_records: [
                {
                  time_unix_nano: "0",
                  observed_time_unix_nano: "1700000000000000001",
                  trace_id: "5B8EFFF798038103D269B633813FC60C",
                  span_id: "EEE19B7EC3C1B174",
                  attributes: [
                    { key: "event.name", value: { stringValue: "gen_ai.user.message" } },
                    { key: "gen_ai.system", value: { string_value: "openai" } },
                  ],
                  body: { kvlistValue: { values: [{ key: "content", value: { stringValue: "How long is the trial?" } }] } },
                  unknownField: true,
                },
                {
                  eventName: "gen_ai.choice",
                  traceId: "00000000000000000000000000000000",
                  spanId: "0000000000000000",
                  body: null,
                },
              ],
            },
          ],
        },
      ],
    });
    const decoded = decodeOrFail(body, "json");
    assert.equal(decoded.records, 2);
    assert.equal(decoded.withoutSpan, 1);
    assert.equal(decoded.withoutEventName, 0);
    assert.deepEqual(decoded.events, [
      {
        traceId: "5b8efff798038103d269b633813fc60c",
        spanId: "eee19b7ec3c1b174",
        name: "gen_ai.user.message",
        timeUnixNano: 1_700_000_000_000_000_001n,
        attributes: { "gen_ai.system": "openai" },
        body: { content: "How long is the trial?" },
        tenant: null,
      },
    ]);
  });

  test("a trace id of the wrong length is malformed, not a log outside any span", () => {
    const error = refusal(json({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ eventName: "x", traceId: "abc", spanId: "eee19b7ec3c1b174" }] }] }] }), "json");
    assert.equal("tooLarge" in error, false);
    assert.equal(error.path, "resourceLogs[0].scopeLogs[0].logRecords[0].traceId");
  });
});

describe("bodies that hold no log records", () => {
  test("random bytes are malformed in both encodings", () => {
    // A fixed pseudo-random sequence (a linear congruential generator), so the test is the same every run.
    const bytes = new Uint8Array(256);
    let state = 12_345;
    for (let index = 0; index < bytes.length; index += 1) {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      bytes[index] = state >>> 16;
    }
    for (const encoding of encodings) {
      const error = refusal(bytes, encoding);
      assert.equal("tooLarge" in error, false, encoding);
      assert.match(error.message, encoding === "json" ? /invalid OTLP\/JSON/ : /invalid OTLP protobuf/);
    }
  });

  test("an empty request decodes to no records: no bytes in protobuf, {} in OTLP/JSON", () => {
    const expected: DecodedLogEvents = { events: [], records: 0, withoutSpan: 0, withoutEventName: 0, truncatedValues: 0 };
    assert.deepEqual(decodeOrFail(new Uint8Array(0), "protobuf"), expected);
    assert.deepEqual(decodeOrFail(json({}), "json"), expected);
  });
});
