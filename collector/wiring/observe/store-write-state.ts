/**
 * What an operator sees while the store refuses writes (a full disk, a
 * server that answers errors): the evaluation worker keeps the evaluated
 * traces in memory and retries, and nothing is lost while the process runs —
 * but the store's ping still answers, so /readyz said ready and the log said
 * nothing while acknowledged traces piled up in memory. Here the refusal
 * makes /readyz 503 with the reason, and the log says when it starts and ends.
 */
import type { ReadinessCheck } from "./observe-server.js";

/** The worker's side of it (collector/07-evaluate/evaluation-worker.ts). */
export interface StoreWriteState {
  readonly storeRefusesWrites: boolean;
  readonly lastSinkError: string | null;
  /** Evaluated or being evaluated, not yet durable. */
  readonly backlog: number;
}

function refusal(worker: StoreWriteState): string {
  return `the store refuses writes (${worker.lastSinkError?.trim() ?? "no reason given"}): ${worker.backlog} evaluated trace(s) wait in memory and are written when it takes writes again`;
}

/** /readyz: not ready while the store refuses writes. */
export function storeWritesReadiness(worker: StoreWriteState): ReadinessCheck {
  return { name: "store writes", check: async () => (worker.storeRefusesWrites ? refusal(worker) : null) };
}

/**
 * One line when the store starts refusing writes and one when it takes them
 * again, read every `intervalMs`: an outage that lasts is said once, not once
 * per retry.
 */
export function watchStoreWrites(worker: StoreWriteState, write: (line: string) => void, prefix: string, intervalMs = 1_000): { stop(): void } {
  let refusing = false;
  const timer = setInterval(() => {
    if (worker.storeRefusesWrites === refusing) return;
    refusing = worker.storeRefusesWrites;
    write(refusing ? `${prefix}: ${refusal(worker)}; free the store's disk or fix what the error names (ragscope_sink_write_failures_total counts the failed writes)` : `${prefix}: the store takes writes again`);
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
