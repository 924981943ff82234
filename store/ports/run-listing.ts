/**
 * One row of the runs list (TraceReader.listRuns; the UI's /runs and
 * /api/runs): every run a reader's Case Results name, with its lineage when
 * one was recorded. `ragscope eval` with a dataset records lineage; a remote
 * eval (`ragscope eval --endpoint`) and an application tagged with a run id
 * through the SDK write Case Results only. Such a run is listed with what is
 * known of it — its id, start and number of cases — and `lineage: null`:
 * nothing is filled in for the versions it did not record.
 */
import type { RunLineage } from "../../contracts/run-lineage.js";

export interface RunListing {
  runId: string;
  /** ISO time: the lineage's started_at when recorded, else the run's earliest Case Result's started_at. */
  startedAt: string;
  /**
   * The run's cases this reader may see, as RunSummary.cases counts them: a replayed request once, and a case sent
   * again under the run (after midnight UTC, from a renamed service) once, by its newest request
   * (store/clickhouse/run-current-results.ts); 0 for a recorded run none of whose results are stored.
   */
  cases: number;
  /** What the run recorded (contracts/run-lineage.ts); null when it recorded none. */
  lineage: RunLineage | null;
}

/** Newest first: start descending, then run id descending (the order listRuns returns). */
export function compareRunsNewestFirst(first: { startedAtMs: number; runId: string }, second: { startedAtMs: number; runId: string }): number {
  if (first.startedAtMs !== second.startedAtMs) return second.startedAtMs - first.startedAtMs;
  return first.runId < second.runId ? 1 : first.runId > second.runId ? -1 : 0;
}
