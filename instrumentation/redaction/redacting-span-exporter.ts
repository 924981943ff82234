/**
 * An exporter in front of another that redacts every span before it leaves
 * the process: attributes, event attributes (exception messages, OpenLLMetry's
 * `db.query.result` documents) and the status message. It applies to whatever
 * reaches the exporter — ragscope's spans and any other instrumentation's.
 *
 * Redaction runs here, on the export path (a BatchSpanProcessor timer), not in
 * the application's call: the request does not wait for pattern matching. A
 * span that cannot be redacted (a bug in a custom pattern) is not sent: it is
 * counted as an instrumentation error and left out, never exported in clear.
 */
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter, TimedEvent } from "@opentelemetry/sdk-trace-base";
import { reportInstrumentationError } from "../instrumentation-errors.js";
import type { Redactor } from "./redactor.js";
import { isAbortable } from "../export/otlp-http-writer.js";

export class RedactingSpanExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly redactor: Redactor,
    /** Where a span that could not be redacted is counted; the export worker passes it back to the application's thread. */
    private readonly onError: (where: string, problem: unknown) => void = reportInstrumentationError,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    const redacted: ReadableSpan[] = [];
    for (const span of spans) {
      try {
        redacted.push(redactSpan(span, this.redactor));
      } catch (error) {
        this.onError("redaction", error);
      }
    }
    if (redacted.length === 0) {
      resultCallback({ code: ExportResultCode.SUCCESS });
      return;
    }
    this.inner.export(redacted, resultCallback);
  }

  /** Passes the processor's shutdown deadline on to an exporter that can end its requests. */
  abort(reason: string): void {
    if (isAbortable(this.inner)) this.inner.abort(reason);
  }

  stopRetryingConnections(): void {
    if (isAbortable(this.inner)) this.inner.stopRetryingConnections();
  }

  onRetry(listener: (answer: string) => void): void {
    if (isAbortable(this.inner)) this.inner.onRetry?.(listener);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** The span with its texts redacted: the span itself when nothing was replaced (most spans), else a copy. */
function redactSpan(span: ReadableSpan, redactor: Redactor): ReadableSpan {
  const attributes = redactor.redactAttributes(span.attributes);
  let events: TimedEvent[] = span.events;
  for (let index = 0; index < span.events.length; index += 1) {
    const event = span.events[index]!;
    if (event.attributes === undefined) continue;
    const eventAttributes = redactor.redactAttributes(event.attributes);
    if (eventAttributes === event.attributes) continue;
    if (events === span.events) events = [...span.events];
    events[index] = { ...event, attributes: eventAttributes };
  }
  const message = span.status.message ? redactor.redact(span.status.message) : span.status.message;
  if (attributes === span.attributes && events === span.events && message === span.status.message) return span;
  const status = message === span.status.message ? span.status : { ...span.status, message };
  // A plain copy, never a change to the SDK's span object: other processors share it.
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status,
    attributes,
    links: span.links,
    events,
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}
