/** SpanRecords for collector unit tests: a root and children with controllable times. */
import type { Attributes, SpanRecord } from "../../collector/00-otlp/span-record.js";

export function spanRecord(fields: Partial<SpanRecord> & { spanId: string; traceId?: string; attributes?: Attributes }): SpanRecord {
  return {
    traceId: "0af7651916cd43dd8448eb211c80319c",
    parentSpanId: "",
    name: "span",
    kind: 1,
    startTimeUnixNano: 1_751_966_000_000_000_000n,
    endTimeUnixNano: 1_751_966_001_000_000_000n,
    events: [],
    droppedEventsCount: 0,
    droppedAttributesCount: 0,
    status: { code: 0, message: "" },
    resource: { "service.name": "test-service" },
    scope: { name: "test", version: "1" },
    ...fields,
    attributes: fields.attributes ?? {},
  };
}
