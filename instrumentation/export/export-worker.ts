/**
 * The export worker's thread (started by worker-span-exporter.ts): redaction,
 * OTLP encoding and the HTTP requests of ragscope's exports run here, off the
 * application's thread. The application's thread only turns each batch into
 * plain data (span-transfer.ts) and posts it; the answer to each batch comes
 * back as a message, so the span processor's queue, limits, counts and
 * deadlines stay where they were (ragscope-span-processor.ts).
 *
 * Messages in: `export` (a batch with its id), `abort` (the processor's
 * shutdown deadline: every request in flight ends), `stop-retrying-connections`.
 * Messages out: `ready` (the module loaded), `result` (per batch), `instrumentation-error` (a span that
 * could not be redacted: counted on the application's thread, where
 * `instrumentationErrors()` is read), `retrying` (an answer about to be
 * retried, for the shutdown report).
 */
import { parentPort, workerData } from "node:worker_threads";
import { ExportResultCode } from "@opentelemetry/core";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { RedactingSpanExporter } from "../redaction/redacting-span-exporter.js";
import { createRedactor } from "../redaction/redactor.js";
import { describeProblem } from "../instrumentation-errors.js";
import { OtlpHttpWriter } from "./otlp-http-writer.js";
import { PartialSuccess } from "./otlp-failure-answer.js";
import { toReadableSpans } from "./span-transfer.js";
import type { ExportWorkerData, ToExportWorker, FromExportWorker } from "./export-worker-messages.js";

const port = parentPort;
if (port === null) throw new Error("export-worker.ts runs as a worker thread (worker-span-exporter.ts starts it)");
const settings = workerData as ExportWorkerData;
const writer = new OtlpHttpWriter(settings.writer);
const post = (message: FromExportWorker) => port.postMessage(message);
writer.onRetry((answer) => post({ type: "retrying", answer }));
const exporter: SpanExporter =
  settings.redaction === null
    ? writer
    : new RedactingSpanExporter(writer, createRedactor(settings.redaction), (where, problem) => post({ type: "instrumentation-error", where, problem: describeProblem(problem) }));

port.on("message", (message: ToExportWorker) => {
  switch (message.type) {
    case "export":
      exporter.export(toReadableSpans(message.batch), (result) =>
        post({
          type: "result",
          id: message.id,
          ok: result.code === ExportResultCode.SUCCESS,
          error: result.error?.message,
          ...(result.error instanceof PartialSuccess ? { rejectedSpans: result.error.rejectedSpans } : {}),
        }),
      );
      break;
    case "abort":
      writer.abort(message.reason);
      break;
    case "stop-retrying-connections":
      writer.stopRetryingConnections();
      break;
  }
});
// Loaded: from now on a batch posted here may have been sent, and is not sent again from the application's thread.
post({ type: "ready" });
