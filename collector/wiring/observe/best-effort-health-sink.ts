/**
 * Health snapshots that never stop a role: the receiver (`ragscope receive`)
 * is stateless and must start and run whether the ClickHouse server is up,
 * migrated or reachable with its password. Its snapshots go through this
 * sink: a failed write (or one that throws) is counted
 * (`ragscope_health_snapshot_failures_total`) and logged once until writes
 * succeed again; HealthSnapshots carries the counters' increase over to the
 * next snapshot, so the write is retried with nothing lost.
 */
import { failure, type Result } from "../../../core/result.js";
import type { HealthRow, HealthSink } from "../../../store/ports/health-sink.js";
import type { SinkFailure } from "../../../store/ports/result-sink.js";
import type { MetricsRegistry } from "./metrics-registry.js";

export interface BestEffortHealthSinkOptions {
  /** Where the snapshots go, for the log lines ("ClickHouse server http://clickhouse:8123, database ragscope"). */
  destination: string;
  /** How often a snapshot is written, ms, for the log lines. */
  intervalMs: number;
  log: (line: string) => void;
}

export class BestEffortHealthSink implements HealthSink {
  readonly counters = { written: 0, failed: 0 };
  private failingSince: number | null = null;

  constructor(
    private readonly sink: HealthSink,
    private readonly options: BestEffortHealthSinkOptions,
  ) {}

  async write(rows: readonly HealthRow[]): Promise<Result<void, SinkFailure>> {
    let written: Result<void, SinkFailure>;
    try {
      written = await this.sink.write(rows);
    } catch (error) {
      written = failure({ retriable: true, message: `writing collector health failed: ${error instanceof Error ? error.message : String(error)}` });
    }
    if (written.ok) {
      if (this.failingSince !== null) this.options.log(`health snapshots are written to ${this.options.destination} again, after ${this.counters.failed - this.failingSince} failed`);
      this.failingSince = null;
      this.counters.written += 1;
      return written;
    }
    if (this.failingSince === null) {
      this.failingSince = this.counters.failed;
      this.options.log(
        `health snapshot not written to ${this.options.destination} (${written.error.message.split("\n")[0]}); ` +
          `this role runs on without it, and the next snapshot${this.options.intervalMs > 0 ? ` (every ${Math.round(this.options.intervalMs / 1000)} s)` : ""} carries its counts over; ` +
          `failures are counted in ragscope_health_snapshot_failures_total and this is said again only once writes succeed`,
      );
    }
    this.counters.failed += 1;
    return written;
  }
}

/** The sink's failures on /metrics, by role. */
export function registerHealthSinkMetrics(registry: MetricsRegistry, sink: BestEffortHealthSink, role: string): void {
  const samples = () => [{ labels: { role }, value: sink.counters.failed }];
  if (registry.has("ragscope_health_snapshot_failures_total")) registry.extend("ragscope_health_snapshot_failures_total", samples);
  else registry.counter("ragscope_health_snapshot_failures_total", "health snapshots (collector_health) that could not be written; each is retried with the next, its counts carried over", samples);
}
