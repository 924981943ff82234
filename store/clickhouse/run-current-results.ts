/**
 * Which stored rows are a run's results now. A case of a run has one
 * case_result_id (contracts/ids.ts: run, case and case version), so a case
 * sent again under the same run replaces the earlier result — but the tables
 * sort a result by its request's tenant, service and day and partition it by
 * month (migration 0007), and FINAL collapses only rows of the same sorting
 * key. A harness retrying a case after midnight UTC, or from a renamed
 * service, left both requests' rows: the gate, the report and the runs page
 * counted the case twice, each evaluation twice, and could read the verdict
 * of the earlier request.
 *
 * The run's current rows are, per case_result_id, those of the request
 * written last (the highest row version, then of one version the request
 * the trace list shows first: NEWEST_REQUEST_ORDER,
 * newest-row.ts, as readTrace opens an id and the in-memory store picks): its trace
 * id and start, which every table a run is read from carries (the Evaluation
 * Results and metric values of a request are written with its start,
 * tab-separated-batch.ts), and where the table carries them, its tenant and
 * service. A result rebuilt from a partial trace that named no tenant, at the
 * same start as its complete result, is a row of another sorting key with the
 * same trace and start: by those alone both rows were the newest request's,
 * and the gate, the report and the run's summary counted the case twice
 * (the runs list, which counts ids, once). Evaluation Results carry no tenant,
 * and need none: their sorting key (evaluator, day, id) keeps one row of the
 * two. Written as a condition on the run's rows, with the run id as the query
 * parameter `runId`.
 */
import { NEWEST_REQUEST_ORDER } from "./newest-row.js";

/** The rows of one run: the run id as the query parameter `runId` (RunReader). */
export const ONE_RUN = "run_id = {runId:String}";

/** The tables a run is read from, each by the columns it has of its request (above). */
export type RunTable = "case_results" | "evaluation_results" | "metric_values";

/**
 * `(case_result_id, trace_id, <start>[, tenant_id, service_name]) IN (…)`: true for the rows of `table` of the newest
 * request of each case of the runs `runs` selects (a condition on case_results' run_id: ONE_RUN, or a list for the
 * runs list and the Runs board). `database`: quoted, or null for a dashboard's unqualified `case_results`
 * (report/qualify-tables.ts adds the database, and the report's tenant restriction wraps it:
 * clickhouse-dashboard-queries.ts). `caseResultsScope`: the reader's tenant condition on case_results (tenant-filter.ts).
 */
export function currentRunRows(database: string | null, caseResultsScope: string, table: RunTable = "case_results", runs: string = ONE_RUN): string {
  const caseResults = database === null ? "case_results" : `${database}.case_results`;
  // metric_values names the request's start `ts`; it and case_results carry the tenant and service in their sorting keys.
  const start = table === "metric_values" ? "ts" : "started_at";
  const request = table === "evaluation_results" ? `(case_result_id, trace_id, ${start})` : `(case_result_id, trace_id, ${start}, tenant_id, service_name)`;
  const newest = table === "evaluation_results" ? "newest.1, newest.2" : "newest.1, newest.2, newest.3, newest.4";
  return (
    `${request} IN (SELECT case_result_id, ${newest} FROM ` +
    `(SELECT case_result_id, argMax((trace_id, started_at, tenant_id, service_name), ${NEWEST_REQUEST_ORDER}) AS newest FROM ${caseResults} FINAL ` +
    `WHERE ${runs} AND ${caseResultsScope} GROUP BY case_result_id))`
  );
}

/**
 * `SELECT run_id, cases …`: how many cases each run `runs` selects has by the rule above, for the runs list. The
 * rule keeps exactly one request of each case_result_id, so a run's cases are its distinct case_result_ids in the
 * reader's scope: counted from the ids alone, without FINAL and without finding each case's newest request (which
 * reading a case's rows needs, counting it does not). Measured on chDB, 200,000 Case Results in 500 runs, one in
 * twenty sent twice: ~75–135 ms for the 500 runs, where counting the rows currentRunRows selects took ~450–800 ms.
 */
export function currentCaseCounts(database: string, caseResultsScope: string, runs: string): string {
  return `SELECT run_id, uniqExact(case_result_id) AS cases FROM ${database}.case_results WHERE ${runs} AND ${caseResultsScope} GROUP BY run_id`;
}
