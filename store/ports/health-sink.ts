/**
 * Where the collector's periodic health snapshots go (the Collector health
 * dashboard reads them): one row per (instance, metric) per snapshot, counters
 * as `delta` (increase since the previous snapshot), levels as `gauge`.
 * Writing the same snapshot twice (same instance and `ts`) keeps one copy.
 */
import type { Result } from "../../core/result.js";
import type { SinkFailure } from "./result-sink.js";

export interface HealthRow {
  /** ISO 8601 time of the snapshot. */
  ts: string;
  instance: string;
  role: string;
  metric: string;
  kind: "delta" | "gauge";
  value: number;
}

export interface HealthSink {
  write(rows: readonly HealthRow[]): Promise<Result<void, SinkFailure>>;
}
