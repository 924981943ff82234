/**
 * Log events → an OTLP logs export request (ExportLogsServiceRequest, protobuf): how `ragscope receive` puts a trace's
 * log events on Kafka (export-log-request.ts), for the evaluator that reads the trace's spans from the same partition
 * to join them (route-message.ts). Only what a LogEventRecord holds is written: ids, event name, time, attributes and
 * body; the tenant travels in the message's header, as the receiver authenticated it.
 *
 * Values go back to OTLP's AnyValue as toAttributeValue read them: a whole number is an int, another number a double,
 * a list an array, an object a key-value list, null an unset value.
 */
import { hexToBytes } from "./hex-id.js";
import type { LogEventRecord } from "./log-event-record.js";
import { exportLogsServiceRequestType } from "./otlp-protobuf-types.js";
import type { AttributeValue, Attributes } from "./span-record.js";

type WireObject = Record<string, unknown>;

export function encodeLogEvents(events: readonly LogEventRecord[]): Uint8Array {
  const request = { resourceLogs: [{ scopeLogs: [{ logRecords: events.map(toWireLogRecord) }] }] };
  return exportLogsServiceRequestType.encode(request).finish();
}

function toWireLogRecord(event: LogEventRecord): WireObject {
  return {
    timeUnixNano: toWireLong(event.timeUnixNano),
    eventName: event.name,
    attributes: toWireKeyValues(event.attributes),
    ...(event.body === null ? {} : { body: toWireValue(event.body) }),
    traceId: hexToBytes(event.traceId),
    spanId: hexToBytes(event.spanId),
  };
}

/** protobufjs takes a 64-bit integer as its low and high 32 bits. */
function toWireLong(value: bigint): WireObject {
  return { low: Number(value & 0xffffffffn) | 0, high: Number((value >> 32n) & 0xffffffffn) | 0, unsigned: true };
}

function toWireKeyValues(attributes: Attributes): WireObject[] {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: toWireValue(value) }));
}

function toWireValue(value: AttributeValue): WireObject {
  if (value === null) return {};
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isSafeInteger(value) ? { intValue: toWireLong(BigInt.asUintN(64, BigInt(value))) } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(toWireValue) } };
  return { kvlistValue: { values: toWireKeyValues(value) } };
}
