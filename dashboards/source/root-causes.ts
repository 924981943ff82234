/**
 * The root-cause evaluator's labels as the Failures board counts them, and
 * root_cause_rollups (migration 0016): per minute × tenant × service ×
 * dataset × run × label, the failing requests labelled. The root-cause
 * evaluator stores one Evaluation Result per failing case with evaluator_id
 * `root_cause` and a reason `<LABEL>: <explanation>` (seed 004 §十 labels);
 * evaluation_results carries no tenant, service, dataset or run, so each is
 * taken from the request's case_results row.
 */
export const ROOT_CAUSE_EVALUATOR = "root_cause";

/** The label at the start of a root-cause reason, e.g. `RETRIEVAL_MISS` of "RETRIEVAL_MISS: gold evidence not retrieved". */
export const ROOT_CAUSE_LABEL = "extract(reason, '^([A-Z][A-Z_]*)')";

/** An Evaluation Result that names a root-cause label. */
export const HAS_ROOT_CAUSE_LABEL = `evaluator_id = '${ROOT_CAUSE_EVALUATOR}' AND match(reason, '^[A-Z][A-Z_]*:')`;

/** The columns of root_cause_rollups in the order rootCauseRollupSelect computes them. */
export const ROOT_CAUSE_ROLLUP_COLUMNS = ["minute", "tenant_id", "service_name", "dataset_id", "run_id", "root_cause", "failing_requests", "version"] as const;

/**
 * The SELECT computing root_cause_rollups rows: `causesWhere` restricts evaluation_results (its started_at is the
 * request's start), `requestsWhere` case_results; `{version:UInt64}` is a parameter. A request stored under two
 * sorting keys (a partial trace's result beside the complete one) is attributed to its newest version's columns.
 */
export function rootCauseRollupSelect(database: string, causesWhere: string, requestsWhere: string): string {
  return [
    "SELECT toStartOfMinute(causes.started_at) AS minute, requests.request_tenant AS tenant_id, requests.request_service AS service_name,",
    "       requests.request_dataset AS dataset_id, requests.request_run AS run_id, causes.root_cause AS root_cause,",
    "       count() AS failing_requests,",
    "       {version:UInt64} AS version",
    `FROM (SELECT case_result_id, started_at, ${ROOT_CAUSE_LABEL} AS root_cause FROM ${database}.evaluation_results FINAL WHERE ${HAS_ROOT_CAUSE_LABEL} AND (${causesWhere})) AS causes`,
    // Aliases apart from the column names: the WHERE names the columns.
    "INNER JOIN (SELECT case_result_id, argMax(tenant_id, version) AS request_tenant, argMax(service_name, version) AS request_service,",
    "                   argMax(dataset_id, version) AS request_dataset, argMax(run_id, version) AS request_run",
    `            FROM ${database}.case_results FINAL WHERE ${requestsWhere} GROUP BY case_result_id) AS requests ON requests.case_result_id = causes.case_result_id`,
    "GROUP BY minute, tenant_id, service_name, dataset_id, run_id, root_cause",
  ].join("\n");
}
