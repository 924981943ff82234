/**
 * Where a run's lineage (contracts/run-lineage.ts) is recorded, per tenant: the same run_id recorded again by the
 * same tenant replaces that tenant's earlier record, never another tenant's (two tenants may use one run id).
 */
import type { RunLineage } from "../../contracts/run-lineage.js";

export type RunLineageInput = Partial<RunLineage> & Pick<RunLineage, "run_id" | "started_at">;

/** The tenant of a run recorded without one (`ragscope eval` without --tenant, the demo, every run stored before migration 0027): only readers of every tenant read it. */
export const NO_TENANT = "";

export interface RunLineageSink {
  /**
   * Validates the lineage, records it as `tenantId`'s run and returns it as recorded. A reader limited to some
   * tenants reads only the runs recorded as one of them (store/ports/tenant-scope.ts); NO_TENANT's only a reader of
   * every tenant.
   */
  record(lineage: RunLineageInput, tenantId?: string): Promise<RunLineage>;
}
