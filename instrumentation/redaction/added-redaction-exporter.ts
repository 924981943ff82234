/**
 * An exporter in front of ragscope's export path that can take more redaction
 * after start. A second `setupRagscope` call (the application's own, after the
 * `ragscope/register` preload) may ask for redaction the running export path
 * does not do; the export path cannot be rebuilt (its queue, sockets and
 * worker are live), so the stricter redactor is put in front of it.
 *
 * Redaction added in front only ever removes more: the running path's own
 * redaction still runs on what this one leaves, so the result is the union of
 * both. Spans already queued are redacted by it too, as they are exported.
 */
import type { ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { isAbortable } from "../export/otlp-http-writer.js";
import { RedactingSpanExporter } from "./redacting-span-exporter.js";
import type { Redactor } from "./redactor.js";

export class AddedRedactionExporter implements SpanExporter {
  private front: SpanExporter;

  constructor(private readonly inner: SpanExporter) {
    this.front = inner;
  }

  /** Redacts every span exported from now on with `redactor` first, then as before. */
  add(redactor: Redactor): void {
    this.front = new RedactingSpanExporter(this.front, redactor);
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.front.export(spans, resultCallback);
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
