/** The runs list (store/ports/run-listing.ts) over the in-memory tables: the recorded runs and every run id the Case Results carry. */
import { compareRunsNewestFirst, type RunListing } from "../ports/run-listing.js";
import { readRecords, type MemoryTables } from "./memory-tables.js";

export function listedRuns(tables: MemoryTables, limit: number): RunListing[] {
  // Each run's Case Results (one row per id, as FINAL keeps them): how many, and the earliest start.
  const results = new Map<string, { cases: number; firstMs: number }>();
  for (const caseResult of tables.caseResults.values()) {
    if (caseResult.run_id === "") continue;
    const startedAtMs = Date.parse(caseResult.started_at);
    const seen = results.get(caseResult.run_id);
    if (seen === undefined) results.set(caseResult.run_id, { cases: 1, firstMs: startedAtMs });
    else results.set(caseResult.run_id, { cases: seen.cases + 1, firstMs: Math.min(seen.firstMs, startedAtMs) });
  }
  const listed = new Map<string, RunListing & { startedAtMs: number }>();
  // This store reads every tenant: a run id several tenants recorded is listed once, with the record readRun reads.
  for (const { lineage } of readRecords(tables.runs.values()).values()) {
    const startedAtMs = Date.parse(lineage.started_at);
    listed.set(lineage.run_id, { runId: lineage.run_id, startedAt: new Date(startedAtMs).toISOString(), startedAtMs, cases: results.get(lineage.run_id)?.cases ?? 0, lineage });
  }
  for (const [runId, { cases, firstMs }] of results) {
    if (!listed.has(runId)) listed.set(runId, { runId, startedAt: new Date(firstMs).toISOString(), startedAtMs: firstMs, cases, lineage: null });
  }
  return structuredClone(
    [...listed.values()]
      .sort(compareRunsNewestFirst)
      .slice(0, limit)
      .map(({ startedAtMs: _startedAtMs, ...run }) => run),
  );
}
