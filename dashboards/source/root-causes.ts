/**
 * The root-cause evaluator's labels as the Failures board counts them, and
 * root_cause_rollups (migration 0016): per minute × tenant × service ×
 * dataset × run × label, the failing requests (final verdict) under their
 * root cause: the one two reviewers agreed on, else the evaluator's. The root-cause
 * evaluator stores one Evaluation Result per failing case with evaluator_id
 * `root_cause` and a reason `<LABEL>: <explanation>` (seed 004 §十 labels);
 * evaluation_results carries no tenant, service, dataset or run, so each is
 * taken from the request's case_results row.
 */
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import type { HumanLabel } from "../../evaluators/judge/calibration/human-label.js";
import { REVIEWERS_PER_CASE, ROOT_CAUSE_LABEL_METRIC } from "../../evaluators/reviewed-verdict.js";
import { finalVerdictOfRequests } from "./aggregate-metrics.js";

export const ROOT_CAUSE_EVALUATOR = "root_cause";

/** The form of a root-cause label's name (root-cause-labels.ts): what the SQL below and its in-memory form match alike. */
const LABEL_NAME = "[A-Z][A-Z_]*";

/** The label at the start of a root-cause reason, e.g. `RETRIEVAL_MISS` of "RETRIEVAL_MISS: gold evidence not retrieved". */
export const ROOT_CAUSE_LABEL = `extract(reason, '^(${LABEL_NAME})')`;

/** An Evaluation Result that names a root-cause label. */
export const HAS_ROOT_CAUSE_LABEL = `evaluator_id = '${ROOT_CAUSE_EVALUATOR}' AND match(reason, '^${LABEL_NAME}:')`;

/** The columns of root_cause_rollups in the order rootCauseRollupSelect computes them. */
export const ROOT_CAUSE_ROLLUP_COLUMNS = ["minute", "tenant_id", "service_name", "dataset_id", "run_id", "root_cause", "failing_requests", "version"] as const;

/**
 * The SELECT computing root_cause_rollups rows: the failing requests (final verdict `failed`, FINAL_VERDICT's rule,
 * reading only their own reviews) under their root cause as the web UI's Failures page counts them
 * (attributedRootCauses: the reviewers' agreed one, else the evaluator's). `causesWhere` restricts
 * evaluation_results (its started_at is the request's start), `requestsWhere` case_results; `{version:UInt64}` is a
 * parameter. A request stored under two sorting keys (a partial trace's result beside the complete one) is
 * attributed to its newest version's columns and verdict.
 */
export function rootCauseRollupSelect(database: string, causesWhere: string, requestsWhere: string): string {
  const requests = [
    // Aliases apart from the column names: the WHERE names the columns.
    "SELECT case_result_id, min(started_at) AS request_started, argMax(tenant_id, version) AS request_tenant, argMax(service_name, version) AS request_service,",
    "       argMax(dataset_id, version) AS request_dataset, argMax(run_id, version) AS request_run, argMax(final_verdict, version) AS request_verdict",
    `FROM (SELECT case_result_id, started_at, tenant_id, service_name, dataset_id, run_id, version, ${finalVerdictOfRequests(database, requestsWhere)} AS final_verdict`,
    `      FROM ${database}.case_results FINAL WHERE ${requestsWhere})`,
    "GROUP BY case_result_id HAVING request_verdict = 'failed'",
  ].join("\n");
  const labelsWhere = requestsWhere === "1" ? "1" : `case_result_id IN (SELECT case_result_id FROM ${database}.case_results WHERE ${requestsWhere})`;
  return [
    "SELECT toStartOfMinute(request_started) AS minute, request_tenant AS tenant_id, request_service AS service_name,",
    "       request_dataset AS dataset_id, request_run AS run_id, root_cause,",
    "       count() AS failing_requests,",
    "       {version:UInt64} AS version",
    `FROM (${attributedRootCauses(requests, ["request_started", "request_tenant", "request_service", "request_dataset", "request_run"], causesWhere, { database, labelsWhere })})`,
    "WHERE root_cause != ''",
    "GROUP BY minute, tenant_id, service_name, dataset_id, run_id, root_cause",
  ].join("\n");
}

/**
 * Per case, the root cause its reviewers agreed on: the human_labels rows with metric `root_cause` (the label name
 * in their note, ui/review/review-labels.ts), by the final verdict's agreement rule (evaluators/reviewed-verdict.ts):
 * at least REVIEWERS_PER_CASE reviewers chose a root cause and every one of them chose the same. A label's id is its
 * (case_result_id, metric, labeler_id), so after FINAL count() is the number of reviewers. One reviewer alone, or
 * reviewers who chose different causes, decide nothing: the root-cause evaluator's label stays.
 */
export function reviewedRootCauses(labels = "human_labels", labelsWhere = "1"): string {
  return [
    `SELECT case_result_id, any(note) AS root_cause FROM ${labels} FINAL WHERE metric = '${ROOT_CAUSE_LABEL_METRIC}' AND match(note, '^${LABEL_NAME}$') AND (${labelsWhere})`,
    `GROUP BY case_result_id HAVING count() >= ${REVIEWERS_PER_CASE} AND uniqExact(note) = 1`,
  ].join(" ");
}

/** Where attributedRootCauses reads: tables qualified with `database` ('' leaves them unqualified), reviews of the requests meeting `labelsWhere` only. */
export interface RootCauseSources {
  database?: string;
  labelsWhere?: string;
}

/**
 * The root cause of each request of `requests` (a SELECT of case_result_id and the `carried` columns, e.g. the
 * failing ones): the one its reviewers agreed on (reviewedRootCauses), else the root-cause evaluator's label, else ''
 * (none). Seed 004 §十 asks for one primary root cause per failed case; the reviewers who decide a case's verdict
 * decide its cause too, so a case reviewers failed with a cause is attributed to it even when the evaluator gave none
 * (it was review_required or passed automatically). `causesWhere` restricts evaluation_results (e.g. to the range).
 * The one definition of a request's root cause the Failures page, the trace list, the dashboards and the report
 * count; attributedRootCauseOf below is its in-memory form.
 */
export function attributedRootCauses(requests: string, carried: readonly string[], causesWhere: string, sources: RootCauseSources = {}): string {
  const table = (name: string) => (sources.database === undefined || sources.database === "" ? name : `${sources.database}.${name}`);
  return [
    `SELECT requests.case_result_id AS case_result_id, ${carried.map((column) => `requests.${column} AS ${column}, `).join("")}`,
    "       if(reviewed.root_cause != '', reviewed.root_cause, automatic.root_cause) AS root_cause",
    `FROM (${requests}) AS requests`,
    // join_use_nulls is off: a request without a row on the right reads '' there.
    `LEFT JOIN (${reviewedRootCauses(table("human_labels"), sources.labelsWhere)}) AS reviewed ON reviewed.case_result_id = requests.case_result_id`,
    `LEFT JOIN (SELECT case_result_id, any(${ROOT_CAUSE_LABEL}) AS root_cause FROM ${table("evaluation_results")} FINAL WHERE ${HAS_ROOT_CAUSE_LABEL} AND (${causesWhere}) GROUP BY case_result_id) AS automatic`,
    "  ON automatic.case_result_id = requests.case_result_id",
  ].join("\n");
}

/**
 * One request's root cause by attributedRootCauses' rule, in memory: the in-memory store lists traces by it, and a
 * trace's page shows it beside the evaluator's from the labels it already read. The store contract
 * (test/integration/store/contracts/trace-reader-contract.ts) checks this and the SQL above give the same causes.
 */
export interface AttributedRootCause {
  /** The reviewers' agreed cause, else the evaluator's; null when neither gave one. */
  rootCause: string | null;
  /** The cause REVIEWERS_PER_CASE or more reviewers chose alike (reviewedRootCauses); null otherwise. */
  reviewed: string | null;
  /** The root-cause evaluator's label; null when it gave none. */
  automatic: string | null;
}

const AUTOMATIC_LABEL = new RegExp(`^(${LABEL_NAME}):`);
const REVIEWED_LABEL = new RegExp(`^${LABEL_NAME}$`);

/** The root-cause evaluator's label among one request's Evaluation Results (HAS_ROOT_CAUSE_LABEL, ROOT_CAUSE_LABEL); null when none names one. */
export function automaticRootCauseOf(evaluationResults: readonly Pick<EvaluationResult, "evaluator_id" | "reason">[]): string | null {
  for (const result of evaluationResults) {
    const label = result.evaluator_id === ROOT_CAUSE_EVALUATOR ? AUTOMATIC_LABEL.exec(result.reason)?.[1] : undefined;
    if (label !== undefined) return label;
  }
  return null;
}

/** The cause one request's reviewers agreed on (reviewedRootCauses) from its labels, each reviewer's newest as the store keeps it; null when none was agreed. */
export function reviewedRootCauseOf(labels: readonly Pick<HumanLabel, "metric" | "labeler_id" | "note">[]): string | null {
  const chosen = new Map<string, string>();
  for (const label of labels) if (label.metric === ROOT_CAUSE_LABEL_METRIC && REVIEWED_LABEL.test(label.note)) chosen.set(label.labeler_id, label.note);
  const causes = new Set(chosen.values());
  return chosen.size >= REVIEWERS_PER_CASE && causes.size === 1 ? [...causes][0]! : null;
}

/** One request's root cause (attributedRootCauses) from its Evaluation Results and its human labels. */
export function attributedRootCauseOf(evaluationResults: readonly Pick<EvaluationResult, "evaluator_id" | "reason">[], labels: readonly Pick<HumanLabel, "metric" | "labeler_id" | "note">[]): AttributedRootCause {
  const reviewed = reviewedRootCauseOf(labels);
  const automatic = automaticRootCauseOf(evaluationResults);
  return { rootCause: reviewed ?? automatic, reviewed, automatic };
}
