/** The messages between the export worker (export-worker.ts) and the application's thread (worker-span-exporter.ts). */
import type { RedactionMode } from "../redaction/redactor.js";
import type { OtlpHttpWriterOptions } from "./otlp-http-writer.js";
import type { PlainBatch } from "./span-transfer.js";

export interface ExportWorkerData {
  writer: OtlpHttpWriterOptions;
  /** The default patterns and structural keys with this mode and key; null: no redaction in the worker. */
  redaction: { mode: RedactionMode; hashKey: string } | null;
}

export type ToExportWorker =
  | { type: "export"; id: number; batch: PlainBatch }
  | { type: "abort"; reason: string }
  | { type: "stop-retrying-connections" };

export type FromExportWorker =
  | { type: "ready" }
  | { type: "result"; id: number; ok: boolean; error: string | undefined; rejectedSpans?: number }
  | { type: "instrumentation-error"; where: string; problem: string }
  | { type: "retrying"; answer: string };
