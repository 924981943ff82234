/**
 * Whose data a reader may see. Every read port a reader is handed (the web
 * UI's per token, `report`, `gate` and `eval` per `--tenant`) is built for one
 * scope, and the store applies it inside each query, so no caller can forget
 * it: a reader scoped to tenant A never receives B's traces, counts, run ids
 * or metric values, whatever ids or filters it asks for.
 *
 * "all" is the operator (a single-tenant deployment, or the CLI without
 * --tenant); a list is those tenants only (an empty list sees nothing).
 */
import type { ExperimentReader } from "./experiment-reader.js";
import type { HumanLabelStore } from "./human-label-store.js";
import type { QualityReader } from "./quality-reader.js";
import type { RunReader } from "./run-reader.js";
import type { TraceReader } from "./trace-reader.js";

export type TenantScope = "all" | readonly string[];

/** The read ports for one scope. Labels are written through it too, so a reader can only label what it can see. */
export interface ScopedReaders {
  readonly scope: TenantScope;
  reader: RunReader;
  traces: TraceReader;
  humanLabels: HumanLabelStore;
  /** The Quality and Failures boards (stores that can compute them). */
  quality?: QualityReader;
  /** Online experiments' requests and metric values (the Experiments page, `ragscope experiment report`). */
  experiments: ExperimentReader;
}

export function describeScope(scope: TenantScope): string {
  return scope === "all" ? "all tenants" : scope.length === 0 ? "no tenant" : `tenant ${scope.map((tenant) => `"${tenant}"`).join(", ")}`;
}

export function scopeAdmits(scope: TenantScope, tenantId: string | null | undefined): boolean {
  return scope === "all" || scope.includes(tenantId ?? "");
}

/** Labels were offered for case results the reader's scope does not admit (or that are not stored); nothing was saved. */
export class OutOfScopeError extends Error {
  constructor(readonly count: number) {
    super(`${count} label(s) name case results that are not stored or not readable with this token; nothing was saved`);
    this.name = "OutOfScopeError";
  }
}
