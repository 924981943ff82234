/**
 * The ClickHouse sink's JavaScript work per trace: building the insert bodies
 * of a batch (batchBodies: the four TabSeparated bodies of
 * store/clickhouse/tab-separated-batch.ts and the token, in one pass) for `--traces N` Case Results
 * (default 5,000; the UI benchmark's evaluated templates with their own ids,
 * 23 Evaluation Results and ~8 metric rows each). No engine: CPU time of this
 * thread's work only (process.cpuUsage; the measured part runs nothing else),
 * each body made flat as the engine's client would read it. Three rounds,
 * the last printed (the first warms the code up).
 *
 * `--previous DIR` also runs an earlier implementation in the same process,
 * rounds alternating, and prints both medians and their ratio (CPU figures
 * of one run on a shared machine compare; single figures drift with its load):
 *
 *     mkdir /tmp/previous-sink && for f in tab-separated-batch tab-separated result-rows; do
 *       git show 25c10e9:store/clickhouse/$f.ts > /tmp/previous-sink/$f.ts; done
 *     npm run bench -- sink-rows --traces 20000 --previous /tmp/previous-sink
 *
 * Notes (2026-12-01, 2-core machine shared by several engineers, load average
 * 8–12 throughout, so single figures move by ±30 %; before = main at 25c10e9):
 * - Before (this benchmark at 25c10e9): 618 µs/trace at 5,000 traces (prepare
 *   168, evaluation_results body 367), 810 µs/trace at 20,000 (prepare 210,
 *   evaluation_results body 522). --cpu-prof of the builder: garbage
 *   collection 33 %, JSON.stringify of the payloads (prepareBatch) 17 %,
 *   joinLines 15 % (one join of every line of the batch: hundreds of thousands
 *   of concatenation trees kept alive through every collection until then),
 *   the field escape pattern and its replace callbacks ~10 %, the token's hash
 *   with a copy of every payload (`replace` to blank evaluated_at) 3–4 %.
 * - Changed: lines joined into flat ~64 K-character pieces as they are built;
 *   payload documents (JSON.stringify output, no raw control characters)
 *   escaped by one scan for a backslash; metric names, evaluator ids and
 *   versions, outcomes and error types encoded once (bounded cache); the
 *   token hashed with one update per case, evaluated_at blanked by slicing.
 *   Every byte written is unchanged (test/integration/sink/recorded-insert-bodies.test.ts).
 * - Old and new in one process, rounds alternating, CPU µs/trace of row
 *   building: 5,000 traces, 6 rounds each, load 7.9: median 674 → 396 (1.7×);
 *   20,000 traces, 3 rounds each, load 6.2: 772 → 450 (1.7×); with
 *   --previous at 5,000 traces, load 4.5–5.1: 612 → 301 (2.0×). Absolute,
 *   this run: 358 µs/trace (prepare 151, evaluation_results body 168).
 * - After, --cpu-prof: JSON.stringify of the payloads (prepareBatch) 32 %,
 *   garbage collection 27 %, joining pieces 11 %, escapes 5 %, hash 4 %. The
 *   serialisation is the floor: the payload columns hold those documents.
 * - The whole sink write (ClickHouseSink.write of 5,000-trace batches into
 *   embedded chDB, process CPU with the engine, 4 writes each, old and new
 *   runs interleaved, load 9–11): old 1,208–1,437 µs/trace (339–423
 *   traces/s), new 975–1,148 µs/trace (528–1,002 traces/s).
 */
import { batchBodies } from "../../store/clickhouse/tab-separated-batch.js";
import path from "node:path";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import { templates, variant } from "./ui.bench.js";
import { median, type BenchmarkOptions, type BenchmarkResult } from "./benchmark.js";
import os from "node:os";

const ROUNDS = 3;

/** A body's size in bytes; an earlier implementation (--previous) gave a string, whose flattening is counted here as the engine's client paid it. */
function flat(body: string | Buffer): number {
  return typeof body === "string" ? Buffer.byteLength(body, "utf8") : body.length;
}

/** A builder module: this one (batchBodies), or one from before it (prepareBatch, then a function per body). */
interface Builder {
  batchBodies?: typeof batchBodies;
  prepareBatch?: (batch: readonly CaseEvaluation[], datasetOf: () => string, clockMs: number) => unknown;
  metricValuesBody?: (prepared: unknown) => { body: string | Buffer };
  evaluationResultsBody?: (prepared: unknown) => string | Buffer;
  traceSpansBody?: (prepared: unknown) => string | Buffer;
  caseResultsBody?: (prepared: unknown) => string | Buffer;
}

/** Every body of the batch with `builder`; their bytes. */
function bodyBytes(builder: Builder, batch: readonly CaseEvaluation[]): number {
  if (builder.batchBodies) {
    const bodies = builder.batchBodies(batch, () => "", 1_780_000_000_000);
    return bodies.metricValues.length + bodies.evaluationResults.length + bodies.traceSpans.length + bodies.caseResults.length;
  }
  const prepared = builder.prepareBatch!(batch, () => "", 1_780_000_000_000);
  return flat(builder.metricValuesBody!(prepared).body) + flat(builder.evaluationResultsBody!(prepared)) + flat(builder.traceSpansBody!(prepared)) + flat(builder.caseResultsBody!(prepared));
}

/** CPU µs per trace of building every body of the batch with `builder`. */
function buildAll(builder: Builder, batch: readonly CaseEvaluation[]): number {
  const start = process.cpuUsage();
  const bytes = bodyBytes(builder, batch);
  const used = process.cpuUsage(start);
  if (bytes === 0) throw new Error("the bodies are empty");
  return (used.user + used.system) / batch.length;
}


export async function benchmark(options: BenchmarkOptions = {}): Promise<BenchmarkResult> {
  const traces = Number(options.traces ?? 5_000);
  if (!Number.isSafeInteger(traces) || traces < 1) throw new Error(`--traces ${options.traces}: give a whole number of at least 1`);
  const base = templates();
  const batch: CaseEvaluation[] = [];
  for (let index = 0; index < traces; index += 1) batch.push(variant(base[index % base.length]!, index));
  const microseconds = (usage: NodeJS.CpuUsage) => usage.user + usage.system;
  let figures: BenchmarkResult["figures"] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const start = process.cpuUsage();
    const bodies = batchBodies(batch, () => "", 1_780_000_000_000);
    const total = process.cpuUsage(start);
    const bytes = bodies.metricValues.length + bodies.evaluationResults.length + bodies.traceSpans.length + bodies.caseResults.length;
    const perTrace = (value: number) => Math.round((value / traces) * 10) / 10;
    figures = [
      { name: "traces in the batch", value: traces },
      { name: "every body and the token, one pass", value: perTrace(microseconds(total)), unit: "CPU µs/trace" },
      { name: "body bytes", value: Math.round(bytes / traces), unit: "B/trace" },
      { name: "load average (1 min) at the end", value: Math.round(os.loadavg()[0]! * 10) / 10 },
    ];
  }
  if (options.previous !== undefined) {
    const previous = (await import(path.resolve(options.previous, "tab-separated-batch.ts"))) as Builder;
    const current = await import("../../store/clickhouse/tab-separated-batch.js");
    const times = { previous: [] as number[], current: [] as number[] };
    for (let round = 0; round < 2 * ROUNDS; round += 1) {
      times.previous.push(buildAll(previous, batch));
      times.current.push(buildAll(current, batch));
    }
    const rounded = (value: number) => Math.round(value * 10) / 10;
    figures.push(
      { name: `previous (${options.previous}), median of ${2 * ROUNDS}`, value: rounded(median(times.previous)), unit: "CPU µs/trace" },
      { name: `current, median of ${2 * ROUNDS}, rounds alternating`, value: rounded(median(times.current)), unit: "CPU µs/trace" },
      { name: "previous / current", value: rounded(median(times.previous) / median(times.current)) },
      { name: "load average (1 min) after the comparison", value: Math.round(os.loadavg()[0]! * 10) / 10 },
    );
  }
  return { title: "ClickHouse sink: building the insert bodies", figures };
}
