/**
 * The benchmark entry point (`npm run bench [-- filter …]`).
 *
 * Runs every `test/bench/*.bench.ts` — or, for each argument, the benchmark
 * of exactly that name (`eval` → eval.bench.ts) when there is one, else those
 * whose file name contains it — one after the other, each through its exported
 * `benchmark` function, and prints the figures it returns. `--name value`
 * after the names is handed to the benchmarks as options (e.g.
 * `npm run bench -- ui --traces 1000000`); an option without a value is a
 * flag, given as "true" (`--repeated-chunks`). Several benchmarks
 * run each in a process of its own, so that one's heap, JIT state or open
 * sockets never show in another's figures.
 */
import { spawn } from "node:child_process";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Benchmark, BenchmarkOptions, BenchmarkResult } from "./benchmark.js";

const benchRoot = path.dirname(fileURLToPath(import.meta.url));

function print(file: string, result: BenchmarkResult, seconds: number): void {
  console.log(`\n${result.title}  (${file}, ${seconds.toFixed(1)} s)`);
  const width = Math.max(...result.figures.map((figure) => figure.name.length));
  for (const figure of result.figures) {
    const value = typeof figure.value === "number" ? figure.value.toLocaleString("en-US", { maximumFractionDigits: 4 }) : figure.value;
    console.log(`  ${figure.name.padEnd(width)}  ${value}${figure.unit ? ` ${figure.unit}` : ""}`);
  }
}

/** Names to select benchmarks by, and `--name value` options; an option without a value is a flag with the value "true". */
function parseArguments(argv: readonly string[]): { filters: string[]; options: Record<string, string>; optionArguments: string[] } | string {
  const filters: string[] = [];
  const options: Record<string, string> = {};
  const optionArguments: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    if (!argument.startsWith("--")) {
      filters.push(argument);
      continue;
    }
    const value = argv[index + 1];
    // A flag: the last argument, or one followed by another option (`-- embedded-serve --repeated-chunks`); its value is "true".
    if (value === undefined || value.startsWith("--")) {
      options[argument.slice(2)] = "true";
      optionArguments.push(argument);
      continue;
    }
    options[argument.slice(2)] = value;
    optionArguments.push(argument, value);
    index += 1;
  }
  return { filters, options, optionArguments };
}

async function main(): Promise<number> {
  const parsed = parseArguments(process.argv.slice(2));
  if (typeof parsed === "string") {
    console.error(parsed);
    return 1;
  }
  const { filters, options, optionArguments } = parsed;
  const files = (await readdir(benchRoot)).filter((name) => name.endsWith(".bench.ts")).sort();
  // An exact name wins over substrings: `bench -- eval` is eval.bench.ts, not also kafka-evaluate.bench.ts.
  const matches = (filter: string) => (files.includes(`${filter}.bench.ts`) ? [`${filter}.bench.ts`] : files.filter((name) => name.includes(filter)));
  const selected = filters.length === 0 ? files : [...new Set(filters.flatMap(matches))].sort();
  if (selected.length === 0) {
    console.error(`no benchmark matches ${filters.join(" ")} (have: ${files.join(", ")})`);
    return 1;
  }
  let failed = 0;
  if (selected.length > 1) {
    for (const file of selected) {
      const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), file], { stdio: "inherit" });
      const code = await new Promise<number>((resolve) => child.on("exit", (exit) => resolve(exit ?? 1)));
      if (code !== 0) failed += 1;
    }
    return failed === 0 ? 0 : 1;
  }
  for (const file of selected) {
    const module = (await import(pathToFileURL(path.join(benchRoot, file)).href)) as { benchmark?: Benchmark };
    if (typeof module.benchmark !== "function") {
      console.error(`${file} does not export a benchmark function`);
      failed += 1;
      continue;
    }
    const started = process.hrtime.bigint();
    try {
      const result = await module.benchmark(options as BenchmarkOptions);
      print(file, result, Number(process.hrtime.bigint() - started) / 1e9);
    } catch (error) {
      console.error(`${file} failed:`, error);
      failed += 1;
    }
  }
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
