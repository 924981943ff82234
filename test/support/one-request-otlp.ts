/**
 * One request of an application as an OTLP/JSON body, the way the tenant suites (test/security/) send it through
 * `sendAsTenant`: the spans of one trace from one service, the first the request's root and the others its
 * children, each with string attributes given as a record. Span ids are the trace id's first 15 digits and the
 * span's number (from 1).
 */

export interface RequestSpan {
  name: string;
  attributes: Readonly<Record<string, string>>;
}

export interface OneRequest {
  traceId: string;
  serviceName: string;
  spans: readonly RequestSpan[];
  /** When the root span starts; default a minute ago (inside serve's future-time allowance either way). */
  startMs?: number;
  /** How long the root span lasts, the request's latency; default 100 ms. */
  durationMs?: number;
}

export function oneRequestOtlp(request: OneRequest): string {
  const text = (value: string) => ({ stringValue: value });
  const nanos = (milliseconds: number) => String(BigInt(milliseconds) * 1_000_000n);
  const start = request.startMs ?? Date.now() - 60_000;
  const end = start + (request.durationMs ?? 100);
  const spanId = (number: number) => `${request.traceId.slice(0, 15)}${number}`;
  const spans = request.spans.map((span, index) => ({
    traceId: request.traceId,
    spanId: spanId(index + 1),
    ...(index === 0 ? {} : { parentSpanId: spanId(1) }),
    name: span.name,
    kind: 1,
    startTimeUnixNano: nanos(start + index),
    endTimeUnixNano: nanos(end),
    attributes: Object.entries(span.attributes).map(([key, value]) => ({ key, value: text(value) })),
  }));
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: "service.name", value: text(request.serviceName) }] }, scopeSpans: [{ spans }] }] });
}
