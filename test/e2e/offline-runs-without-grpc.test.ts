/**
 * `ragscope demo` and `ragscope eval` run their collector in-process and send
 * it OTLP/HTTP only: they open no OTLP/gRPC port — not even the one
 * RAGSCOPE_GRPC_PORT names for `serve` (here a port another process holds, on
 * which a gRPC server could not start). The built CLI as a subprocess.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

let folder: string;
let heldPort: net.Server;
let busyPort: number;

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-offline-runs-"));
  heldPort = net.createServer();
  await new Promise<void>((resolve) => heldPort.listen(0, "127.0.0.1", resolve));
  busyPort = (heldPort.address() as net.AddressInfo).port;
});

after(async () => {
  await new Promise<void>((resolve) => heldPort.close(() => resolve()));
  await rm(folder, { recursive: true, force: true });
});

/** Runs the CLI until it exits, or until `until` appears in its output (then stops it). */
function run(args: string[], until: RegExp | null): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ragscope, ...args], { cwd: projectRoot, env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_GRPC_PORT: String(busyPort) } });
    let output = "";
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (until !== null && until.test(output)) child.kill("SIGTERM");
    };
    child.stdout.on("data", seen);
    child.stderr.on("data", seen);
    child.on("exit", (status) => resolve({ status, output }));
  });
}

describe("offline runs open no OTLP/gRPC port", () => {
  test("ragscope eval runs its cases though RAGSCOPE_GRPC_PORT names a port in use", async () => {
    const { status, output } = await run(["eval", "--dataset", "examples/datasets/policy-regression.yaml", "--task", "test/e2e/experiments/tasks/coin-task.ts", "--data-dir", path.join(folder, "eval")], null);
    assert.doesNotMatch(output, /already in use|OTLP\/gRPC/i);
    assert.match(output, /cases 26\/26/, output);
    assert.notEqual(status, 2, output);
  });

  test("ragscope demo starts its collector though RAGSCOPE_GRPC_PORT names a port in use", async () => {
    const { output } = await run(["demo", "--data-dir", path.join(folder, "demo")], /Collector listening on http:\/\/[\d.:]+/);
    assert.doesNotMatch(output, /already in use|OTLP\/gRPC/i);
    assert.match(output, /Collector listening on http:\/\/[\d.:]+/, output);
  });
});
