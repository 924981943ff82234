/**
 * The web UI's reads of root causes (dashboards/source/root-causes.ts attributedRootCauses) over the store of
 * root-cause-rollup.bench.ts with reviews ("reviews within": 10 % of `--requests N` requests, default 4,000, reviewed
 * by two reviewers in five ways): the Failures page (ClickHouseQualityReader.failureBoard over the store's four
 * minutes), and the trace list under a root cause and the final verdict `failed` (ClickHouseTraceReader.listTraces,
 * 50 a page, the Failures page's link) for a cause reviewers agreed on (HALLUCINATION) and one the evaluator gave
 * (RETRIEVAL_MISS). Figures: per read, the median wall time and the median CPU of this process (the engine runs in it)
 * over `--rounds R` (default 15). `--baseline FOLDER` (copies of store/clickhouse/clickhouse-quality-reader.ts and
 * clickhouse-trace-reader.ts, with their imports pointed back at the tree) runs those readers too, alternating with the
 * current ones in each round, and checks both give the same answers.
 *
 * `npm run bench -- root-cause-readers --requests 4000 [--baseline test/probe-tmp/readers-before]`, the baseline made
 * from a commit's files with their imports pointed back at the tree (root-causes.ts beside them):
 *     mkdir -p test/probe-tmp/readers-before && cd test/probe-tmp/readers-before
 *     for file in store/clickhouse/clickhouse-quality-reader store/clickhouse/clickhouse-trace-reader dashboards/source/root-causes; do
 *       git show 7f3da68:$file.ts | sed -E 's#"\.\./\.\./dashboards/source/root-causes\.js"#"./root-causes.js"#; s#"\.\./\.\./#"../../../#;
 *         s#"\.\./ports/#"../../../store/ports/#; s#"\./aggregate-metrics\.js"#"../../../dashboards/source/aggregate-metrics.js"#;
 *         s#"\./(clickhouse-connection|tenant-filter|behaviour-fields|stored-case-contents|clickhouse-run-listing|clickhouse-evaluation-results-reader|final-within-partitions)\.js"#"../../../store/clickhouse/\1.js"#' > $(basename $file).ts
 *     done
 *
 * Notes (2026-12-05, 2 cores shared with other work, load 2–9; CPU is the steadier figure). Before (7f3da68) the
 * Failures page ran two statements: the failing rows' count, and the failing requests (FINAL_VERDICT: two IN sets over
 * the reviews) joined with the reviewers' agreed causes (the reviews a third time) and the evaluator's. After: one
 * statement, every row of the scope joined with its reviews read once (agreements and cause, root-causes.ts
 * caseReviews) and the evaluator's cause, the verdict decided after the joins, the total summed from the failing
 * requests' rows. The trace list's filter and column read the same reviews form in place of a root-cause-only one.
 * Medians, alternating, the same answers in every run:
 *     4,000 requests (31 rounds)   Failures page 39.6 → 22.1 ms of CPU; trace list, reviewers' cause 85.5 → 91.0,
 *                                  evaluator's cause 88.3 → 91.1
 *     20,000 requests (11 rounds)  Failures page 59.0 → 34.6; trace list 115.1 → 122.9 and 115.9 → 118.4
 * The Failures page takes ~41–45 % less; the trace list ~3–7 % more: its statements' reviews of the named requests
 * are read in two aggregation steps (per reviewer, then per case) where the cause alone took one (~1 ms a statement,
 * measured alone; one step with uniqExactIf for the agreements was no faster).
 *
 * Notes (2026-12-05, aa7f52f: the Failures page and the trace list's root-cause filter and column count requests, a
 * Case Result id's trace and start, each under the evaluator's cause written with it; 2 cores shared with other
 * work, load average 6–9, so only the figures of one run compare). A worktree of aa7f52f's successor (the checkout
 * held unfinished trace reader changes) with aa7f52f^'s three files as `--baseline` (made as above), alternating,
 * the same answers in every run. Median CPU of the process, before → after:
 *     4,000 requests (31 rounds)   Failures page 26.6 → 30.1 ms; trace list, reviewers' cause 108.8 → 124.0,
 *                                  evaluator's cause 110.3 → 127.4
 *     20,000 requests (21 rounds)  Failures page 35.5 → 42.6; trace list 143.9 → 154.4 and 148.9 → 162.8
 * The Failures page takes ~13–20 % more: its rows carry their trace, the failing requests are grouped by id, trace
 * and start, and the evaluator's causes grouped by and joined on the three (the rollup's cost,
 * root-cause-rollup.bench.ts). The trace list ~7–15 % more: its filter's check read each named id's requests again
 * from trace_list over the window, and every page's column attributes its 50 requests per request. Since, the check
 * takes the rows it checks as the requests (clickhouse-trace-reader.ts CHECKED_REQUESTS): against aa7f52f, 20,000
 * requests, 21 rounds, load 12–13: trace list 145.8 → 142.9 and 140.4 → 137.8 ms, the Failures page unchanged
 * (42.5 / 42.1); its larger effect shows at 2,000,000 traces (trace-list-filters.bench.ts).
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ClickHouseConnection } from "../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseQualityReader } from "../../store/clickhouse/clickhouse-quality-reader.js";
import { ClickHouseTraceReader } from "../../store/clickhouse/clickhouse-trace-reader.js";
import type { QualityReader } from "../../store/ports/quality-reader.js";
import type { TraceReader } from "../../store/ports/trace-reader.js";
import { median, wholeNumber, type BenchmarkOptions, type BenchmarkResult } from "./benchmark.js";
import { FIRST_MINUTE_MS, MINUTES, writeStore } from "./root-cause-rollup.bench.js";

type Readers = { quality: QualityReader; traces: TraceReader };
type ReaderModules = { ClickHouseQualityReader: new (connection: ClickHouseConnection) => QualityReader; ClickHouseTraceReader: new (connection: ClickHouseConnection) => TraceReader };

async function baselineReaders(folder: string): Promise<ReaderModules> {
  const load = async (file: string) => (await import(pathToFileURL(path.resolve(folder, file)).href)) as Partial<ReaderModules>;
  const { ClickHouseQualityReader: quality } = await load("clickhouse-quality-reader.ts");
  const { ClickHouseTraceReader: traces } = await load("clickhouse-trace-reader.ts");
  if (quality === undefined || traces === undefined) throw new Error(`--baseline ${folder}: give a folder with clickhouse-quality-reader.ts and clickhouse-trace-reader.ts exporting their readers`);
  return { ClickHouseQualityReader: quality, ClickHouseTraceReader: traces };
}

const rounded = (value: number) => Math.round(value * 10) / 10;

export async function benchmark(options: BenchmarkOptions): Promise<BenchmarkResult> {
  const requests = wholeNumber(options, "requests", 4_000, 10);
  const rounds = wholeNumber(options, "rounds", 15, 1);
  const range = { fromMs: FIRST_MINUTE_MS, toMs: FIRST_MINUTE_MS + MINUTES * 60_000 };
  const reads: Record<string, (readers: Readers) => Promise<unknown>> = {
    "Failures page": (readers) => readers.quality.failureBoard({ ...range, bucketSeconds: 60 }),
    "trace list, reviewers' cause": (readers) => readers.traces.listTraces({ rootCause: "HALLUCINATION", verdict: "failed", ...range }, { after: null, limit: 50 }),
    "trace list, evaluator's cause": (readers) => readers.traces.listTraces({ rootCause: "RETRIEVAL_MISS", verdict: "failed", ...range }, { after: null, limit: 50 }),
  };
  const store = await writeStore("reviews within", requests, undefined);
  const figures: BenchmarkResult["figures"] = [];
  try {
    const current: ReaderModules = { ClickHouseQualityReader, ClickHouseTraceReader };
    const modules: Record<string, ReaderModules> = { current, ...(options.baseline === undefined ? {} : { baseline: await baselineReaders(options.baseline) }) };
    const readers = Object.fromEntries(Object.entries(modules).map(([name, module]) => [name, { quality: new module.ClickHouseQualityReader(store.connection), traces: new module.ClickHouseTraceReader(store.connection) }]));
    for (const [readName, read] of Object.entries(reads)) {
      const times: Record<string, { wall: number[]; cpu: number[] }> = {};
      const answers: Record<string, string> = {};
      // One untimed run of each first (the engine's caches), then the rounds alternating which runs first.
      for (let round = -1; round < rounds; round += 1) {
        const order = Object.entries(readers);
        if (round % 2 === 1) order.reverse();
        for (const [name, subject] of order) {
          const cpu = process.cpuUsage();
          const started = process.hrtime.bigint();
          const answer = await read(subject);
          const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
          const used = process.cpuUsage(cpu);
          if (round < 0) {
            answers[name] = JSON.stringify(answer);
            continue;
          }
          const entry = (times[name] ??= { wall: [], cpu: [] });
          entry.wall.push(wallMs);
          entry.cpu.push((used.user + used.system) / 1000);
        }
      }
      figures.push({ name: `${readName}: answer bytes`, value: answers.current!.length });
      for (const [name, entry] of Object.entries(times)) {
        figures.push({ name: `  ${name}, median wall time`, value: rounded(median(entry.wall)), unit: "ms" });
        figures.push({ name: `  ${name}, median CPU of the process`, value: rounded(median(entry.cpu)), unit: "ms" });
      }
      if (answers.baseline !== undefined) figures.push({ name: "  same answer as the baseline", value: answers.current === answers.baseline ? "yes" : "NO" });
    }
  } finally {
    await store.cleanup();
  }
  return { title: `Root-cause reads of the web UI: ${requests.toLocaleString("en-US")} requests over ${MINUTES} minutes, 10 % reviewed, ${rounds} rounds`, figures };
}
