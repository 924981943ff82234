/**
 * What a benchmark file exports: `benchmark`, a function that measures and
 * returns its figures. The runner (run-benchmarks.ts) prints them. Benchmarks
 * are measurements, not tests: they assert nothing about speed.
 */
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { readSample } from "../../collector/wiring/observe/metrics-registry.js";

export interface BenchmarkFigure {
  name: string;
  value: number | string;
  unit?: string;
}

export interface BenchmarkResult {
  title: string;
  figures: BenchmarkFigure[];
}

/** Options given after the benchmark names: `npm run bench -- ui --traces 1000000` gives the ui benchmark `{ traces: "1000000" }`. */
export type BenchmarkOptions = Readonly<Record<string, string>>;

export type Benchmark = (options: BenchmarkOptions) => BenchmarkResult | Promise<BenchmarkResult>;

export function megabytes(bytes: number): number {
  return Math.round((bytes / (1024 * 1024)) * 10) / 10;
}

/** The whole number of option `--name` (at least `least`), `fallback` when not given; a clear error otherwise. */
export function wholeNumber(options: BenchmarkOptions, name: string, fallback: number, least: number): number {
  const text = options[name] ?? String(fallback);
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < least) throw new Error(`--${name} ${text}: give a whole number of at least ${least}, e.g. --${name} ${fallback}`);
  return value;
}

/** The median of figures from rounds of a measurement (the upper one of an even count). */
export function median(values: readonly number[]): number {
  return [...values].sort((first, second) => first - second)[Math.floor(values.length / 2)]!;
}

/**
 * The parts of serve's resident set its /metrics tells apart: the JavaScript heap V8 holds, Buffers outside it,
 * the embedded engine's working memory and the pages mapped from files (the engine's code).
 */
export const residentParts = {
  heapHeld: "ragscope_process_heap_total_bytes",
  buffers: "ragscope_process_external_bytes",
  engine: "ragscope_engine_memory_bytes",
  files: "ragscope_process_resident_file_bytes",
} as const;
export type ResidentPart = keyof typeof residentParts;

/** Each resident part's value in one scrape of /metrics; null where the scrape has no sample. */
export function readResidentParts(metricsText: string): Record<ResidentPart, number | null> {
  return Object.fromEntries(Object.entries(residentParts).map(([part, name]) => [part, readSample(metricsText, name)])) as Record<ResidentPart, number | null>;
}

/** Bytes of the files under a folder (a store's data folder). */
export async function folderBytes(folder: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    // A background merge may remove its temporary files between the listing and the stat: they count as gone.
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
}
