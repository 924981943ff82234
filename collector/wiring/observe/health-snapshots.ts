/**
 * Periodic snapshots of the collector's own health into the store's
 * HealthSink (ClickHouse: `collector_health`, migration 0002), for the Collector health dashboard:
 * counters as the increase since the previous snapshot (kind `delta`, so a
 * restart never yields a negative rate), levels as gauges (kind `gauge`).
 * A failed snapshot is counted and skipped: the next one carries the
 * accumulated increase, so nothing is lost and nothing stalls the collector.
 */
import type { HealthRow, HealthSink } from "../../../store/ports/health-sink.js";

export interface HealthReading {
  /** Monotonic counters (totals since start), by dashboard metric name. */
  counters: Record<string, number>;
  /** Levels at the time of reading. */
  gauges: Record<string, number>;
}

export interface HealthSnapshotOptions {
  sink: HealthSink;
  instance: string;
  role: string;
  read: () => HealthReading;
  intervalMs: number;
  now?: () => number;
}

export class HealthSnapshots {
  private previous: Record<string, number> = {};
  private timer: NodeJS.Timeout | null = null;
  private pending: Promise<void> = Promise.resolve();
  readonly counters = { snapshots: 0, failures: 0 };

  constructor(private readonly options: HealthSnapshotOptions) {}

  start(): void {
    if (this.timer !== null || this.options.intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.pending = this.pending.then(async () => {
        await this.snapshot();
      });
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** Writes one snapshot now; resolves false when the insert failed (counted). */
  async snapshot(): Promise<boolean> {
    const reading = this.options.read();
    const ts = new Date((this.options.now ?? Date.now)()).toISOString();
    const base = { ts, instance: this.options.instance, role: this.options.role };
    const rows: HealthRow[] = [
      ...Object.entries(reading.counters).map(([metric, total]) => ({ ...base, metric, kind: "delta" as const, value: Math.max(0, total - (this.previous[metric] ?? 0)) })),
      ...Object.entries(reading.gauges).map(([metric, value]) => ({ ...base, metric, kind: "gauge" as const, value: Number.isFinite(value) ? value : 0 })),
    ];
    const written = await this.options.sink.write(rows);
    if (!written.ok) {
      this.counters.failures += 1;
      return false;
    }
    this.previous = { ...reading.counters };
    this.counters.snapshots += 1;
    return true;
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.pending;
    await this.snapshot();
  }
}
