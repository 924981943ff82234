/** Where a run's lineage (contracts/run-lineage.ts) is recorded; the same run_id recorded again replaces the earlier record. */
import type { RunLineage } from "../../contracts/run-lineage.js";

export type RunLineageInput = Partial<RunLineage> & Pick<RunLineage, "run_id" | "started_at">;

export interface RunLineageSink {
  /** Validates the lineage, records it and returns it as recorded. */
  record(lineage: RunLineageInput): Promise<RunLineage>;
}
