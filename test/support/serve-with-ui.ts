/**
 * `ragscope serve` as a user starts it, as a child process on free ports with
 * its web UI: waits for the "web UI and read API on …" line and hands back
 * that address, the process, its exit and everything it printed. The caller
 * stops it (SIGTERM, then awaits `exited`; SIGKILL in an `after` hook when a
 * test failed first).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

export interface ServeWithUi {
  uiUrl: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Everything serve printed so far, stdout and stderr. */
  output(): string;
}

/** @param environment added to the process's environment (RAGSCOPE_CONFIG and RAGSCOPE_CLICKHOUSE_URL are cleared first). */
export async function startServeWithUi(dataDir: string, environment: Record<string, string>): Promise<ServeWithUi> {
  let output = "";
  const child = spawn(process.execPath, [ragscope, "serve", "--port", "0", "--metrics-port", "0", "--ui-port", "0", "--data-dir", dataDir], {
    cwd: projectRoot,
    env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "", ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  while (!/web UI and read API on/.test(output) && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 100));
  const uiUrl = /web UI and read API on (http:\/\/[\d.:]+)/.exec(output)?.[1] ?? "";
  assert.ok(uiUrl !== "", output);
  return { uiUrl, child, exited, output: () => output };
}
