/**
 * The embedded path as a user runs it: `ragscope serve` (a subprocess:
 * OTLP/HTTP receiver → in-process bus → assemble → rebuild → rule
 * evaluators → embedded ClickHouse engine) fed 8-span RAG traces over
 * OTLP/HTTP protobuf by 4 concurrent senders (50 traces a request), timed
 * from the first request sent to the last trace written (the serve process's
 * own `ragscope_traces_written_total`). Peak RSS is the serve process's high
 * water mark (VmHWM). After the run, the store is opened to count the rows a
 * trace wrote per table, and how many metrics did not apply (no row since
 * migration 0008; listed on their Evaluation Result).
 *
 * Size: RAGSCOPE_BENCH_TRACES (default 4,000 traces = 32,000 spans). The
 * traces are recorded once with the SDK wrappers before the clock starts.
 *
 * Profile: RAGSCOPE_BENCH_CPU_PROF=DIR starts serve with --cpu-prof into DIR.
 *
 * Notes (2-core machine shared with other work, so figures vary by 2×):
 * 1,000 traces ran at ~980 spans/s, 2,000 at ~1,170 spans/s, 4,000 at
 * ~540 spans/s with a peak RSS of 0.9–1.5 GB; 88 rows per trace (1 case
 * result, 23 evaluation results, 64 metric values of which 45 are "not
 * applicable"). Top self-time frames of serve (--cpu-prof, 2,000 traces):
 * garbage collection 21 %, the prompt-injection patterns of
 * evaluators/online/find-injections.ts (Chinese 10 %, English 5.5 %: regular
 * expressions with look-behinds run over every retrieved chunk, here 10 ×
 * 500 characters), normalizeText 6 % and tokenize 2 % (evaluators/text),
 * OTLP protobuf decode ~5 %; the sink's own work (prepareBatch, joinLines)
 * ~3 % and the engine call 1.5 %. So on this path the store is not what
 * limits throughput today: the evaluators and the garbage they make are.
 * Nothing was changed in them here (their definitions are outside the
 * storage change); the first candidates are one pass of the injection
 * patterns over the chunk text instead of a look-behind per position, and
 * normalising each chunk once per trace instead of once per evaluator.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { openClickHouse } from "../../store/clickhouse/clickhouse-connection.js";
import { startSpanRecorder, toOtlpProtobuf } from "../support/recorded-spans.js";
import { queryRows } from "../support/temporary-store.js";
import { megabytes, type BenchmarkResult } from "./benchmark.js";
import { eightSpanRequest } from "./eight-span-request.js";

const TRACES = Number(process.env.RAGSCOPE_BENCH_TRACES ?? 4_000);
const TRACES_PER_REQUEST = 50;

const SENDERS = 4;
const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");


/** `traces` eight-span traces recorded with the SDK wrappers, as OTLP protobuf bodies of `perRequest` traces each. */
export async function recordBodies(traces = TRACES, perRequest = TRACES_PER_REQUEST): Promise<{ bodies: Uint8Array[]; spans: number }> {
  const recorder = startSpanRecorder("policy-assistant");
  const bodies: Uint8Array[] = [];
  let spans = 0;
  try {
    for (let start = 0; start < traces; start += perRequest) {
      for (let index = start; index < Math.min(traces, start + perRequest); index += 1) await eightSpanRequest(index);
      const finished: ReadableSpan[] = recorder.spans();
      spans += finished.length;
      bodies.push(toOtlpProtobuf(finished));
      recorder.reset();
    }
  } finally {
    await recorder.shutdown();
  }
  return { bodies, spans };
}

export async function metricValue(url: string, name: string): Promise<number> {
  const text = await (await fetch(url)).text();
  const line = text.split("\n").find((entry) => entry.startsWith(`${name} `) || entry.startsWith(`${name}{`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
}

async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** CPU seconds (user + system, all threads) a process has used, from /proc/PID/stat (clock ticks of 1/100 s). */
export async function processCpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at field 3; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds per thread name (/proc/PID/task/TID/stat), so the engine's threads can be told from the event loop's. */
export async function threadCpuSeconds(pid: number): Promise<Map<string, number>> {
  const byName = new Map<string, number>();
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, "utf8").catch(() => "");
    if (stat === "") continue;
    const name = tid === String(pid) ? "event loop (main thread)" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/[\d-]+$/, "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
  }
  return byName;
}

export async function benchmark(): Promise<BenchmarkResult> {
  const recordStarted = Date.now();
  const { bodies, spans } = await recordBodies();
  const recordSeconds = (Date.now() - recordStarted) / 1000;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-bench-serve-"));
  const profile = process.env.RAGSCOPE_BENCH_CPU_PROF;
  const child = spawn(process.execPath, [...(profile ? ["--cpu-prof", "--cpu-prof-dir", profile] : []), path.join(projectRoot, "bin/ragscope.js"), "serve", "--data-dir", dataDir, "--port", "0", "--metrics-port", "0"], {
    env: { ...process.env, RAGSCOPE_QUIET_PERIOD_MS: "200", RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_CONFIG: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (data: Buffer) => (output += data.toString()));
  child.stderr.on("data", (data: Buffer) => (output += data.toString()));
  try {
    const addresses = await new Promise<{ receiver: string; metrics: string }>((resolve, reject) => {
      const timer = setInterval(() => {
        const receiver = /OTLP\/HTTP on (http:\/\/[^\s]+)\/v1\/traces/.exec(output)?.[1];
        const metrics = /\/readyz on (http:\/\/[^\s]+)/.exec(output)?.[1];
        if (receiver && metrics) {
          clearInterval(timer);
          resolve({ receiver, metrics: `${metrics}/metrics` });
        }
      }, 50);
      child.on("exit", (code) => {
        clearInterval(timer);
        reject(new Error(`ragscope serve exited (${code}) before listening:\n${output}`));
      });
    });
    const cpuAtStart = await processCpuSeconds(child.pid!);
    const threadsAtStart = await threadCpuSeconds(child.pid!);
    const started = Date.now();
    let next = 0;
    let refused = 0;
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++]!;
          for (;;) {
            const response = await fetch(`${addresses.receiver}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body });
            await response.arrayBuffer();
            if (response.status === 200) break;
            refused += 1;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      }),
    );
    const sentSeconds = (Date.now() - started) / 1000;
    // Every 100 ms: rendering /metrics costs serve CPU (at every 25 ms it was 3 % of serve's profile).
    while ((await metricValue(addresses.metrics, "ragscope_traces_written_total")) < TRACES) await new Promise((resolve) => setTimeout(resolve, 100));
    const seconds = (Date.now() - started) / 1000;
    const cpuSeconds = (await processCpuSeconds(child.pid!)) - cpuAtStart;
    const threads = [...(await threadCpuSeconds(child.pid!))]
      .map(([name, seconds]) => ({ name, seconds: seconds - (threadsAtStart.get(name) ?? 0) }))
      .filter((thread) => thread.seconds > 0)
      .sort((left, right) => right.seconds - left.seconds)
      .slice(0, 6);
    const load = os.loadavg();
    const rss = await peakRss(child.pid!);
    child.kill("SIGTERM");
    await new Promise((resolve) => child.on("exit", resolve));

    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const count = async (query: string) => Number((await queryRows<{ rows: string }>(connection, query))[0]!.rows);
      const cases = await count("SELECT count() AS rows FROM ragscope.case_results FINAL");
      const evaluations = await count("SELECT count() AS rows FROM ragscope.evaluation_results FINAL");
      const metrics = await count("SELECT count() AS rows FROM ragscope.metric_values FINAL");
      const nullRows = await count("SELECT count() AS rows FROM ragscope.metric_values FINAL WHERE value IS NULL");
      const notApplicable = await count("SELECT count() AS rows FROM ragscope.evaluation_results FINAL ARRAY JOIN not_applicable_metrics AS metric");
      return {
        title: `Embedded serve: OTLP/HTTP → evaluated and stored, ${TRACES.toLocaleString("en-US")} traces of ${spans / TRACES} spans`,
        figures: [
          { name: "spans per second (first request → last trace written)", value: Math.round(spans / seconds), unit: "spans/s" },
          { name: "traces per second", value: Math.round(TRACES / seconds), unit: "traces/s" },
          // The wall-clock rate depends on what else the machine runs; the CPU serve spent per span much less.
          { name: "serve CPU per span (user + system, all threads)", value: Math.round((cpuSeconds / spans) * 1e7) / 10, unit: "µs" },
          { name: "spans per CPU second of serve (the rate one busy core would reach)", value: Math.round(spans / cpuSeconds), unit: "spans/s" },
          { name: "load average (1 min) at the end", value: Math.round(load[0]! * 100) / 100 },
          ...threads.map((thread) => ({ name: `  CPU per span in threads "${thread.name}"`, value: Math.round((thread.seconds / spans) * 1e7) / 10, unit: "µs" })),
          { name: "sending took", value: Math.round(sentSeconds * 10) / 10, unit: "s" },
          { name: "requests answered 503 (retried)", value: refused },
          { name: "peak RSS of serve", value: megabytes(rss), unit: "MB" },
          { name: "case results stored", value: cases },
          { name: "rows per trace (all tables)", value: Math.round(((cases + evaluations + metrics) / cases) * 10) / 10 },
          { name: "metric rows per trace", value: Math.round((metrics / cases) * 10) / 10 },
          { name: "of which NULL (hiding an earlier value)", value: Math.round((nullRows / cases) * 10) / 10 },
          { name: "metrics not applicable per trace (no row, listed on the Evaluation Result)", value: Math.round((notApplicable / cases) * 10) / 10 },
          { name: "evaluation rows per trace", value: Math.round((evaluations / cases) * 10) / 10 },
          { name: "recording the traces (SDK, before the clock)", value: Math.round(recordSeconds * 10) / 10, unit: "s" },
        ],
      };
    } finally {
      await connection.close();
    }
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    await rm(dataDir, { recursive: true, force: true });
  }
}
