/**
 * Exports what a process recorded before it ends. Short-lived scripts — batch
 * jobs, offline runs, a CLI — end as soon as their event loop drains, while
 * ragscope's export timers are unref()-ed so they never keep an application
 * alive; without this, their last spans (often all of them) are never sent.
 *
 * - `beforeExit` (the event loop drained): shut ragscope down, which exports
 *   everything queued; the process exits once that is done.
 * - SIGTERM / SIGINT: the same, then the signal's default — exiting — unless
 *   the application listens to that signal itself.
 * - `exit` (process.exit() without `await shutdown()` first, an export that
 *   could not finish, or flushing at exit turned off and never done by the
 *   application): nothing can be sent any more; say on stderr how many spans
 *   were lost and how to avoid it. Installed whether or not flushing is.
 */
export interface ExitFlushTarget {
  shutdown(): Promise<void>;
  /** Spans still queued: lost if the process ends now. */
  queued(): number;
}

const SIGNALS = ["SIGTERM", "SIGINT"] as const;

/** Installs the handlers (`flush`: also the flushing ones); the returned function removes them (called by shutdown). */
export function flushOnExit(target: ExitFlushTarget, options: { flush: boolean; destination: string; warn: (message: string) => void }): () => void {
  const { destination, warn } = options;
  const onBeforeExit = () => void target.shutdown().catch(() => undefined);
  const onSignal = (signal: NodeJS.Signals) => {
    void target
      .shutdown()
      .catch(() => undefined)
      .finally(() => {
        // Only exit when no one else handles the signal (Node's default would have).
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
  };
  const onExit = () => {
    const lost = target.queued();
    if (lost > 0) warn(`ragscope: the process exited with ${lost} spans not yet exported to ${destination}; await shutdown() on the setup's handle before process.exit()`);
  };
  if (options.flush) {
    process.once("beforeExit", onBeforeExit);
    for (const signal of SIGNALS) process.once(signal, onSignal);
  }
  process.once("exit", onExit);
  return () => {
    process.off("beforeExit", onBeforeExit);
    for (const signal of SIGNALS) process.off(signal, onSignal);
    process.off("exit", onExit);
  };
}
