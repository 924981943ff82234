/**
 * Collector roles as real processes for the Kafka tests: `ragscope receive`
 * and `ragscope evaluate` started through bin/ragscope.js (flags and
 * RAGSCOPE_* variables as an operator would give them), their /metrics and
 * /readyz read over HTTP, and SIGKILL for crash tests.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readSample, type Labels } from "../../../../collector/wiring/observe/metrics-registry.js";
import { waitUntil } from "../../../support/kafka-helpers.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const cli = path.join(projectRoot, "bin/ragscope.js");

/** Every child still running: a test that fails half-way must not leave collectors behind (their pipes would also keep the test process alive). */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** Kills every collector process this test process started and that still runs. */
export async function killAllCollectorProcesses(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
}

export interface CollectorProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Base URL of /metrics, /healthz, /readyz. */
  readonly observeUrl: string;
  /** The receiver's URL, for `receive`. */
  readonly receiverUrl: string | null;
  readonly output: string[];
  metrics(): Promise<string>;
  sample(name: string, labels?: Labels): Promise<number | null>;
  ready(): Promise<boolean>;
  kill(signal: NodeJS.Signals): Promise<number | null>;
  exited(): boolean;
}

export async function startCollectorProcess(name: string, role: "receive" | "evaluate" | "collect", flags: string[], environment: NodeJS.ProcessEnv = {}): Promise<CollectorProcess> {
  const child = spawn(process.execPath, [cli, role, "--metrics-port", "0", ...flags], {
    cwd: projectRoot,
    env: { ...process.env, ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  const output: string[] = [];
  let observeUrl: string | null = null;
  let receiverUrl: string | null = null;
  let exitCode: number | null | undefined;
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve((exitCode = code))));
  const collect = (stream: NodeJS.ReadableStream, tag: string) => {
    let rest = "";
    stream.on("data", (chunk: Buffer) => {
      const lines = (rest + chunk.toString("utf8")).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        output.push(`${tag} ${line}`);
        observeUrl ??= /\/readyz on (http:\/\/\S+)/.exec(line)?.[1] ?? null;
        receiverUrl ??= /receiver listening on (http:\/\/\S+)/.exec(line)?.[1] ?? null;
      }
    });
  };
  collect(child.stdout!, "out");
  collect(child.stderr!, "err");
  const started = waitUntil(() => observeUrl ?? undefined, { description: `${name} to start`, timeoutMs: 60_000, intervalMs: 50 });
  const failed = exit.then((code) => {
    throw new Error(`${name} exited with ${code} before it started`);
  });
  try {
    await Promise.race([started, failed]);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${String(error)}\n${output.slice(-20).join("\n")}`);
  }
  failed.catch(() => {});
  const url = observeUrl as unknown as string;
  const metrics = async () => (await fetch(`${url}/metrics`)).text();
  return {
    name,
    child,
    observeUrl: url,
    receiverUrl,
    output,
    metrics,
    async sample(metric, labels = {}) {
      return readSample(await metrics(), metric, labels);
    },
    async ready() {
      const response = await fetch(`${url}/readyz`);
      await response.text();
      return response.status === 200;
    },
    async kill(signal) {
      if (exitCode !== undefined) return exitCode;
      child.kill(signal);
      return exit;
    },
    exited: () => exitCode !== undefined,
  };
}

/** Posts one OTLP protobuf body to a receiver, retrying 503s (the receiver's back-pressure) as OTLP clients do. */
export async function postBody(receiverUrl: string, body: Uint8Array): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await fetch(`${receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body });
    await response.arrayBuffer();
    if (response.status === 200) return;
    if (response.status !== 503 || attempt > 30) throw new Error(`the receiver answered ${response.status}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Posts OTLP protobuf bodies to a receiver, a few requests at a time, retrying 503s as OTLP clients do. */
export async function postBodies(receiverUrl: string, bodies: readonly Uint8Array[], concurrency = 4): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) await postBody(receiverUrl, bodies[next++]!);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
