/**
 * How fast the command line answers `--help`, `--version` and every
 * subcommand's `--help` (bin/ragscope.js on the compiled package, a new process
 * each time, as a user runs it). Each command loads its heavy modules (the
 * ClickHouse engine, kafkajs, the OpenTelemetry SDK) only when it runs, so
 * these answer without them. Prints the median and the slowest of several runs,
 * and a bare `node -e ""` start for comparison: what is left is ragscope's own.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchmarkResult } from "./benchmark.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const RUNS = 7;

function timeRuns(args: string[]): { median: number; slowest: number } {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { cwd: projectRoot, encoding: "utf8" });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (result.status !== 0) throw new Error(`${args.join(" ")} exited with ${result.status}: ${result.stderr}`);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(RUNS / 2)]!, slowest: times.at(-1)! };
}

export function benchmark(): BenchmarkResult {
  const commands = ["validate", "demo", "serve", "gate", "report", "receive", "evaluate", "collect"];
  const node = timeRuns(["-e", ""]);
  const figures = [
    { name: "node -e '' (process start, for comparison), median", value: Math.round(node.median), unit: "ms" },
    ...[["--help"], ["--version"], ...commands.map((command) => [command, "--help"])].flatMap((args) => {
      const measured = timeRuns([ragscope, ...args]);
      return [{ name: `ragscope ${args.join(" ")}: median / slowest of ${RUNS}`, value: `${Math.round(measured.median)} / ${Math.round(measured.slowest)}`, unit: "ms" }];
    }),
  ];
  return { title: "CLI start-up: help and version without loading the engines", figures };
}
