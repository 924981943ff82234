/**
 * The benchmarks' split of a node process's CPU by thread kind (test/bench/process-cpu.ts threadCpuSecondsByKind):
 * node names every thread of its own "node", so the split rests on the order node creates them in. A node process
 * with a known layout (2 V8 platform threads, 3 libuv threads, one worker thread) does work on known threads —
 * hashing through libuv's pool (crypto.pbkdf2), a loop in a worker thread — and the CPU must land in those kinds.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { NODE_THREAD_KINDS, EVENT_LOOP_THREAD, nodeThreadLayout, threadCpuSecondsByKind } from "../../bench/process-cpu.js";

/** Hashes on libuv's pool, then spins a worker thread (kept alive: a finished thread's CPU leaves /proc); prints "done" and waits for stdin to close. */
const PROGRAM = `
import { pbkdf2 } from "node:crypto";
import { Worker } from "node:worker_threads";
await Promise.all([1, 2, 3].map(() => new Promise((resolve) => pbkdf2("password", "salt", 400000, 32, "sha256", resolve))));
const worker = new Worker("let sum = 0; for (let i = 0; i < 4e8; i += 1) sum = (sum + i) % 1000003; import('node:worker_threads').then(({ parentPort }) => parentPort.postMessage(sum)); setInterval(() => {}, 1 << 30);", { eval: true });
await new Promise((resolve) => worker.once("message", resolve));
process.stdout.write("done\\n");
process.stdin.resume();
process.stdin.on("end", () => worker.terminate().then(() => process.exit(0)));
`;

test("CPU of libuv's pool, a worker thread and V8's platform threads lands in their kinds", { skip: process.platform !== "linux" && "reads /proc" }, async () => {
  const nodeArguments = ["--v8-pool-size=2"];
  const environment = { ...process.env, UV_THREADPOOL_SIZE: "3", NODE_OPTIONS: "" };
  const child = spawn(process.execPath, [...nodeArguments, "--input-type=module", "-e", PROGRAM], { env: environment, stdio: ["pipe", "pipe", "inherit"] });
  try {
    const exited = once(child, "exit").then(([code]) => `exited with ${String(code)} before its work was done`);
    const said = await Promise.race([once(child.stdout!, "data").then(([chunk]) => String(chunk).trim()), exited]);
    assert.equal(said, "done");
    const kinds = await threadCpuSecondsByKind(child.pid!, nodeThreadLayout(nodeArguments, environment, 1));
    const seconds = (kind: string) => kinds.get(kind) ?? 0;
    // Three hashes of 400,000 rounds each take ~0.3–1 s of CPU on one core; the worker's loop as much.
    assert.ok(seconds(NODE_THREAD_KINDS.libuv) >= 0.1, `libuv's pool did the hashing: ${JSON.stringify([...kinds])}`);
    assert.ok(seconds(NODE_THREAD_KINDS.workers) >= 0.1, `the worker thread ran its loop: ${JSON.stringify([...kinds])}`);
    // Neither leaks into another kind: V8's helpers and the event loop did far less than either.
    assert.ok(seconds(NODE_THREAD_KINDS.platform) < seconds(NODE_THREAD_KINDS.libuv) / 2, `V8's platform threads: ${JSON.stringify([...kinds])}`);
    assert.ok(seconds(EVENT_LOOP_THREAD) < seconds(NODE_THREAD_KINDS.workers) / 2, `the event loop: ${JSON.stringify([...kinds])}`);
    assert.ok(seconds(NODE_THREAD_KINDS.idle) < 0.05, `the idle helpers: ${JSON.stringify([...kinds])}`);
    assert.ok(!kinds.has("engine: node"), "no unnamed thread is left unclassified");
  } finally {
    child.stdin!.end();
    if (child.exitCode === null && child.signalCode === null) await once(child, "exit");
  }
});
