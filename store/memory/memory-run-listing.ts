/** The runs list (store/ports/run-listing.ts) over the in-memory tables: the recorded runs and every run id the Case Results carry. */
import { compareRunsNewestFirst, type RunListing } from "../ports/run-listing.js";
import { readRecords, type MemoryTables } from "./memory-tables.js";

export function listedRuns(tables: MemoryTables, limit: number): RunListing[] {
  // Each run's cases — its distinct Case Result ids, a case sent again once (RunReader's rule, as the ClickHouse
  // list counts them: run-current-results.ts currentCaseCounts) — and the earliest start of its requests.
  const byRun = new Map<string, { ids: Set<string>; firstMs: number }>();
  for (const caseResult of tables.caseResults.values()) {
    if (caseResult.run_id === "") continue;
    const startedAtMs = Date.parse(caseResult.started_at);
    const seen = byRun.get(caseResult.run_id) ?? { ids: new Set<string>(), firstMs: startedAtMs };
    seen.ids.add(caseResult.case_result_id);
    byRun.set(caseResult.run_id, { ids: seen.ids, firstMs: Math.min(seen.firstMs, startedAtMs) });
  }
  const results = new Map([...byRun].map(([runId, { ids, firstMs }]) => [runId, { cases: ids.size, firstMs }]));
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
