/**
 * Exports what a process recorded before it ends. Short-lived scripts — batch
 * jobs, offline runs, a CLI — end as soon as their event loop drains, while
 * ragscope's export timers are unref()-ed so they never keep an application
 * alive; without this, their last spans (often all of them) are never sent.
 *
 * - `beforeExit` (the event loop drained): shut ragscope down, which exports
 *   everything queued (within the shutdown timeout); the process exits once
 *   that is done.
 * - SIGTERM / SIGINT with no listener of the application's: the same, then the
 *   signal's default — exiting. A second signal meanwhile exits at once, as it
 *   would without ragscope.
 * - SIGTERM / SIGINT that the application listens to: nothing at the signal.
 *   Such an application drains (server.close(), in-flight requests finish) and
 *   its requests go on recording spans; shutting down at the signal dropped
 *   them. ragscope keeps exporting, and flushes at `beforeExit` when the drain
 *   ends, or reports at `exit` what a process.exit() left unexported.
 * - `exit` (process.exit() without `await shutdown()` first, an export that
 *   could not finish, flushing at exit turned off and never done by the
 *   application, spans ended after shutdown): nothing can be sent any more;
 *   say on stderr how many spans were lost and how to avoid it. Installed
 *   whether or not flushing is, and kept after shutdown: a span ended after it
 *   is lost, and said here.
 * - An uncaught exception or an unhandled rejection that ends the process: the
 *   `exit` line says so, not "await shutdown() before process.exit()", which
 *   the application never called. Told by `uncaughtExceptionMonitor`, which
 *   only watches: the process still crashes as it would without ragscope.
 */
/** How the process ended: process.exit() or a drained event loop, or an error nothing caught. */
export type ProcessEnding = "exit" | "uncaughtException" | "unhandledRejection";

export interface ExitFlushTarget {
  shutdown(): Promise<void>;
  /** What is lost if the process ends now, as `ending` ends it (spans unexported, spans ended after shutdown), as a line for stderr; null when nothing is. */
  lossAtExit(ending: ProcessEnding): string | null;
}

const SIGNALS = ["SIGTERM", "SIGINT"] as const;

let ending: ProcessEnding = "exit";

/**
 * An error nothing caught: it ends the process unless the application handles 'uncaughtException' (then the process
 * goes on, and a later exit is an ordinary one). A rejection reaches here only when Node turns it into an uncaught
 * exception (no 'unhandledRejection' handler, the default mode).
 */
function noteUncaught(_error: unknown, origin: NodeJS.UncaughtExceptionOrigin): void {
  if (process.listenerCount("uncaughtException") === 0) ending = origin;
}

/** Every setup's target, said at exit even after its shutdown; one `exit` listener for all of them. */
const reportedAtExit = new Set<{ target: ExitFlushTarget; warn: (message: string) => void }>();

function reportLossesAtExit(): void {
  for (const { target, warn } of reportedAtExit) {
    const loss = target.lossAtExit(ending);
    if (loss !== null) warn(loss);
  }
}

/**
 * Installs the flushing handlers when `flush`, and the exit report in any case. The returned function removes the
 * flushing handlers (called by shutdown); the exit report stays, for spans ended after shutdown.
 */
export function flushOnExit(target: ExitFlushTarget, options: { flush: boolean; warn: (message: string) => void }): () => void {
  const onBeforeExit = () => void target.shutdown().catch(() => undefined);
  const onSignal = (signal: NodeJS.Signals) => {
    // ragscope's listener is first (prepended), so every listener the application added is still there, `once` ones too.
    const applicationHandles = process.listeners(signal).some((listener) => listener !== onSignal);
    if (applicationHandles) return;
    // A second signal during the flush ends the process at once, as Node's default does.
    process.off(signal, onSignal);
    void target
      .shutdown()
      .catch(() => undefined)
      .finally(() => {
        // Only exit when no one else handles the signal (Node's default would have).
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
  };
  if (options.flush) {
    process.once("beforeExit", onBeforeExit);
    for (const signal of SIGNALS) process.prependListener(signal, onSignal);
  }
  if (reportedAtExit.size === 0) {
    process.once("exit", reportLossesAtExit);
    process.on("uncaughtExceptionMonitor", noteUncaught);
  }
  reportedAtExit.add({ target, warn: options.warn });
  return () => {
    process.off("beforeExit", onBeforeExit);
    for (const signal of SIGNALS) process.off(signal, onSignal);
  };
}
