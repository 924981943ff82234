/**
 * `ragscope serve` as a child process, for attack tests and benchmarks that
 * measure the collector itself: its counters and its resident set size are
 * read from its /metrics (ragscope_process_resident_memory_bytes is sampled
 * while an attack runs), its CPU from /proc by its pid.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openClickHouse, type ClickHouseConnection } from "../../store/clickhouse/clickhouse-connection.js";

const binary = fileURLToPath(new URL("../../bin/ragscope.js", import.meta.url));

export interface CollectorSubprocess {
  receiverUrl: string;
  metricsUrl: string;
  dataDir: string;
  pid: number;
  /** A counter's value from /metrics now (0 before its first increment). */
  counter(name: string): Promise<number>;
  /** The text of /metrics now, for reading several samples from one scrape (readSample). */
  metrics(): Promise<string>;
  /** The collector's resident set size now, in bytes. */
  rss(): Promise<number>;
  /** Samples the RSS every `intervalMs` until the returned function is called; it resolves with the highest sample. */
  sampleRss(intervalMs?: number): () => Promise<number>;
  /** True while the process runs. */
  alive(): boolean;
  /** SIGTERM (open traces are evaluated and written), then waits for the exit code. */
  stop(): Promise<number | null>;
  /** Opens the store the collector wrote, once it stopped. */
  openStore(): Promise<ClickHouseConnection>;
  /** Removes the data folder. */
  remove(): Promise<void>;
  output(): string;
}

/**
 * `options.dataDir`: a folder an earlier collector wrote (a restart); default a new temporary one.
 * `options.nodeArguments`: given to node before the program (e.g. `--cpu-prof`).
 */
export async function startCollectorSubprocess(environment: Record<string, string>, options: { dataDir?: string; nodeArguments?: readonly string[] } = {}): Promise<CollectorSubprocess> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), "ragscope-attack-")));
  // Every port free-picked, so tests running side by side never clash (the UI's default is 4000).
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArguments ?? []), binary, "serve", "--port", "0", "--metrics-port", "0", "--ui-port", "0", "--data-dir", dataDir], {
    env: { ...process.env, RAGSCOPE_QUIET_PERIOD_MS: "200", ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let running = true;
  void exited.then(() => (running = false));

  const deadline = Date.now() + 60_000;
  let receiverUrl: string | undefined;
  let metricsUrl: string | undefined;
  while ((receiverUrl === undefined || metricsUrl === undefined) && running && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    receiverUrl = /OTLP\/HTTP on (http:\/\/[\d.:]+)\/v1\/traces/.exec(output)?.[1];
    metricsUrl = /\/metrics, \/healthz and \/readyz on (http:\/\/[\d.:]+)/.exec(output)?.[1];
  }
  if (receiverUrl === undefined || metricsUrl === undefined) {
    child.kill("SIGKILL");
    if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    throw new Error(`ragscope serve did not start:\n${output}`);
  }
  const metrics = metricsUrl;
  const scrape = async () => (await fetch(`${metrics}/metrics`)).text();
  const rss = async () => {
    const text = await scrape();
    const match = /^ragscope_process_resident_memory_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
    if (match === null) throw new Error(`no ragscope_process_resident_memory_bytes in /metrics:\n${text.slice(0, 2000)}`);
    return Number(match[1]);
  };
  const counter = async (name: string) => {
    const text = await scrape();
    const line = text.split("\n").find((entry) => entry.startsWith(`${name} `) || entry.startsWith(`${name}{`));
    return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
  };
  return {
    receiverUrl,
    metricsUrl,
    dataDir,
    pid: child.pid!,
    counter,
    metrics: scrape,
    rss,
    sampleRss(intervalMs = 100) {
      let highest = 0;
      let sampling = true;
      const loop = (async () => {
        while (sampling && running) {
          try {
            highest = Math.max(highest, await rss());
          } catch {
            // A busy or dying collector may not answer one sample; the next one counts.
          }
          await new Promise((resolve) => setTimeout(resolve, intervalMs));
        }
      })();
      return async () => {
        sampling = false;
        await loop;
        if (running) highest = Math.max(highest, await rss());
        return highest;
      };
    },
    alive: () => running,
    async stop() {
      if (running) child.kill("SIGTERM");
      return exited;
    },
    openStore: () => openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir }),
    remove: () => rm(dataDir, { recursive: true, force: true }),
    output: () => output,
  };
}
