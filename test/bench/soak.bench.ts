/**
 * `ragscope serve` under a steady load for minutes, as a platform engineer
 * runs it: does its memory settle or creep, does it keep up, and how much
 * disk does a trace take? The other benchmarks measure bursts of seconds.
 *
 * serve runs as a subprocess with its defaults (the 2 s quiet period
 * included), fed 8-span RAG traces over OTLP/HTTP protobuf at a fixed rate
 * (`--rate`, traces a second, default 200 = 1,600 spans/s, about half of what
 * serve absorbs on a 2-core machine, embedded-serve.bench.ts) for
 * `--minutes` (default 3). Each request's 50 traces are recorded with the SDK
 * wrappers just before it is sent, so every trace id is new, and so are the
 * traces' chunk texts (since 2026-12-05; `--repeated-chunks` sends the same
 * ten in every trace, as every run in the notes below did: the evaluator's
 * text memos then hit across traces, and its CPU a span is about half). Every 5 s the
 * benchmark reads serve's resident set, heap in use and traces written
 * (/metrics).
 *
 * Printed: the median resident set and heap of each third of the run and
 * their drift (last third ÷ middle third: a leak shows as a ratio that grows
 * with the run's length), the largest lag (traces sent − written; the quiet
 * period alone holds rate × 2 s), requests refused, serve's CPU a span, and
 * the store's size: bytes on disk a trace (the data folder) and per table
 * (active parts, compressed), read back after serve stopped.
 *
 * Notes (2026-12-03, 2 cores, quiet machine):
 * - 12 minutes at 200 traces/s before 0022 (144,000 traces, 1.15 M spans,
 *   sampled every 15 s): resident set
 *   900–1,320 MB throughout (no trend), heap in use 90–190 MB (a saw tooth:
 *   collected every ~30 s), lag 400–450 traces (the 2 s quiet period at
 *   200/s), no request refused; the data folder grew to ~1.3 GB, ~9 KB a
 *   trace (merged-away parts included, which the engine deletes ~8 minutes
 *   after a merge).
 * - Bytes a trace in the tables' active parts, before and after migration
 *   0022 (ZSTD(1) for ids, times and numbers; a 1-minute and a 3-minute
 *   run): evaluation_results 3,677 → 2,469, metric_values 1,957 → 1,116,
 *   trace_list_metrics 747 → 456, trace_spans 522 → 483, case_results
 *   318 → 270, trace_list 99 → 99 (left on LZ4): ~7.6 → ~4.9 KB a trace.
 *   The 3-minute run after it: resident set 985 / 1,086 / 1,068 MB by
 *   third (0.98), heap 116 / 147 / 135 MB, 36,050 of 36,050 written.
 * - The resident set by part (/metrics since the engine-memory and
 *   file-backed gauges; 3 minutes, medians, MB): heap held 161, Buffers 81,
 *   engine in use 63, pages mapped from files 243 (the engine's library:
 *   ~570 MB of code, its idle process already maps ~230 MB), rest 404. The
 *   rest, from /proc/PID/smaps and glibc's malloc_stats (gdb, 1-minute
 *   runs): the decode threads' own V8 heaps (~70–90 MB: V8's 256 KB pages
 *   beyond the main heap's), memory glibc holds freed (malloc_trim(0) gave
 *   back 54–77 MB), node's and V8's code and tables, and memory in
 *   anonymous mappings of 8 MB and more that no gauge attributes (glibc
 *   held ~190 MB in all, Buffers and engine allocations included, against
 *   ~380 MB resident in such mappings). glibc tunables (fixed mmap threshold,
 *   trim threshold, two arenas) moved the resident set by less than run to
 *   run spread (1.5-minute runs: ~960–1,010 against ~1,000–1,100 MB).
 */
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { startSpanRecorder, toOtlpProtobuf } from "../support/recorded-spans.js";
import { RAGSCOPE_ATTRIBUTE_COUNT_LIMIT } from "../../instrumentation/index.js";
import { queryRows } from "../support/temporary-store.js";
import { readSample } from "../../collector/wiring/observe/metrics-registry.js";
import { folderBytes, median, megabytes, readResidentParts, residentParts, type BenchmarkFigure, type BenchmarkOptions, type BenchmarkResult, type ResidentPart } from "./benchmark.js";
import { eightSpanRequest, eightSpanRequestWithOwnChunks } from "./eight-span-request.js";
import { processCpuSeconds } from "./process-cpu.js";

const TRACES_PER_REQUEST = 50;
const SAMPLE_EVERY_MS = 5_000;
/** serve's default quiet period (collector-config.ts assembler.quietPeriodMs), given explicitly: the test helper shortens it. */
const DEFAULT_QUIET_PERIOD_MS = "2000";

interface Sample {
  atMs: number;
  rssBytes: number;
  heapBytes: number;
  /** The parts of the resident set /metrics tells apart: the heap V8 holds, Buffers, the engine's working memory, pages mapped from files. */
  parts: Record<ResidentPart, number>;
  sent: number;
  written: number;
}

/** One scrape of serve's /metrics; every figure must be there (serve without one is not the serve this measures). */
async function scrape(collector: CollectorSubprocess): Promise<Omit<Sample, "atMs" | "sent">> {
  const text = await collector.metrics();
  const present = (value: number | null, name: string) => {
    if (value === null) throw new Error(`serve's /metrics has no ${name}`);
    return value;
  };
  const read = (name: string) => present(readSample(text, name), name);
  const found = readResidentParts(text);
  const parts = Object.fromEntries(Object.entries(found).map(([part, value]) => [part, present(value, residentParts[part as ResidentPart])])) as Record<ResidentPart, number>;
  return { rssBytes: read("ragscope_process_resident_memory_bytes"), heapBytes: read("ragscope_process_heap_used_bytes"), written: read("ragscope_traces_written_total"), parts };
}

function positiveNumber(options: BenchmarkOptions, name: string, fallback: number): number {
  const value = options[name] === undefined ? fallback : Number(options[name]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number, got ${options[name]}`);
  return value;
}

/** The samples of each third of the run, by time. */
function thirds(samples: readonly Sample[], durationMs: number): [Sample[], Sample[], Sample[]] {
  const third = durationMs / 3;
  return [samples.filter((sample) => sample.atMs < third), samples.filter((sample) => sample.atMs >= third && sample.atMs < 2 * third), samples.filter((sample) => sample.atMs >= 2 * third)];
}

function medianOf(samples: readonly Sample[], pick: (sample: Sample) => number): number {
  return samples.length === 0 ? Number.NaN : median(samples.map(pick));
}

export async function benchmark(options: BenchmarkOptions = {}): Promise<BenchmarkResult> {
  const minutes = positiveNumber(options, "minutes", 3);
  const rate = positiveNumber(options, "rate", 200);
  const request = options["repeated-chunks"] === undefined ? eightSpanRequestWithOwnChunks : eightSpanRequest;
  const durationMs = minutes * 60_000;
  const collector = await startCollectorSubprocess({ RAGSCOPE_QUIET_PERIOD_MS: DEFAULT_QUIET_PERIOD_MS, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_CONFIG: "" });
  const recorder = startSpanRecorder("policy-assistant", { attributeCountLimit: RAGSCOPE_ATTRIBUTE_COUNT_LIMIT });
  const samples: Sample[] = [];
  let sent = 0;
  let refused = 0;
  let cpuSeconds = 0;
  let written = 0;
  try {
    const cpuAtStart = await processCpuSeconds(collector.pid);
    const started = Date.now();
    let nextSample = started;
    while (Date.now() - started < durationMs) {
      const due = started + (sent / rate) * 1000;
      if (Date.now() < due) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
      for (let index = 0; index < TRACES_PER_REQUEST; index += 1) await request(sent + index);
      const spans: ReadableSpan[] = recorder.spans();
      recorder.reset();
      const body = toOtlpProtobuf(spans);
      for (;;) {
        const response = await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body });
        await response.arrayBuffer();
        if (response.status === 200) break;
        if (response.status !== 503 && response.status !== 429) throw new Error(`serve answered ${response.status}`);
        refused += 1;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      sent += TRACES_PER_REQUEST;
      if (Date.now() >= nextSample) {
        nextSample += SAMPLE_EVERY_MS;
        samples.push({ atMs: Date.now() - started, sent, ...(await scrape(collector)) });
      }
    }
    // Everything sent is written once the quiet period has passed.
    const drainDeadline = Date.now() + 60_000;
    while ((written = await collector.counter("ragscope_traces_written_total")) < sent && Date.now() < drainDeadline) await new Promise((resolve) => setTimeout(resolve, 250));
    cpuSeconds = (await processCpuSeconds(collector.pid)) - cpuAtStart;
  } catch (error) {
    await collector.stop();
    await collector.remove();
    throw error;
  } finally {
    await recorder.shutdown();
    await collector.stop();
  }
  const figures: BenchmarkFigure[] = [];
  try {
    const [first, middle, last] = thirds(samples, durationMs);
    const rss = (part: Sample[]) => megabytes(medianOf(part, (sample) => sample.rssBytes));
    const heap = (part: Sample[]) => megabytes(medianOf(part, (sample) => sample.heapBytes));
    const diskBytes = await folderBytes(collector.dataDir);
    figures.push(
      { name: "duration", value: minutes, unit: "min" },
      { name: "traces sent / written (8 spans each)", value: `${sent.toLocaleString("en-US")} / ${written.toLocaleString("en-US")}` },
      { name: "rate asked", value: rate * 8, unit: "spans/s" },
      { name: "requests refused (503/429, sent again)", value: refused },
      { name: "largest lag, traces sent − written (the quiet period alone holds rate × 2 s)", value: Math.max(0, ...samples.map((sample) => sample.sent - sample.written)) },
      { name: "serve CPU per span (user + system, all threads)", value: Math.round((cpuSeconds / (written * 8)) * 1e7) / 10, unit: "µs" },
      { name: "resident set, median of each third of the run", value: `${rss(first)} / ${rss(middle)} / ${rss(last)} MB` },
      { name: "resident set, last third ÷ middle third (a leak grows it with the run)", value: Math.round((medianOf(last, (sample) => sample.rssBytes) / medianOf(middle, (sample) => sample.rssBytes)) * 100) / 100 },
      { name: "peak resident set (5 s samples)", value: megabytes(Math.max(...samples.map((sample) => sample.rssBytes))), unit: "MB" },
      { name: "JavaScript heap in use, median of each third", value: `${heap(first)} / ${heap(middle)} / ${heap(last)} MB` },
      {
        // What /metrics tells apart; the rest is the allocator's (freed, not yet returned), thread stacks and node's own.
        name: "resident set by part, medians: heap held / Buffers / engine in use / mapped files (engine code) / rest",
        value: `${[...Object.keys(residentParts).map((part) => megabytes(medianOf(samples, (sample) => sample.parts[part as ResidentPart]))), megabytes(medianOf(samples, (sample) => sample.rssBytes - Object.values(sample.parts).reduce((total, value) => total + value, 0)))].join(" / ")} MB`,
      },
      { name: "JavaScript heap in use, last third ÷ middle third", value: Math.round((medianOf(last, (sample) => sample.heapBytes) / medianOf(middle, (sample) => sample.heapBytes)) * 100) / 100 },
      { name: "data folder on disk", value: megabytes(diskBytes), unit: "MB" },
      { name: "data folder a trace", value: Math.round(diskBytes / Math.max(1, written)), unit: "bytes" },
    );
    const store = await collector.openStore();
    try {
      const tables = await queryRows<{ table: string; bytes: string; rows: string }>(
        store,
        "SELECT table, sum(bytes_on_disk) AS bytes, sum(rows) AS rows FROM system.parts WHERE database = {database:String} AND active GROUP BY table ORDER BY sum(bytes_on_disk) DESC LIMIT 8",
        { database: store.database },
      );
      for (const table of tables) figures.push({ name: `  ${table.table}: bytes a trace on disk (compressed; rows a trace)`, value: `${Math.round(Number(table.bytes) / Math.max(1, written))} (${(Number(table.rows) / Math.max(1, written)).toFixed(1)})` });
    } finally {
      await store.close();
    }
  } finally {
    await collector.remove();
  }
  return { title: `Soak: ragscope serve at ${(rate * 8).toLocaleString("en-US")} spans/s for ${minutes} min, default settings`, figures };
}
