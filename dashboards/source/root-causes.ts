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
import { countsTowardReview, REVIEWERS_PER_CASE, ROOT_CAUSE_LABEL_METRIC } from "../../evaluators/reviewed-verdict.js";
import { ROOT_CAUSE_LABEL_NAMES } from "../../evaluators/root-cause/root-cause-labels.js";
import { COUNTED_REVIEWER, DID_NOT_COMPLETE, finalVerdictFrom } from "./aggregate-metrics.js";

export const ROOT_CAUSE_EVALUATOR = "root_cause";

/** The form of a root-cause label's name (root-cause-labels.ts): what the SQL below and its in-memory form match alike. */
const LABEL_NAME = "[A-Z][A-Z_]*";

/** The label at the start of a root-cause reason, e.g. `RETRIEVAL_MISS` of "RETRIEVAL_MISS: gold evidence not retrieved". */
export const ROOT_CAUSE_LABEL = `extract(reason, '^(${LABEL_NAME})')`;

/** An Evaluation Result that names a root-cause label. */
export const HAS_ROOT_CAUSE_LABEL = `evaluator_id = '${ROOT_CAUSE_EVALUATOR}' AND match(reason, '^${LABEL_NAME}:')`;

/**
 * Whether a root cause (attributedRootCauses' root_cause, null or '' for none) is none of the labels
 * (root-cause-labels.ts: the seed's 18 and the three execution error types): no cause at all, the evaluator's
 * UNATTRIBUTED (no step found one), or a name a newer evaluator wrote. A failing request with such a cause is one
 * "without a root-cause label": the Failures page counts it so, the trace list's root_cause=UNATTRIBUTED lists it, and
 * the Grafana Failures board counts it apart from the labels' bars (rootCauseLabelCondition).
 */
export function isUnlabelledRootCause(rootCause: string | null): boolean {
  return rootCause === null || !(ROOT_CAUSE_LABEL_NAMES as readonly string[]).includes(rootCause);
}

/** SQL: `column` holds one of the labels (isUnlabelledRootCause's complement). The names are the code's own constants ([A-Z_]), not input. */
export function rootCauseLabelCondition(column: string): string {
  return `${column} IN (${ROOT_CAUSE_LABEL_NAMES.map((label) => `'${label}'`).join(", ")})`;
}

/**
 * The columns of root_cause_rollups in the order rootCauseRollupSelect computes them (`failingRows`: with
 * failing_rows, migration 0038; a store before it has no column for it).
 */
export function rootCauseRollupColumns(failingRows = true): string[] {
  return ["minute", "tenant_id", "service_name", "dataset_id", "run_id", "root_cause", "failing_requests", ...(failingRows ? ["failing_rows"] : []), "version"];
}

/**
 * The SELECT computing root_cause_rollups rows: the failing requests (final verdict `failed`, FINAL_VERDICT's rule)
 * under their root cause as the web UI's Failures page counts them (attributedRootCauses: the reviewers' agreed one,
 * else the evaluator's). `causesWhere` restricts evaluation_results (its started_at is the request's start),
 * `requestsWhere` case_results; `{version:UInt64}` is a parameter. A request is a Case Result id's trace and start:
 * a case sent again (its id stored with another trace, start and service: a harness retrying after midnight UTC or
 * from a renamed service) is two failing requests, each under its own minute and service, as the trace list lists
 * them and request_rollups counts them, whatever minutes each refresh recomputed. Grouped by id alone, a refresh of
 * both minutes counted one request at the first start under the newest row's service, and a refresh of each minute
 * apart two. A request stored under two sorting keys (a partial trace's result beside the complete one: the same trace
 * and start) is one, attributed to its newest version's columns and verdict; the refresh recomputes every group that
 * holds a row of a request it reads (metric-rollups.ts), so the group its older row was counted under loses it.
 *
 * `failing_rows` (migration 0038, when `failingRows`) counts the Case Result rows of those requests whose own final
 * verdict is failed, each under its own row's tenant, service, dataset and run: what request_rollups' failed_verdicts
 * and the Failures page's total count (a row per sorting key, in its own group), so the Grafana board's "Without a
 * root-cause label" is the failing rows less the labelled requests' rows, in one unit and one grouping, as the page
 * counts it under any filter. Less the labelled requests instead, a labelled request stored twice left its second row
 * counted as one without a label; counted under the newest row's group, a board filtered to the newest row's tenant
 * subtracted the partial row too and read 0 or below. A request's partial row is then a rollup row of its own group
 * with failing_requests 0.
 *
 * The refresh runs it for every refreshed minute, so it reads each source once: the requests (their newest row's
 * automatic verdict and whether it completed), their reviews (the verdict's agreements and the cause in one read of
 * the labels of the requests meeting `requestsWhere`), the evaluator's causes; and decides the verdict after the
 * joins (attributedVerdict). Reading the reviews three times (twice for the verdict's agreements, FINAL_VERDICT's IN
 * sets, once for the cause), each scoped by its own set of the range's ids, cost ~35 % more CPU than this form
 * (test/bench/root-cause-rollup.bench.ts).
 */
export function rootCauseRollupSelect(database: string, causesWhere: string, requestsWhere: string, failingRows = true): string {
  const requests = [
    // Aliases apart from the column names: the WHERE names the columns. The newest row's verdict inputs as one
    // tuple, so both come from the same row, as FINAL_VERDICT computed on the newest row reads them.
    "SELECT case_result_id, trace_id AS request_trace, started_at AS request_started,",
    `       argMax((quality_status, ${DID_NOT_COMPLETE}), version) AS request_state,`,
    failingRows
      ? // Every row of the request (one per sorting key, after FINAL) with its own group and verdict inputs, and the newest version.
        `       max(version) AS request_newest, groupArray((tenant_id, service_name, dataset_id, run_id, version, quality_status, ${DID_NOT_COMPLETE})) AS request_rows`
      : "       argMax(tenant_id, version) AS request_tenant, argMax(service_name, version) AS request_service, argMax(dataset_id, version) AS request_dataset, argMax(run_id, version) AS request_run",
    `FROM ${database}.case_results FINAL WHERE ${requestsWhere}`,
    "GROUP BY case_result_id, trace_id, started_at",
  ].join("\n");
  const labelsWhere = requestsWhere === "1" ? "1" : `case_result_id IN (SELECT case_result_id FROM ${database}.case_results WHERE ${requestsWhere})`;
  // The groups the request is counted under: its rows' own (failing_rows, migration 0038), else its newest row's.
  const carried = ["request_trace", "request_started", "request_state", ...(failingRows ? ["request_newest", "request_rows"] : ["request_tenant", "request_service", "request_dataset", "request_run"])];
  const attributed = attributedRootCauses(requests, carried, causesWhere, { database, labelsWhere, request: { trace: "request_trace", started: "request_started" } });
  const failing = `${attributedVerdict("tupleElement(request_state, 1)", "tupleElement(request_state, 2)")} = 'failed' AND root_cause != ''`;
  if (!failingRows) {
    return [
      "SELECT toStartOfMinute(request_started) AS minute, request_tenant AS tenant_id, request_service AS service_name,",
      "       request_dataset AS dataset_id, request_run AS run_id, root_cause,",
      "       count() AS failing_requests,",
      "       {version:UInt64} AS version",
      `FROM (${attributed})`,
      `WHERE ${failing}`,
      "GROUP BY minute, tenant_id, service_name, dataset_id, run_id, root_cause",
    ].join("\n");
  }
  // Each row of a failing request under its own tenant, service, dataset and run, as request_rollups counts it: the
  // request once, under its newest row (failing_requests), and each row whose own final verdict is failed (the
  // request's reviews with the row's automatic verdict: failing_rows). Both rows of a request stored twice start in
  // the same minute. Under the newest row's group alone, a board filtered to a tenant subtracted the partial row's
  // count where request_rollups had none, and read 0 or below.
  const rowFailed = `${attributedVerdict("request_row.6", "request_row.7")} = 'failed'`;
  return [
    "SELECT toStartOfMinute(request_started) AS minute, request_row.1 AS tenant_id, request_row.2 AS service_name,",
    "       request_row.3 AS dataset_id, request_row.4 AS run_id, root_cause,",
    "       countIf(request_row.5 = request_newest) AS failing_requests,",
    `       countIf(${rowFailed}) AS failing_rows,`,
    "       {version:UInt64} AS version",
    `FROM (${attributed})`,
    "ARRAY JOIN request_rows AS request_row",
    `WHERE ${failing}`,
    "GROUP BY minute, tenant_id, service_name, dataset_id, run_id, root_cause",
    "HAVING failing_requests > 0 OR failing_rows > 0",
  ].join("\n");
}

/** A human_labels row that names a root cause (the label name in its note, ui/review/review-labels.ts). */
const REVIEWER_ROOT_CAUSE = `metric = '${ROOT_CAUSE_LABEL_METRIC}' AND match(note, '^${LABEL_NAME}$')`;

/**
 * Per request (case_result_id and trace_id: a label counts toward the request it names) with labels meeting
 * `labelsWhere` (a condition on `labels`, e.g. human_labels; "1" for all; never on trace_id: versions of one label may
 * name different requests, and FINAL must see them all), in one read of them: whether its reviewers agreed on a pass (`agreed_pass`) or a fail (`agreed_fail`) by the final verdict's rule
 * (aggregate-metrics.ts AGREED_PASS, AGREED_FAIL: REVIEWERS_PER_CASE or more reviewers labelled a metric other than
 * the root cause, a reviewer failing when they failed any), and the root cause they agreed on (`root_cause`, '' when
 * none: at least REVIEWERS_PER_CASE reviewers chose a root cause and every one of them chose the same; one reviewer
 * alone, or reviewers who chose different causes, decide nothing; the anonymous reviewer's labels count toward
 * neither, COUNTED_REVIEWER). A label's id is its (case_result_id, metric,
 * labeler_id), so after FINAL a reviewer has one root-cause row at most, and filtering by case before FINAL keeps
 * exactly the rows FINAL would keep for those cases. The one SQL form of the reviewers' decision: attributedRootCauses
 * joins it, the Grafana Failures board's "Failing cases" table too.
 */
export function caseReviews(labels = "human_labels", labelsWhere = "1"): string {
  return [
    "SELECT case_result_id, trace_id,",
    `       countIf(labelled) >= ${REVIEWERS_PER_CASE} AND maxIf(failed, labelled) = 0 AS agreed_pass,`,
    `       countIf(labelled) >= ${REVIEWERS_PER_CASE} AND minIf(failed, labelled) = 1 AS agreed_fail,`,
    `       if(countIf(cause != '') >= ${REVIEWERS_PER_CASE} AND uniqExactIf(cause, cause != '') = 1, anyIf(cause, cause != ''), '') AS root_cause`,
    `FROM (SELECT case_result_id, trace_id, labeler_id, countIf(metric != '${ROOT_CAUSE_LABEL_METRIC}') > 0 AS labelled,`,
    `             maxIf(verdict = 'fail', metric != '${ROOT_CAUSE_LABEL_METRIC}') AS failed, anyIf(note, ${REVIEWER_ROOT_CAUSE}) AS cause`,
    `      FROM ${labels} FINAL WHERE (${labelsWhere}) AND ${COUNTED_REVIEWER} GROUP BY case_result_id, trace_id, labeler_id)`,
    "GROUP BY case_result_id, trace_id",
  ].join(" ");
}

/**
 * The root-cause evaluator's label among the Evaluation Results meeting `causesWhere`, per request: its Case Result
 * id, trace and start, which every Evaluation Result is written with. The evaluator writes one result per Case Result
 * and evaluator version (its Evaluation Result id), and FINAL keeps one row of it per day, so any() has one row to
 * take unless a request was evaluated again by another version of the evaluator. Not per Case Result id: a case sent
 * again on another day keeps a cause per request, and any() of them picked one by the order the engine read them in.
 */
function automaticRootCauses(evaluationResults: string, causesWhere: string): string {
  const key = "case_result_id, trace_id, started_at";
  return `SELECT ${key}, any(${ROOT_CAUSE_LABEL}) AS root_cause FROM ${evaluationResults} FINAL WHERE ${HAS_ROOT_CAUSE_LABEL} AND (${causesWhere}) GROUP BY ${key}`;
}

/** Where attributedRootCauses reads: tables qualified with `database` ('' leaves them unqualified), reviews of the requests meeting `labelsWhere` only. */
export interface RootCauseSources {
  database?: string;
  labelsWhere?: string;
  /**
   * The columns of the requests' SELECT holding each request's trace id and start: the evaluator's cause is the one
   * written with that request (attributedRootCauseOf's rule), not any of its case id's. Reviews are of that request too
   * (a label counts toward the review of the request it names).
   */
  request: { trace: string; started: string };
}

/**
 * The root cause of each row of `requests` (a SELECT of case_result_id and the `carried` columns, e.g. a request's
 * start): the one its reviewers agreed on (caseReviews; a review is of a request: its case and trace id), else the root-cause
 * evaluator's label (the one written with that request, whose trace and start `sources.request` names, as
 * attributedRootCauseOf reads it), else '' (none); beside it the reviewers' agreements on the verdict (`agreed_pass`, `agreed_fail`, false without
 * reviews), from the same read of the reviews, for a statement that counts failing requests (attributedVerdict). Seed 004 §十 asks for one
 * primary root cause per failed case; the reviewers who decide a case's verdict decide its cause too, so a case
 * reviewers failed with a cause is attributed to it even when the evaluator gave none (it was review_required or
 * passed automatically). `causesWhere` restricts evaluation_results (e.g. to the range). The one SQL definition of a
 * request's root cause: the Failures page, the trace list, the root-cause rollups (so the dashboards and the report)
 * count it; attributedRootCauseOf below is its in-memory form (the store contract checks they agree,
 * test/integration/store/contracts/trace-reader-contract.ts). A case sent again the same day has one stored
 * root-cause result (evaluation_results is sorted by evaluator, day and Evaluation Result id): its newest request's,
 * so the earlier request has none of its own and is attributed none rather than another request's.
 */
export function attributedRootCauses(requests: string, carried: readonly string[], causesWhere: string, sources: RootCauseSources): string {
  const table = (name: string) => (sources.database === undefined || sources.database === "" ? name : `${sources.database}.${name}`);
  return [
    `SELECT requests.case_result_id AS case_result_id, ${carried.map((column) => `requests.${column} AS ${column}, `).join("")}`,
    "       reviews.agreed_pass AS agreed_pass, reviews.agreed_fail AS agreed_fail,",
    "       if(reviews.root_cause != '', reviews.root_cause, automatic.root_cause) AS root_cause",
    `FROM (${requests}) AS requests`,
    // join_use_nulls is off: a request without reviews reads false and '' there, without an evaluator's cause ''.
    `LEFT JOIN (${caseReviews(table("human_labels"), sources.labelsWhere)}) AS reviews ON reviews.case_result_id = requests.case_result_id AND reviews.trace_id = requests.${sources.request.trace}`,
    `LEFT JOIN (${automaticRootCauses(table("evaluation_results"), causesWhere)}) AS automatic`,
    `  ON automatic.case_result_id = requests.case_result_id AND automatic.trace_id = requests.${sources.request.trace} AND automatic.started_at = requests.${sources.request.started}`,
  ].join("\n");
}

/**
 * The final verdict (FINAL_VERDICT's rule) of a row of attributedRootCauses, from its reviewers' agreements and the
 * request's own automatic verdict and whether it completed (`automatic`, `didNotComplete`: SQL over its carried columns).
 */
export function attributedVerdict(automatic: string, didNotComplete: string): string {
  return finalVerdictFrom("agreed_pass", "agreed_fail", automatic, didNotComplete);
}

/**
 * One request's root cause by attributedRootCauses' rule, in memory: the in-memory store lists traces by it, and a
 * trace's page shows it beside the evaluator's from the labels it already read. The store contract
 * (test/integration/store/contracts/trace-reader-contract.ts) checks this and the SQL above give the same causes.
 */
export interface AttributedRootCause {
  /** The reviewers' agreed cause, else the evaluator's; null when neither gave one. */
  rootCause: string | null;
  /** The cause REVIEWERS_PER_CASE or more reviewers chose alike (caseReviews' root_cause); null otherwise. */
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

/** The cause one request's reviewers agreed on (caseReviews' root_cause) from its labels, each reviewer's newest as the store keeps it; null when none was agreed. */
export function reviewedRootCauseOf(labels: readonly Pick<HumanLabel, "metric" | "labeler_id" | "note">[]): string | null {
  const chosen = new Map<string, string>();
  for (const label of labels) if (label.metric === ROOT_CAUSE_LABEL_METRIC && REVIEWED_LABEL.test(label.note) && countsTowardReview(label)) chosen.set(label.labeler_id, label.note);
  const causes = new Set(chosen.values());
  return chosen.size >= REVIEWERS_PER_CASE && causes.size === 1 ? [...causes][0]! : null;
}

/** One request's root cause (attributedRootCauses) from its Evaluation Results and its human labels. */
export function attributedRootCauseOf(evaluationResults: readonly Pick<EvaluationResult, "evaluator_id" | "reason">[], labels: readonly Pick<HumanLabel, "metric" | "labeler_id" | "note">[]): AttributedRootCause {
  const reviewed = reviewedRootCauseOf(labels);
  const automatic = automaticRootCauseOf(evaluationResults);
  return { rootCause: reviewed ?? automatic, reviewed, automatic };
}
