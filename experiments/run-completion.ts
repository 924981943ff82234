/**
 * Whether a stored run is whole: `ragscope eval` records its lineage's
 * `completion` (contracts/run-lineage.ts) as "running" before its first case
 * and as "complete" or "interrupted" at its end. A run stopped by a signal,
 * or one whose eval ended before recording its end (killed, still running),
 * holds only some of its planned cases; a decision over its cases would be
 * one over a different dataset, so the release gate does not make one.
 */
import type { RunLineage } from "../contracts/run-lineage.js";

/**
 * Why the run cannot be gated, in one line; null when it can (complete, or recorded by a writer that does not say).
 * `storedCases`: the run's Case Results the reader sees now (a running run has not recorded its count).
 */
export function unfinishedRunProblem(runId: string, lineage: RunLineage | null, storedCases: number): string | null {
  const completion = lineage?.completion ?? null;
  if (completion === null || completion.status === "complete") return null;
  if (completion.status === "interrupted") {
    return `run ${runId} was interrupted: ${completion.stored_cases ?? storedCases} of ${completion.planned_cases} cases stored; a gate decides on a whole run — run the dataset again under a new run id (ragscope eval without --run-id picks one)`;
  }
  return `run ${runId} has not finished: its eval is still running, or ended without recording its end (killed); ${storedCases} of ${completion.planned_cases} cases stored — gate it once its eval has ended, or run the dataset again under a new run id`;
}
