/**
 * What a benchmark file exports: `benchmark`, a function that measures and
 * returns its figures. The runner (run-benchmarks.ts) prints them. Benchmarks
 * are measurements, not tests: they assert nothing about speed.
 */
export interface BenchmarkFigure {
  name: string;
  value: number | string;
  unit?: string;
}

export interface BenchmarkResult {
  title: string;
  figures: BenchmarkFigure[];
}

export type Benchmark = () => BenchmarkResult | Promise<BenchmarkResult>;

export function megabytes(bytes: number): number {
  return Math.round((bytes / (1024 * 1024)) * 10) / 10;
}
