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
 * written last (the highest row version, then the latest insert): its trace
 * id and start, which every table a run is read from carries (the Evaluation
 * Results and metric values of a request are written with its start,
 * tab-separated-batch.ts). Written as a condition on the run's rows, with the
 * run id as the query parameter `runId`.
 */

/** The rows of one run: the run id as the query parameter `runId` (RunReader). */
export const ONE_RUN = "run_id = {runId:String}";

/**
 * `(case_result_id, trace_id, <start>) IN (…)`: true for the rows of the newest request of each case of the runs
 * `runs` selects (a condition on case_results' run_id: ONE_RUN, or a list for the runs list and the Runs board).
 * `database`: quoted, or null for a dashboard's unqualified `case_results` (report/qualify-tables.ts adds the
 * database, and the report's tenant restriction wraps it: clickhouse-dashboard-queries.ts). `start`: the table's
 * column for the request's start (`ts` in metric_values). `caseResultsScope`: the reader's tenant condition on
 * case_results (tenant-filter.ts).
 */
export function currentRunRows(database: string | null, caseResultsScope: string, start: "started_at" | "ts" = "started_at", runs: string = ONE_RUN): string {
  const caseResults = database === null ? "case_results" : `${database}.case_results`;
  return (
    `(case_result_id, trace_id, ${start}) IN (SELECT case_result_id, newest.1, newest.2 FROM ` +
    `(SELECT case_result_id, argMax((trace_id, started_at), (version, inserted_at)) AS newest FROM ${caseResults} FINAL ` +
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
