/**
 * The ClickHouse sink's JavaScript work per trace: building the insert bodies
 * of a batch (prepareBatch and the four TabSeparated bodies of
 * store/clickhouse/tab-separated-batch.ts) for `--traces N` Case Results
 * (default 5,000; the UI benchmark's evaluated templates with their own ids,
 * 23 Evaluation Results and ~8 metric rows each). No engine: CPU time of this
 * thread's work only (process.cpuUsage; the measured part runs nothing else),
 * each body made flat as the engine's client would read it. Three rounds,
 * the last printed (the first warms the code up).
 *
 * Notes (2026-12-01, 2-core machine shared by several engineers; load average
 * given with each figure; before = main at 25c10e9):
 * - see the figures in the report of issue 13's row-builder change below.
 */
import { caseResultsBody, evaluationResultsBody, metricValuesBody, prepareBatch, traceSpansBody } from "../../store/clickhouse/tab-separated-batch.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import { templates, variant } from "./ui.bench.js";
import type { BenchmarkOptions, BenchmarkResult } from "./benchmark.js";
import os from "node:os";

const ROUNDS = 3;

/** Flattens a body as the engine's client does when it reads it (a rope's cost is paid there, so it is counted here). */
function flat(body: string): number {
  return Buffer.byteLength(body, "utf8");
}

export function benchmark(options: BenchmarkOptions = {}): BenchmarkResult {
  const traces = Number(options.traces ?? 5_000);
  if (!Number.isSafeInteger(traces) || traces < 1) throw new Error(`--traces ${options.traces}: give a whole number of at least 1`);
  const base = templates();
  const batch: CaseEvaluation[] = [];
  for (let index = 0; index < traces; index += 1) batch.push(variant(base[index % base.length]!, index));
  const microseconds = (usage: NodeJS.CpuUsage) => usage.user + usage.system;
  let figures: BenchmarkResult["figures"] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const start = process.cpuUsage();
    const prepared = prepareBatch(batch, () => "", 1_780_000_000_000);
    const afterPrepare = process.cpuUsage(start);
    const metrics = metricValuesBody(prepared);
    let bytes = flat(metrics.body);
    const afterMetrics = process.cpuUsage(start);
    bytes += flat(evaluationResultsBody(prepared));
    const afterResults = process.cpuUsage(start);
    bytes += flat(traceSpansBody(prepared)) + flat(caseResultsBody(prepared));
    const total = process.cpuUsage(start);
    const perTrace = (value: number) => Math.round((value / traces) * 10) / 10;
    figures = [
      { name: "traces in the batch", value: traces },
      { name: "prepare (payloads, token)", value: perTrace(microseconds(afterPrepare)), unit: "CPU µs/trace" },
      { name: "metric_values body", value: perTrace(microseconds(afterMetrics) - microseconds(afterPrepare)), unit: "CPU µs/trace" },
      { name: "evaluation_results body", value: perTrace(microseconds(afterResults) - microseconds(afterMetrics)), unit: "CPU µs/trace" },
      { name: "trace_spans and case_results bodies", value: perTrace(microseconds(total) - microseconds(afterResults)), unit: "CPU µs/trace" },
      { name: "row building in all", value: perTrace(microseconds(total)), unit: "CPU µs/trace" },
      { name: "body bytes", value: Math.round(bytes / traces), unit: "B/trace" },
      { name: "load average (1 min) at the end", value: Math.round(os.loadavg()[0]! * 10) / 10 },
    ];
  }
  return { title: "ClickHouse sink: building the insert bodies", figures };
}
