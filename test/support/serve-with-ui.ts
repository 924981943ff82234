/**
 * `ragscope serve` as a user starts it, as a child process on free ports with
 * its web UI: waits for the "web UI and read API on …" line (or the line the
 * caller names, e.g. "Eval Cases loaded" after `--dataset`) and hands back
 * that address, the OTLP receiver's, the process, its exit and everything it
 * printed. The caller stops it (`stop()`: SIGTERM, then its exit; SIGKILL in
 * an `after` hook when a test failed first).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

export interface ServeWithUi {
  uiUrl: string;
  /** The OTLP/HTTP receiver's base URL (POST to `${receiverUrl}/v1/traces`). */
  receiverUrl: string;
  /** The OTLP/gRPC receiver's endpoint (http://host:port), null when serve said gRPC is off. */
  grpcUrl: string | null;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Everything serve printed so far, stdout and stderr. */
  output(): string;
  /** SIGTERM unless it already exited, then its exit. */
  stop(): Promise<number | null>;
}

export interface ServeWithUiOptions {
  /** Arguments after serve's own ports and data folder, e.g. ["--dataset", file]. */
  arguments?: readonly string[];
  /** The line that says serve is ready; default the "web UI and read API on" line. */
  readyLine?: RegExp;
  /** Longest wait for that line; default: until serve exits. */
  timeoutMs?: number;
}

/** @param environment added to the process's environment (RAGSCOPE_CONFIG and RAGSCOPE_CLICKHOUSE_URL are cleared first). */
export async function startServeWithUi(dataDir: string, environment: Record<string, string>, options: ServeWithUiOptions = {}): Promise<ServeWithUi> {
  let output = "";
  const readyLine = options.readyLine ?? /web UI and read API on/;
  const child = spawn(process.execPath, [ragscope, "serve", "--port", "0", "--metrics-port", "0", "--ui-port", "0", "--data-dir", dataDir, ...(options.arguments ?? [])], {
    cwd: projectRoot,
    env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "", ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  while (!readyLine.test(output) && child.exitCode === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  const uiUrl = /web UI and read API on (http:\/\/[\d.:]+)/.exec(output)?.[1] ?? "";
  const receiverUrl = /OTLP\/HTTP on (http:\/\/[\d.:]+)\/v1\/traces/.exec(output)?.[1] ?? "";
  const grpcUrl = /OTLP\/gRPC on (http:\/\/[\d.:]+)/.exec(output)?.[1] ?? null;
  if (uiUrl === "" || receiverUrl === "" || !readyLine.test(output)) {
    // Not left running behind a failed start (a serve that did not say the line in time).
    child.kill("SIGKILL");
    assert.fail(`ragscope serve did not start:\n${output}`);
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    return exited;
  };
  return { uiUrl, receiverUrl, grpcUrl, child, exited, output: () => output, stop };
}
