/**
 * The runs list (store/ports/run-listing.ts) on ClickHouse: the recorded runs
 * (`runs`, lineage) and every run id the Case Results carry, newest first by
 * the run's start, at most `limit`.
 *
 * Where the run ids come from. Grouping case_results (or its copy trace_list)
 * by run_id reads every stored request: the run_id column of all of them,
 * and the start and id of every request that carries a run id. An
 * application tagged with a run id through the SDK may carry one on most of
 * its traffic, so that grows with the store, on every visit of /runs.
 * request_rollups (migration 0014) already holds, per minute × tenant ×
 * service × dataset × run × experiment variant, the requests of each run. So
 * the runs and their first minute are read from the rollup rows that carry a
 * run id (each key's newest version by argMax: FINAL would merge the whole
 * table, untagged minutes too, before the run_id condition), and only the
 * listed runs' exact starts from trace_list, on the days of their first
 * minutes (exactStarts). Measured on chDB, 10,000,000 Case Results over 60
 * days, half of them in 4,000 runs (4,324,000 rollup rows): the rollups and
 * exact starts of a list of 500 in ~100 ms (rollups ~40 ms, exact starts
 * ~50 ms), where GROUP BY run_id took 0.5–2.6 s over trace_list and ~2 s over
 * case_results FINAL (at 2,000,000: ~50–70 against 70–190 and 130–300 ms).
 *
 * The listed runs' cases are not the rollups' requests: a case sent again
 * under the same run after midnight UTC, or from a renamed service, is two
 * requests there (the rows of two sorting keys) and one case of the run. They
 * are counted from case_results for the listed runs only, by RunReader's rule
 * (run-current-results.ts currentCaseCounts: casesOf), so /runs says what
 * `gate` and the run's summary say; that reads the case_result_id of the
 * listed runs' rows (their run_id skip index), so it grows with the cases of
 * the runs shown, not with the store: ~75–135 ms for 500 runs of 200,000
 * Case Results on chDB, beside the ~130–340 ms the rest of the list took.
 *
 * The price of the rollups: they follow the writes within the rollup refresh
 * (clickhouse.rollupRefreshMs, 5 s by default, and when the writing store
 * closes: metric-rollups.ts), as every dashboard does. A run without lineage
 * whose results were written in the last seconds is listed after that
 * refresh; a recorded run is listed at once, with its cases. Rollup rows have a
 * retention of their own (from when they were written, migration 0020): one
 * that outlives the requests it counted lists its run with its first minute
 * as the start, which is all that is left to know.
 *
 * Exactness of the limit: a run without lineage starts within its first
 * rollup minute [minute, minute + 1 min). Of those runs, the `limit` with the
 * newest first minute, and every run tied with the last of them (LIMIT …
 * WITH TIES), hold every run that can be among the newest `limit`: a run
 * whose first minute is older starts before all of them. With the `limit`
 * newest recorded runs, merged and cut to `limit` after the exact starts are
 * known, the list is the one sorting every run would give.
 */
import { TupleParam } from "@clickhouse/client";
import { runLineage, type RunLineage } from "../../contracts/run-lineage.js";
import { compareRunsNewestFirst, type RunListing } from "../ports/run-listing.js";
import type { TenantFilter } from "./tenant-filter.js";
import { RUN_RECORD_READ_ORDER } from "./run-record-read-order.js";
import { currentCaseCounts } from "./run-current-results.js";
import { WRITE_ORDER } from "./newest-row.js";

const MINUTE_MS = 60_000;

type Rows = <Row>(query: string, parameters: Record<string, unknown>) => Promise<Row[]>;

/** request_rollups' sorting key: a key's rows are one minute's count, its newest version the current one. */
const ROLLUP_KEY = "tenant_id, service_name, minute, dataset_id, run_id, experiment_id, experiment_variant";

/**
 * `database` is quoted already; `rows` runs a query with the tenant scope's parameters added (the reader's).
 */
export async function listRunsOnClickHouse(database: string, tenants: TenantFilter, rows: Rows, limit: number): Promise<RunListing[]> {
  if (limit <= 0) return [];
  // The rollup rows of runs, each key's newest count (the one FINAL keeps: newest-row.ts); `where` selects the runs.
  const rollupCounts = (where: string) =>
    `SELECT run_id, minute, argMax(all_requests, ${WRITE_ORDER}) AS requests FROM ${database}.request_rollups
     WHERE run_id != '' AND ${where} AND ${tenants.on("request_rollups")} GROUP BY ${ROLLUP_KEY}`;
  // The lineage this reader may read (its tenants' records, tenant-filter.ts); a run id several of them recorded is
  // listed once, with the record RunReader.readRun reads (RUN_RECORD_READ_ORDER).
  const recorded = await rows<{ read_payload: string; started_at_ms: string | number }>(
    `SELECT argMax(payload, ${RUN_RECORD_READ_ORDER}) AS read_payload, toUnixTimestamp64Milli(argMax(started_at, ${RUN_RECORD_READ_ORDER})) AS started_at_ms
     FROM ${database}.runs FINAL WHERE ${tenants.on("runs")} GROUP BY run_id
     ORDER BY started_at_ms DESC, run_id DESC LIMIT {limit:UInt32}`,
    { limit },
  );
  // The runs without lineage whose first minute is among the newest (see above), with that minute (their cases are
  // counted once the list is cut: casesOf). A run whose only lineage is another tenant's (or has no tenant) is one
  // without lineage for this reader.
  const unrecorded = await rows<{ run_id: string; first_minute_ms: string | number }>(
    `SELECT run_id, toUnixTimestamp(min(minute)) * 1000 AS first_minute_ms
     FROM (${rollupCounts(`run_id NOT IN (SELECT run_id FROM ${database}.runs WHERE ${tenants.on("runs")})`)})
     GROUP BY run_id ORDER BY first_minute_ms DESC LIMIT {limit:UInt32} WITH TIES`,
    { limit },
  );
  const starts = await exactStarts(database, tenants, rows, unrecorded.map((row) => ({ runId: row.run_id, firstMinuteMs: Number(row.first_minute_ms) })));
  const listed: (RunListing & { startedAtMs: number })[] = [];
  for (const row of recorded) {
    const lineage: RunLineage = runLineage.parse(JSON.parse(row.read_payload));
    const startedAtMs = Number(row.started_at_ms);
    listed.push({ runId: lineage.run_id, startedAt: new Date(startedAtMs).toISOString(), startedAtMs, cases: 0, lineage });
  }
  for (const row of unrecorded) {
    // Its rows of that minute are gone from trace_list only when they expired or moved since the refresh: the minute is what is known.
    const startedAtMs = starts.get(row.run_id) ?? Number(row.first_minute_ms);
    listed.push({ runId: row.run_id, startedAt: new Date(startedAtMs).toISOString(), startedAtMs, cases: 0, lineage: null });
  }
  const newest = listed.sort(compareRunsNewestFirst).slice(0, limit);
  const cases = await casesOf(database, tenants, rows, newest.map((run) => run.runId));
  return newest.map(({ startedAtMs: _startedAtMs, ...run }) => ({ ...run, cases: cases.get(run.runId) ?? 0 }));
}

/**
 * Each listed run's cases as RunReader counts them (RunSummary.cases): a case once, by its newest request
 * (run-current-results.ts currentCaseCounts) — a case sent again after midnight UTC or from a renamed service is one
 * case, where the rollups count each request. Read for the listed runs only (at most `limit`); the run_id skip index
 * (migration 0007) passes over the granules of other runs and of untagged traffic.
 */
async function casesOf(database: string, tenants: TenantFilter, rows: Rows, runIds: readonly string[]): Promise<Map<string, number>> {
  if (runIds.length === 0) return new Map();
  const counted = await rows<{ run_id: string; cases: string | number }>(currentCaseCounts(database, tenants.on("case_results"), "run_id IN {ids:Array(String)}"), { ids: runIds });
  return new Map(counted.map((row) => [row.run_id, Number(row.cases)]));
}

/**
 * Each run's earliest started_at in trace_list within its first minute. trace_list is sorted by the day first: the
 * days of the runs' first minutes, as a set on the sorting key's own expression, select those days' granules of each
 * part (EXPLAIN: "toDate(started_at) in N-element set"); the run ids are checked first (PREWHERE), then each row's
 * run and minute against the runs' first ones (a set lookup). ORing a started_at range per run instead cost ~0.4 s
 * for 500 runs at 2,000,000 rows, this ~25–50 ms. Every stored version counts (no FINAL, which would merge those
 * whole days): the versions of a Case Result share its start, which is its trace's.
 */
async function exactStarts(database: string, tenants: TenantFilter, rows: Rows, runs: readonly { runId: string; firstMinuteMs: number }[]): Promise<Map<string, number>> {
  if (runs.length === 0) return new Map();
  const days = [...new Set(runs.map((run) => new Date(run.firstMinuteMs).toISOString().slice(0, 10)))];
  const firstMinutes = runs.map((run) => new TupleParam([run.runId, run.firstMinuteMs / MINUTE_MS]));
  const found = await rows<{ run_id: string; started_at_ms: string | number }>(
    `SELECT run_id, toUnixTimestamp64Milli(min(started_at)) AS started_at_ms FROM ${database}.trace_list
     PREWHERE run_id IN {ids:Array(String)}
     WHERE toDate(started_at) IN {days:Array(Date)} AND (run_id, intDiv(toUnixTimestamp64Milli(started_at), ${MINUTE_MS})) IN {firstMinutes:Array(Tuple(String, Int64))}
       AND ${tenants.on("trace_list")}
     GROUP BY run_id`,
    { ids: runs.map((run) => run.runId), days, firstMinutes },
  );
  return new Map(found.map((row) => [row.run_id, Number(row.started_at_ms)]));
}
