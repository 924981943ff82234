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

/**
 * `(case_result_id, trace_id, <start>) IN (…)`: true for the rows of the run's newest request of each case.
 * `start`: the table's column for the request's start (`ts` in metric_values). `caseResultsScope`: the reader's
 * tenant condition on case_results (tenant-filter.ts).
 */
export function currentRunRows(database: string, caseResultsScope: string, start: "started_at" | "ts" = "started_at"): string {
  return (
    `(case_result_id, trace_id, ${start}) IN (SELECT case_result_id, newest.1, newest.2 FROM ` +
    `(SELECT case_result_id, argMax((trace_id, started_at), (version, inserted_at)) AS newest FROM ${database}.case_results FINAL ` +
    `WHERE run_id = {runId:String} AND ${caseResultsScope} GROUP BY case_result_id))`
  );
}
