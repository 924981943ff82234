/** RunLineageSink in memory: per run id and tenant, the latest record wins (migration 0027's key). */
import { runLineage, type RunLineage } from "../../contracts/run-lineage.js";
import { NO_TENANT, type RunLineageInput, type RunLineageSink } from "../ports/run-lineage-sink.js";
import { recordedRunKey, type MemoryTables } from "./memory-tables.js";
import { RowVersionClock } from "../row-version-clock.js";

export class MemoryRunLineageSink implements RunLineageSink {
  constructor(
    private readonly tables: MemoryTables,
    /** The store's row versions, as the ClickHouse adapter's (clickhouse-run-lineage-sink.ts says why). */
    private readonly versions: RowVersionClock = new RowVersionClock(),
  ) {}

  async record(lineage: RunLineageInput, tenantId: string = NO_TENANT): Promise<RunLineage> {
    const run = runLineage.parse(lineage);
    const version = this.versions.next();
    this.tables.runs.upsert(recordedRunKey(run.run_id, tenantId), { tenantId, lineage: structuredClone(run), version }, version);
    return run;
  }
}
