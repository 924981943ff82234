/**
 * The preload form: `node --import ragscope/register app.js` sets ragscope up
 * before the application's first line runs, configured only by environment
 * variables (RAGSCOPE_ENDPOINT, RAGSCOPE_SERVICE_NAME, RAGSCOPE_SAMPLE_RATE,
 * RAGSCOPE_CAPTURE_TEXT, RAGSCOPE_CAPTURE_TEXT_STAGES, RAGSCOPE_MAX_TEXT_LENGTH,
 * RAGSCOPE_REDACTION, RAGSCOPE_REDACTION_HASH_KEY, RAGSCOPE_HEADERS,
 * RAGSCOPE_PROTOCOL, and the standard OTEL_* ones; setup-options.ts).
 *
 * A preload must not keep the application from starting: a configuration
 * error is printed with what to change, and the application runs untraced.
 * Spans still queued are exported when the process is about to exit
 * (`beforeExit`) or is asked to stop (SIGTERM, SIGINT); for the signals, the
 * default behaviour — exiting — follows the flush unless the application
 * listens to the signal itself.
 */
import { setupRagscope, type RagscopeHandle } from "./setup.js";

let handle: RagscopeHandle | undefined;
try {
  handle = setupRagscope();
} catch (error) {
  console.error(`ragscope/register: not started, the application runs untraced: ${error instanceof Error ? error.message : String(error)}`);
}

if (handle !== undefined) {
  const started = handle;
  const flush = () => started.shutdown().catch(() => undefined);
  process.once("beforeExit", () => void flush());
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      void flush().finally(() => {
        // Only exit when no one else handles the signal (Node's default would have).
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    });
  }
}

export const ragscope: RagscopeHandle | undefined = handle;
