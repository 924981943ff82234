/**
 * Turns an error that reached the command line into one line that says what
 * happened, where, and how to fix it. Expected failures have their own types
 * (mapped at the edge where they happen); anything else is a bug, printed with
 * its message, and its stack when RAGSCOPE_DEBUG is set.
 */
import { PortInUseError } from "../../01-receive/listen.js";
import { StoreLockedError } from "../../../store/clickhouse/store-locked-error.js";

const moveWith = {
  receiver: "--port N (or RAGSCOPE_RECEIVER_PORT); --port 0 picks a free port",
  metrics: "--metrics-port N (or RAGSCOPE_METRICS_PORT); 0 picks a free port",
} as const;

/** @param debug print the stack trace too (RAGSCOPE_DEBUG is set) */
export function describeFailure(commandName: string, error: unknown, debug: boolean): string[] {
  const command = commandName === "" ? "" : ` ${commandName}`;
  if (error instanceof PortInUseError) {
    const role = error.purpose === "receiver" ? "the OTLP/HTTP receiver" : "the metrics endpoint";
    return [
      `ragscope${command}: port ${error.port} on ${error.host} is already in use, so ${role} cannot start ` +
        `(another collector — ragscope, the OTel Collector, Jaeger or Phoenix — may be running there); choose another port with ${moveWith[error.purpose]}`,
    ];
  }
  if (error instanceof StoreLockedError) {
    const holder = error.holder === null ? "another process" : `process ${error.holder.pid}${error.holder.command ? ` (${error.holder.command})` : ""}`;
    return [
      `ragscope${command}: the data folder ${error.dataPath} is held by ${holder}; the embedded engine lets one process at a time open it. ` +
        `Stop that process first${error.holder === null ? "" : ` (Ctrl-C in its terminal, or kill -TERM ${error.holder.pid})`}, or use another folder with --data-dir (or RAGSCOPE_DATA_DIR). ` +
        `While ragscope serve runs, its web UI and read API (the address it printed at start; GET /api/runs/<run>/summary) show the same data`,
    ];
  }
  const message = error instanceof Error ? error.message : String(error);
  const lines = [`ragscope${command}: unexpected error: ${message.split("\n")[0]}${debug ? "" : " (set RAGSCOPE_DEBUG=1 for the stack trace)"}`];
  if (debug && error instanceof Error && error.stack) lines.push(error.stack);
  return lines;
}
