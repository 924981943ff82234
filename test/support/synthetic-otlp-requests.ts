/**
 * Synthetic OTLP/HTTP requests for the receiver's attack tests and the
 * largest-request benchmark: numbered traces whose first span is the request
 * root, encoded as protobuf by the collector's own encoder, and a raw POST that
 * reports the status, Retry-After and body (no agent, so each request is its
 * own connection, as separate clients are).
 */
import http from "node:http";
import { encodeTraceRequest } from "../../collector/00-otlp/index.js";
import type { KeyValue, SpanDocument, TracesDocument } from "../../collector/00-otlp/traces-document.js";

export const text = (key: string, value: string): KeyValue => ({ key, value: { stringValue: value } });
export const syntheticTraceId = (index: number) => index.toString(16).padStart(32, "a");
export const syntheticSpanId = (trace: number, index: number) => ((trace << 20) + index + 1).toString(16).padStart(16, "b");

/** Span `index` of trace `trace`: index 0 is the root (`rag.request` with a query), the others its children. */
export function syntheticSpan(trace: number, index: number, attributes: KeyValue[]): SpanDocument {
  return {
    traceId: syntheticTraceId(trace),
    spanId: syntheticSpanId(trace, index),
    traceState: "",
    parentSpanId: index === 0 ? "" : syntheticSpanId(trace, 0),
    flags: 0,
    name: index === 0 ? "rag.request" : "rag.retrieve",
    kind: 1,
    startTimeUnixNano: 1_700_000_000_000_000_000n + BigInt(index),
    endTimeUnixNano: 1_700_000_000_100_000_000n,
    attributes: index === 0 ? [text("openinference.span.kind", "CHAIN"), text("input.value", `query ${trace}`), ...attributes] : attributes,
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: { message: "", code: 0 },
  };
}

/** One export request of these spans from one service, as protobuf. */
export function syntheticRequestBody(spans: SpanDocument[], serviceName = "attack"): Uint8Array {
  const document: TracesDocument = {
    resourceSpans: [
      {
        resource: { attributes: [text("service.name", serviceName)], droppedAttributesCount: 0 },
        scopeSpans: [{ scope: { name: serviceName, version: "1", attributes: [], droppedAttributesCount: 0 }, spans, schemaUrl: "" }],
        schemaUrl: "",
      },
    ],
  };
  return encodeTraceRequest(document);
}

export interface ReceiverAnswer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/** POSTs a body to `${url}/v1/traces` as protobuf on a connection of its own. */
export function postTraces(url: string, body: Uint8Array, headers: Record<string, string> = {}): Promise<ReceiverAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}/v1/traces`, { method: "POST", agent: false, headers: { "content-type": "application/x-protobuf", "content-length": String(body.byteLength), ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers["retry-after"], body: Buffer.concat(chunks).toString("latin1") }));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(body);
  });
}
