/**
 * TracesDocument → SpanRecord[]: the collector's flat working form of a span,
 * with its resource and scope copied onto it and attributes as plain values.
 */
import type { AttributeValue, Attributes, SpanRecord } from "./span-record.js";
import type { AnyValue, KeyValue, TracesDocument } from "./traces-document.js";

export function toSpanRecords(document: TracesDocument): SpanRecord[] {
  const records: SpanRecord[] = [];
  for (const resourceSpans of document.resourceSpans) {
    for (const scopeSpans of resourceSpans.scopeSpans) {
      for (const span of scopeSpans.spans) {
        records.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId,
          name: span.name,
          kind: span.kind,
          startTimeUnixNano: span.startTimeUnixNano,
          endTimeUnixNano: span.endTimeUnixNano,
          attributes: toAttributes(span.attributes),
          events: span.events.map((event) => ({
            name: event.name,
            timeUnixNano: event.timeUnixNano,
            attributes: toAttributes(event.attributes),
          })),
          droppedEventsCount: span.droppedEventsCount,
          droppedAttributesCount: span.droppedAttributesCount,
          status: { code: span.status.code, message: span.status.message },
          // Converted per record, so no two records share a mutable object.
          resource: toAttributes(resourceSpans.resource.attributes),
          scope: { name: scopeSpans.scope.name, version: scopeSpans.scope.version },
        });
      }
    }
  }
  return records;
}

/** Key-values → a plain object; a repeated key keeps its last value, as OTLP readers do. */
export function toAttributes(keyValues: KeyValue[]): Attributes {
  const attributes: Attributes = {};
  for (const keyValue of keyValues) setOwn(attributes, keyValue.key, toAttributeValue(keyValue.value));
  return attributes;
}

/**
 * int64 → number while it is exact, else its decimal string; bytes → base64
 * (what OTLP/JSON writes); a key-value list → an object; no value → null.
 */
export function toAttributeValue(value: AnyValue | null): AttributeValue {
  if (value === null) return null;
  if ("stringValue" in value) return value.stringValue;
  if ("boolValue" in value) return value.boolValue;
  if ("doubleValue" in value) return value.doubleValue;
  if ("intValue" in value) {
    const number = Number(value.intValue);
    return Number.isSafeInteger(number) ? number : value.intValue.toString();
  }
  if ("arrayValue" in value) return value.arrayValue.values.map(toAttributeValue);
  if ("kvlistValue" in value) return toAttributes(value.kvlistValue.values);
  return Buffer.from(value.bytesValue).toString("base64");
}

/** Assignment would make a `__proto__` key change the prototype instead of adding an attribute. */
export function setOwn(target: Attributes, key: string, value: AttributeValue): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
