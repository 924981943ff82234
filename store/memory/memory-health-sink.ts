/** HealthSink in memory: one row per (metric, instance, ts), the latest write winning. */
import { success, type Result } from "../../core/result.js";
import type { HealthRow, HealthSink } from "../ports/health-sink.js";
import type { SinkFailure } from "../ports/result-sink.js";

export class MemoryHealthSink implements HealthSink {
  private readonly stored = new Map<string, HealthRow>();

  async write(rows: readonly HealthRow[]): Promise<Result<void, SinkFailure>> {
    for (const row of rows) this.stored.set(`${row.metric}\u0000${row.instance}\u0000${Date.parse(row.ts)}`, { ...row });
    return success(undefined);
  }

  rows(): HealthRow[] {
    return [...this.stored.values()];
  }
}
