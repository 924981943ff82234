/**
 * A TracesDocument that uses every field and every kind of value, for codec
 * tests: two resources, several scopes, three traces interleaved, links,
 * events, and values at the edges (int64 extremes, non-finite doubles, empty
 * strings inside a oneof, unset values, nested lists, non-ASCII text).
 */
import type { KeyValue, SpanDocument, TracesDocument } from "../../../collector/00-otlp/traces-document.js";

export const traceA = "0af7651916cd43dd8448eb211c80319c";
export const traceB = "4bf92f3577b34da6a3ce929d0e0e4736";
export const traceC = "ffffffffffffffffffffffffffffff01";

const richAttributes: KeyValue[] = [
  { key: "text", value: { stringValue: "héllo wörld ✓" } },
  { key: "empty.text", value: { stringValue: "" } },
  { key: "flag", value: { boolValue: false } },
  { key: "count", value: { intValue: 42n } },
  { key: "zero", value: { intValue: 0n } },
  { key: "int64.max", value: { intValue: 9223372036854775807n } },
  { key: "int64.min", value: { intValue: -9223372036854775808n } },
  { key: "score", value: { doubleValue: 0.875 } },
  { key: "not.a.number", value: { doubleValue: Number.NaN } },
  { key: "infinite", value: { doubleValue: Number.NEGATIVE_INFINITY } },
  { key: "raw", value: { bytesValue: new Uint8Array([0, 1, 2, 250, 255]) } },
  { key: "unset", value: null },
  {
    key: "list",
    value: { arrayValue: { values: [{ stringValue: "a" }, { intValue: -7n }, null, { arrayValue: { values: [] } }] } },
  },
  {
    key: "object",
    value: {
      kvlistValue: {
        values: [
          { key: "nested", value: { kvlistValue: { values: [{ key: "deep", value: { boolValue: true } }] } } },
          { key: "doubles", value: { arrayValue: { values: [{ doubleValue: 1.5 }, { doubleValue: -0.25 }] } } },
        ],
      },
    },
  },
];

/** A span with every field at its default but the ones given. */
export function sampleSpan(overrides: Partial<SpanDocument> & Pick<SpanDocument, "traceId" | "spanId" | "name">): SpanDocument {
  return {
    traceState: "",
    parentSpanId: "",
    flags: 0,
    kind: 0,
    startTimeUnixNano: 0n,
    endTimeUnixNano: 0n,
    attributes: [],
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: { message: "", code: 0 },
    ...overrides,
  };
}

export function sampleTracesDocument(): TracesDocument {
  return {
    resourceSpans: [
      {
        resource: {
          attributes: [
            { key: "service.name", value: { stringValue: "rag-service" } },
            { key: "service.instance.id", value: { stringValue: "pod-7" } },
          ],
          droppedAttributesCount: 2,
        },
        schemaUrl: "https://opentelemetry.io/schemas/1.26.0",
        scopeSpans: [
          {
            scope: {
              name: "ragscope",
              version: "0.1.0",
              attributes: [{ key: "scope.attribute", value: { intValue: 1n } }],
              droppedAttributesCount: 1,
            },
            schemaUrl: "https://opentelemetry.io/schemas/1.27.0",
            spans: [
              sampleSpan({
                traceId: traceA,
                spanId: "00f067aa0ba902b7",
                name: "rag.request",
                kind: 2,
                flags: 0x301,
                traceState: "vendor=value",
                startTimeUnixNano: 1544712660000000001n,
                endTimeUnixNano: 1544712661999999999n,
                attributes: richAttributes,
                droppedAttributesCount: 3,
                events: [
                  {
                    timeUnixNano: 1544712660500000000n,
                    name: "first.token",
                    attributes: [{ key: "ttft.ms", value: { doubleValue: 120.5 } }],
                    droppedAttributesCount: 1,
                  },
                  { timeUnixNano: 1544712660600000000n, name: "", attributes: [], droppedAttributesCount: 0 },
                ],
                droppedEventsCount: 4,
                links: [
                  {
                    traceId: traceB,
                    spanId: "b7ad6b7169203331",
                    traceState: "other=1",
                    attributes: [{ key: "link.reason", value: { stringValue: "retry" } }],
                    droppedAttributesCount: 0,
                    flags: 1,
                  },
                ],
                droppedLinksCount: 5,
                status: { message: "generation failed", code: 2 },
              }),
              sampleSpan({
                traceId: traceB,
                spanId: "b7ad6b7169203331",
                name: "rag.request",
                kind: 2,
                startTimeUnixNano: 1700000000000000000n,
                endTimeUnixNano: 1700000000100000000n,
                status: { message: "", code: 1 },
              }),
              sampleSpan({
                traceId: traceA,
                spanId: "1111111111111111",
                parentSpanId: "00f067aa0ba902b7",
                name: "rag.retrieve",
                kind: 1,
                startTimeUnixNano: 1544712660100000000n,
                endTimeUnixNano: 1544712660200000000n,
                attributes: [{ key: "retrieval.documents.0.document.id", value: { stringValue: "doc-1" } }],
              }),
            ],
          },
          {
            scope: { name: "", version: "", attributes: [], droppedAttributesCount: 0 },
            schemaUrl: "",
            spans: [
              sampleSpan({
                traceId: traceA,
                spanId: "2222222222222222",
                parentSpanId: "00f067aa0ba902b7",
                name: "rag.generate",
                kind: 3,
                startTimeUnixNano: 1544712660300000000n,
                endTimeUnixNano: 1544712661900000000n,
              }),
            ],
          },
        ],
      },
      {
        resource: { attributes: [], droppedAttributesCount: 0 },
        schemaUrl: "",
        scopeSpans: [
          {
            scope: { name: "other-library", version: "9", attributes: [], droppedAttributesCount: 0 },
            schemaUrl: "",
            spans: [
              sampleSpan({
                traceId: traceC,
                spanId: "3333333333333333",
                name: "",
                kind: 5,
                startTimeUnixNano: 18446744073709551615n,
                endTimeUnixNano: 18446744073709551615n,
              }),
              sampleSpan({
                traceId: traceB,
                spanId: "4444444444444444",
                parentSpanId: "b7ad6b7169203331",
                name: "worker",
                kind: 4,
                startTimeUnixNano: 1700000000010000000n,
                endTimeUnixNano: 1700000000020000000n,
              }),
            ],
          },
        ],
      },
    ],
  };
}
