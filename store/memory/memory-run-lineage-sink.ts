/** RunLineageSink in memory: per run id and tenant, the latest record wins (migration 0027's key). */
import { runLineage, type RunLineage } from "../../contracts/run-lineage.js";
import { NO_TENANT, type RunLineageInput, type RunLineageSink } from "../ports/run-lineage-sink.js";
import { recordedRunKey, type MemoryTables } from "./memory-tables.js";

export class MemoryRunLineageSink implements RunLineageSink {
  constructor(
    private readonly tables: MemoryTables,
    private readonly now: () => number = Date.now,
  ) {}

  async record(lineage: RunLineageInput, tenantId: string = NO_TENANT): Promise<RunLineage> {
    const run = runLineage.parse(lineage);
    const recordedAt = this.now();
    this.tables.runs.upsert(recordedRunKey(run.run_id, tenantId), { tenantId, lineage: structuredClone(run), recordedAt }, recordedAt);
    return run;
  }
}
