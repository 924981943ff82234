/** Test fixture: a SpanRecord with defaults, as the OTLP decoder produces it. */
import type { Attributes, SpanEventRecord, SpanRecord } from "../../../collector/00-otlp/span-record.js";

export function spanRecord(overrides: Partial<SpanRecord> & { attributes: Attributes }): SpanRecord {
  return {
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: "b7ad6b7169203331",
    parentSpanId: "00f067aa0ba902b7",
    name: "span",
    kind: 1,
    startTimeUnixNano: 1_783_503_000_000_000_000n,
    endTimeUnixNano: 1_783_503_000_010_000_000n,
    events: [],
    droppedEventsCount: 0,
    droppedAttributesCount: 0,
    status: { code: 0, message: "" },
    resource: { "service.name": "svc" },
    scope: { name: "test", version: "1" },
    ...overrides,
  };
}

export function event(name: string, attributes: Attributes): SpanEventRecord {
  return { name, timeUnixNano: 1_783_503_000_005_000_000n, attributes };
}
