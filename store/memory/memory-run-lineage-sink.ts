/** RunLineageSink in memory: the latest record of a run_id wins. */
import { runLineage, type RunLineage } from "../../contracts/run-lineage.js";
import type { RunLineageInput, RunLineageSink } from "../ports/run-lineage-sink.js";
import type { MemoryTables } from "./memory-tables.js";

export class MemoryRunLineageSink implements RunLineageSink {
  constructor(
    private readonly tables: MemoryTables,
    private readonly now: () => number = Date.now,
  ) {}

  async record(lineage: RunLineageInput): Promise<RunLineage> {
    const run = runLineage.parse(lineage);
    this.tables.runs.upsert(run.run_id, structuredClone(run), this.now());
    return run;
  }
}
