/**
 * Failures — why requests fail. The root-cause evaluator stores one
 * Evaluation Result per failing case with evaluator_id `root_cause` and a
 * reason `<LABEL>: <explanation>` (seed 004 §十 labels: RETRIEVAL_MISS,
 * HALLUCINATION, …). This board shows the labels over time, their totals, the
 * failure rate, the failing cases, the review queue (requests that need
 * review: heuristic signals or evaluator errors, not verdicts), and one
 * trace's stages and evaluations (the cases tables link to it). The root
 * causes read root_cause_rollups and the failure rate request_rollups
 * (migrations 0016, 0014): a range reads per-minute rows, not every request;
 * the cases tables and the trace's panels are the drill-down, on raw rows.
 */
import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import { FINAL_VERDICT, SOURCES } from "./aggregate-metrics.js";
import { dashboardShell } from "./dashboard-shell.js";
import { barChartPanel, row, statPanel, tablePanel, timeSeriesPanel } from "./panel-builders.js";
import { dashboardScope, variableValue } from "./sql-scope.js";
import { filterVariables, traceVariable } from "./variables.js";
import { caseReviews, ROOT_CAUSE_EVALUATOR, ROOT_CAUSE_LABEL, rootCauseLabelCondition } from "./root-causes.js";

export { ROOT_CAUSE_EVALUATOR, ROOT_CAUSE_LABEL } from "./root-causes.js";

export const FAILURES_UID = "ragscope-failures";

/**
 * Failing requests per root-cause label in the dashboard's scope, per minute: root_cause_rollups (migration 0016),
 * the labelled Evaluation Results counted with their request's tenant, service, dataset and run.
 */
const ROOT_CAUSES = `SELECT minute, root_cause, failing_requests, failing_rows FROM root_cause_rollups FINAL WHERE ${dashboardScope("minute")}`;

/**
 * The labels' rows of ROOT_CAUSES. The rollups also hold the failing requests under a name that is no label — the
 * evaluator's UNATTRIBUTED (no step found a cause), a newer evaluator's name — and none of those without any cause;
 * drawn among the labels, UNATTRIBUTED read as one of them, and the failures without a cause were nowhere. The web UI's
 * Failures page charts the labels and counts every other failing request "without a root-cause label", and so does
 * this board (WITHOUT_ROOT_CAUSE_LABEL).
 */
const LABELLED_ROOT_CAUSES = `SELECT minute, root_cause, failing_requests, failing_rows FROM (${ROOT_CAUSES}) WHERE ${rootCauseLabelCondition("root_cause")}`;

/**
 * The failing requests no label explains, over the range, as the Failures page's "without a root-cause label": the
 * failing rows (request_rollups' final verdicts, what the failure rate and the page's total count: a row per sorting
 * key) less the failing rows of the requests under a label (root_cause_rollups' failing_rows, migration 0038), in the
 * page's unit. A request stored twice (a partial trace's result beside the complete one, the same trace and start) is
 * two failing rows of one labelled request: less its one request, its second row counted here, where the page counts
 * it under its label alone. Rollups only: a 30-day range reads no Case Result (test/bench/dashboard-scale.bench.ts).
 */
const WITHOUT_ROOT_CAUSE_LABEL = [
  `SELECT failing.requests - labelled.requests AS "Failing requests"`,
  `FROM (SELECT sum(failed_verdicts) AS requests FROM ${SOURCES.request_rollups.from(dashboardScope, [])}) AS failing`,
  `CROSS JOIN (SELECT sum(failing_rows) AS requests FROM (${LABELLED_ROOT_CAUSES})) AS labelled`,
].join("\n");

/** How many requests the cases tables list, newest first. */
const LATEST = 500;

/**
 * The start of the minute from which on the range holds at least LATEST requests with a request_rollups count
 * (failed_verdicts, review_required_verdicts), counted backwards from the range's end; 1970 when it holds fewer. The
 * cases tables read the raw rows from there on only, so a 30-day range reads the granules of its latest failures,
 * not every request of the month. The newest LATEST such requests all start after it: the count includes only
 * minutes wholly inside the range (a minute that crosses its end may hold requests after it) and never more than the
 * raw rows hold, except for a verdict changed since the last rollup refresh (at most clickhouse.rollupRefreshMs
 * ago), which can leave out the oldest of the LATEST until that refresh. Their Evaluation Results carry the
 * request's start (started_at), so the joined evaluations are read from there on too.
 */
function latestMinute(count: "failed_verdicts" | "review_required_verdicts"): string {
  return (
    `(SELECT maxIf(minute, newer >= ${LATEST}) FROM (SELECT minute, sum(sum(${count})) OVER (ORDER BY minute DESC) AS newer ` +
    `FROM request_rollups FINAL WHERE ${dashboardScope("minute")} AND $__timeTo(addSeconds(minute, 60)) GROUP BY minute))`
  );
}

export function failuresDashboard(): dashboard.DashboardBuilder {
  let builder = dashboardShell(FAILURES_UID, "ragscope — Failures", "Root causes of failing requests over time, the failing cases with their primary label and reason, and the stages of one trace.");
  for (const variable of filterVariables()) builder = builder.withVariable(variable);
  builder = builder.withVariable(traceVariable());

  builder = builder
    .withRow(row("Root causes"))
    .withPanel(
      timeSeriesPanel(
        "Root causes over time",
        "Failing requests per primary root-cause label (the seed's 18 labels: RETRIEVAL_MISS, HALLUCINATION, …, and the execution errors SYSTEM_ERROR, TIMEOUT, ENVIRONMENT_ERROR) and time bucket. A failing request without a label (UNATTRIBUTED: no step found a cause, or none recorded) is no bar: it is counted apart, in the panel \"Without a root-cause label\".",
        [`SELECT $__timeInterval(minute) AS time, root_cause AS series, sum(failing_requests) AS Value`, `FROM (${LABELLED_ROOT_CAUSES})`, "GROUP BY time, series", "ORDER BY time"].join("\n"),
        "short",
        { width: 16, height: 9 },
        { seriesColumn: "series", bars: true, stacked: true },
      ),
    )
    .withPanel(
      barChartPanel(
        "Root causes",
        "Failing requests per primary root-cause label over the range. A failing request without a label (UNATTRIBUTED: no step found a cause, or none recorded) is no bar: it is counted apart, in the panel \"Without a root-cause label\".",
        [`SELECT root_cause AS "Root cause", sum(failing_requests) AS "Failing requests"`, `FROM (${LABELLED_ROOT_CAUSES})`, "GROUP BY root_cause", 'ORDER BY "Failing requests" DESC'].join("\n"),
        "short",
        { width: 8, height: 9 },
        "Root cause",
      ),
    )
    .withPanel(
      timeSeriesPanel(
        "Failure rate",
        "Requests whose final verdict is failed / requests with a verdict (passed or failed), per time bucket. The final verdict is a human review's where reviewers agreed, else quality_status.",
        // request_rollups' counts of the final verdicts (migration 0014).
        [
          `SELECT $__timeInterval(minute) AS time, sum(failed_verdicts) / nullIf(sum(passed_verdicts) + sum(failed_verdicts), 0) AS "Failure rate"`,
          `FROM ${SOURCES.request_rollups.from(dashboardScope, [])}`,
          "GROUP BY time",
          "ORDER BY time",
        ].join("\n"),
        "percentunit",
        { width: 18, height: 7 },
      ),
    )
    .withPanel(
      statPanel(
        "Without a root-cause label",
        "Failing requests over the range that no root-cause label explains: the root-cause evaluator found no cause (UNATTRIBUTED, listed for review), recorded none, or wrote a name this release does not know; reviewers had not agreed on one either. The web UI's Failures page counts them alike and lists them (its traces list's root_cause=UNATTRIBUTED).",
        [WITHOUT_ROOT_CAUSE_LABEL],
        "short",
        { width: 6, height: 7 },
      ),
    );

  builder = builder.withRow(row("Failing cases")).withPanel(
    tablePanel(
      "Failing cases",
      "The latest 500 failing requests: primary root-cause label and reason, and the evaluations that failed. Click a trace id to see its stages below.",
      [
        `SELECT failing.started_at AS time, failing.run_id AS run_id, failing.case_id AS case_id, failing.service_name AS service,`,
        // The primary label as the Failures page and the root-cause panels count it (root-causes.ts attributedRootCauses).
        `  if(reviewed.root_cause != '', reviewed.root_cause, causes.root_cause) AS primary_label,`,
        `  if(reviewed.root_cause = '', causes.reason, causes.reason = '' ? 'chosen by agreeing reviewers' : concat('chosen by agreeing reviewers; the root-cause evaluator: ', causes.reason)) AS reason,`,
        `  failed.evaluations AS failed_evaluations, failing.trace_id AS trace_id`,
        `FROM (SELECT case_result_id, started_at, run_id, case_id, service_name, trace_id FROM case_results FINAL WHERE ${dashboardScope("started_at")} AND started_at >= ${latestMinute("failed_verdicts")} AND ${FINAL_VERDICT} = 'failed') AS failing`,
        // The evaluator's cause and failed evaluations written with each request (its trace and start), as
        // attributedRootCauses reads them: a case sent again is a row per request, each with its own, not every
        // request with every cause of its Case Result id.
        `LEFT JOIN (SELECT case_result_id, trace_id, started_at, ${ROOT_CAUSE_LABEL} AS root_cause, reason FROM evaluation_results FINAL WHERE evaluator_id = '${ROOT_CAUSE_EVALUATOR}' AND $__timeFilter(started_at) AND started_at >= ${latestMinute("failed_verdicts")}) AS causes`,
        "  ON causes.case_result_id = failing.case_result_id AND causes.trace_id = failing.trace_id AND causes.started_at = failing.started_at",
        `LEFT JOIN (SELECT case_result_id, trace_id, started_at, arrayStringConcat(arraySort(groupArray(concat(evaluator_id, ': ', reason))), '; ') AS evaluations FROM evaluation_results FINAL WHERE evaluator_id != '${ROOT_CAUSE_EVALUATOR}' AND outcome IN ('failed', 'error') AND $__timeFilter(started_at) AND started_at >= ${latestMinute("failed_verdicts")} GROUP BY case_result_id, trace_id, started_at) AS failed`,
        "  ON failed.case_result_id = failing.case_result_id AND failed.trace_id = failing.trace_id AND failed.started_at = failing.started_at",
        // The reviewers' agreed cause as attributedRootCauses reads it ('' when none: join_use_nulls is off).
        `LEFT JOIN (${caseReviews()}) AS reviewed ON reviewed.case_result_id = failing.case_result_id AND reviewed.trace_id = failing.trace_id`,
        "ORDER BY time DESC",
        `LIMIT ${LATEST}`,
      ].join("\n"),
      { width: 24, height: 10 },
      [{ column: "trace_id", link: { title: "Show this trace's stages", url: `/d/${FAILURES_UID}/failures?var-trace_id=\${__value.raw}&\${__url_time_range}` } }],
    ),
  );

  builder = builder.withRow(row("Review queue")).withPanel(
    tablePanel(
      "Review queue",
      "The latest 500 requests that need review (final verdict review_required: no agreed human review yet): an evaluator errored, or a heuristic signal — a claim-overlap measure's review rule, the heuristic judge — is against the request and no LLM judge has judged it yet. Heuristic signals route requests here and to the judge sample; they are not verdicts.",
      [
        `SELECT pending.started_at AS time, pending.run_id AS run_id, pending.case_id AS case_id, pending.service_name AS service,`,
        `  signals.evaluations AS signals, pending.trace_id AS trace_id`,
        `FROM (SELECT case_result_id, started_at, run_id, case_id, service_name, trace_id FROM case_results FINAL WHERE ${dashboardScope("started_at")} AND started_at >= ${latestMinute("review_required_verdicts")} AND ${FINAL_VERDICT} = 'review_required') AS pending`,
        // Each request's own signals (its trace and start), as the Failing cases table reads its failed evaluations.
        `LEFT JOIN (SELECT case_result_id, trace_id, started_at, arrayStringConcat(arraySort(groupArray(concat(evaluator_id, ': ', reason))), '; ') AS evaluations FROM evaluation_results FINAL WHERE (review_required = 1 OR outcome IN ('failed', 'error')) AND evaluator_id != '${ROOT_CAUSE_EVALUATOR}' AND $__timeFilter(started_at) AND started_at >= ${latestMinute("review_required_verdicts")} GROUP BY case_result_id, trace_id, started_at) AS signals`,
        "  ON signals.case_result_id = pending.case_result_id AND signals.trace_id = pending.trace_id AND signals.started_at = pending.started_at",
        "ORDER BY time DESC",
        `LIMIT ${LATEST}`,
      ].join("\n"),
      { width: 24, height: 10 },
      [{ column: "trace_id", link: { title: "Show this trace's stages", url: `/d/${FAILURES_UID}/failures?var-trace_id=\${__value.raw}&\${__url_time_range}` } }],
    ),
  );

  const trace = `trace_id = ${variableValue("trace_id")}`;
  // A trace's rows are found by the trace_id bloom-filter index. FINAL's exact mode then widens the
  // granules found to every granule sharing their sorting-key range (evaluation_results is sorted by
  // evaluator and day, so ~14 times as many: 0.9 s at 30,000,000 metric values), in case a newer version
  // of a row sits in a granule the index skipped. An online row is keyed by its trace, so every version of
  // it has the trace_id and the index finds them all: the widening adds nothing (60 ms). An offline case run
  // again in the same run is a newer version under another trace: the earlier trace then still lists its
  // own evaluations, which exact mode would hide as replaced.
  const byTraceIndex = "SETTINGS use_skip_indexes_if_final_exact_mode = 0";
  builder = builder
    .withRow(row("Trace $trace_id"))
    .withPanel(
      barChartPanel(
        "Stages of the trace",
        "Duration of each stage of the selected trace (rag_observation.stage_timings), in pipeline order.",
        [`SELECT stage AS "Stage", duration_ms AS "Duration"`, "FROM case_results FINAL ARRAY JOIN stage_names AS stage, stage_durations_ms AS duration_ms", `WHERE ${trace}`, byTraceIndex].join("\n"),
        "ms",
        { width: 10, height: 9 },
        "Stage",
      ),
    )
    .withPanel(
      tablePanel(
        "Evaluations of the trace",
        "Every evaluator's outcome and reason for the selected trace.",
        ["SELECT evaluator_id, evaluator_version, outcome, review_required, reason", "FROM evaluation_results FINAL", `WHERE ${trace}`, "ORDER BY outcome IN ('passed', 'measured'), evaluator_id", byTraceIndex].join("\n"),
        { width: 14, height: 9 },
      ),
    );
  return builder;
}
