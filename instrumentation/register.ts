/// <reference types="node" preserve="true" />
// The declarations name Node's types (NodeJS.ProcessEnv, Buffer): kept in the emitted .d.ts, so an application whose
// compiler does not load every @types package by itself (TypeScript 6 and later) still resolves them.
/**
 * The preload form: `node --import ragscope/register app.js` sets ragscope up
 * before the application's first line runs, configured only by environment
 * variables (RAGSCOPE_ENDPOINT, RAGSCOPE_SERVICE_NAME, RAGSCOPE_SAMPLE_RATE,
 * RAGSCOPE_CAPTURE_TEXT, RAGSCOPE_CAPTURE_TEXT_STAGES, RAGSCOPE_MAX_TEXT_LENGTH,
 * RAGSCOPE_REDACTION, RAGSCOPE_REDACTION_HASH_KEY, RAGSCOPE_HEADERS,
 * RAGSCOPE_PROTOCOL, RAGSCOPE_FLUSH_ON_EXIT, and the standard OTEL_* ones;
 * setup-options.ts).
 *
 * A preload must not keep the application from starting: a configuration
 * error is printed with what to change, and the application runs untraced.
 * Spans still queued are exported when the process is about to exit, as with
 * every setup (export/flush-on-exit.ts).
 */
import { setupRagscope, type RagscopeHandle } from "./setup.js";

let handle: RagscopeHandle | undefined;
try {
  handle = setupRagscope();
} catch (error) {
  console.error(`ragscope/register: not started, the application runs untraced: ${error instanceof Error ? error.message : String(error)}`);
}

export const ragscope: RagscopeHandle | undefined = handle;
