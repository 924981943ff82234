/**
 * Runs — two offline runs side by side: what changed in their lineage, each
 * metric's mean in both with the difference, and the cases whose evaluation
 * flipped between pass and fail. Not bound to the time range: runs are
 * chosen by id. Cases are paired by case_id and case_version, as `ragscope
 * eval --baseline` and `gate` pair them (run-pairing.ts); the heuristic
 * judge's values are shown apart, named as a measurement, as the RAG quality
 * board names them.
 */
import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import { FINAL_VERDICT, HEURISTIC_JUDGE_NAME_SUFFIX, metricRowsWithCoverage } from "./aggregate-metrics.js";
import { HEURISTIC_JUDGE_ROW_SQL } from "../../evaluators/aggregate/dataset-shares.js";
import { dashboardShell } from "./dashboard-shell.js";
import { ROOT_CAUSE_EVALUATOR } from "./failures-dashboard.js";
import { barChartPanel, row, statPanel, tablePanel } from "./panel-builders.js";
import { caseKeysOfPair, inComparedCase, LEFT_OUT_IN_ONE_RUN, LEFT_OUT_VERSIONS_DIFFER, type RunPair } from "./run-pairing.js";
import { sqlList, sqlString, variableValue } from "./sql-scope.js";
import { createDefaultRegistry } from "../../evaluators/default-registry.js";
import { heuristicMetricNames, HEURISTIC_METRIC_LABEL_SUFFIX } from "../../evaluators/metric-catalog.js";
import { JUDGE_USAGE_METRICS } from "../../evaluators/judge/judge-evaluations.js";
import { runPairVariables } from "./variables.js";
import { currentRunRows, type RunTable } from "../../store/clickhouse/run-current-results.js";

export const RUNS_UID = "ragscope-runs";

const BASELINE = variableValue("baseline");
const CANDIDATE = variableValue("candidate");
/**
 * A run's rows. Online traffic has no run (run_id ''): with no run chosen (an empty store of runs, or only one run)
 * the board shows nothing for that side instead of every online row — which it read in full before (2.3–3.7 s at
 * 3,000,000 metric values, test/bench/dashboard-scale.bench.ts). `run_id != ''` lets the run_id skip index
 * (migration 0007) pass over the granules of online rows, and with both variables empty the whole condition is a
 * constant false that reads no granule.
 */
const ofRun = (run: string): string => `run_id = ${run} AND ${run} != ''`;
const BOTH = `run_id != '' AND run_id IN (${BASELINE}, ${CANDIDATE}) AND (${BASELINE} != '' OR ${CANDIDATE} != '')`;
/**
 * The two runs' current rows: of a case sent again under a run (after midnight UTC, from a renamed service), its
 * newest request's, as RunReader reads a run (store/clickhouse/run-current-results.ts) — so the board's cases, pass
 * rates and means count the case once, as `gate` and /runs do. `table`: the table the condition is on.
 */
const currentOfBoth = (table: RunTable): string => `${BOTH} AND ${currentRunRows(null, "1", table, BOTH)}`;

const PAIR: RunPair = { baseline: BASELINE, candidate: CANDIDATE, both: BOTH };
/** The current rows of the cases compared: both runs ran them at the same case_version (run-pairing.ts). */
const comparedOfBoth = (table: RunTable): string => `${currentOfBoth(table)} AND ${inComparedCase(PAIR)}`;

/** A heuristic rule's metric (metric-catalog.ts) under its name and HEURISTIC_METRIC_LABEL_SUFFIX, as every surface labels it. */
const HEURISTIC_METRIC_AS_SHOWN = `if(metric IN (${sqlList(heuristicMetricNames())}), concat(metric, ${sqlString(HEURISTIC_METRIC_LABEL_SUFFIX)}), metric)`;

/**
 * What the board calls a stored metric: the heuristic judge's values (the embedded stand-in when no LLM judge is
 * configured) under the name the RAG quality board gives them (aggregate-metrics.ts heuristicMeasurementOf), never
 * under the metric's own — there its mean is "no data" when only the heuristic judge scored it, and `eval`/`gate`
 * say the same ("all from the heuristic judge: a measurement, never a pass"). An LLM judge's values of the same
 * metric stay under its name, a row of their own. A heuristic rule's metric is named "<metric> (heuristic)": a reason
 * to look, never a pass (the gate does not decide on it). Over rows with `metric`, `evaluator_id` and `evaluator_version`.
 */
const METRIC_AS_SHOWN = `if(${HEURISTIC_JUDGE_ROW_SQL}, concat(metric, ${sqlString(HEURISTIC_JUDGE_NAME_SUFFIX)}), ${HEURISTIC_METRIC_AS_SHOWN})`;

/**
 * `rows` (metricRowsWithCoverage) as `shown` (METRIC_AS_SHOWN), run_id, case_result_id and value, with the judge's
 * usage made one value a case: every judged metric's Evaluation Result records its own call's tokens and cost, and a
 * mean over those rows was a mean per call — a third of the case's cost when three metrics were judged — where `eval`
 * and `gate` take the case's calls together (evaluators/aggregate/evaluated-case.ts metricValueOf), and a call whose
 * cost is not known leaves the case's unknown (NULL).
 */
function judgeUsagePerCase(rows: string): string {
  const usage = `metric IN (${sqlList(JUDGE_USAGE_METRICS)})`;
  return (
    `(SELECT ${METRIC_AS_SHOWN} AS shown, run_id, case_result_id, value FROM ${rows} WHERE NOT ${usage} ` +
    `UNION ALL SELECT ${METRIC_AS_SHOWN} AS shown, run_id, case_result_id, if(countIf(value IS NULL) > 0, CAST(NULL AS Nullable(Float64)), sum(value)) AS value FROM ${rows} WHERE ${usage} GROUP BY shown, run_id, case_result_id)`
  );
}

/**
 * Stored metrics that are not scores between 0 and 1, whatever values a run happened to give them: those whose
 * descriptor's range is another (times, counts, costs, a score out of 3) and the judge's own tokens and cost. A run
 * whose judge cost stayed under 1, or whose judge spent no tokens, showed them as percentages beside the scores.
 * The chart's HAVING still keeps out any other metric with a value outside [0, 1].
 */
const NOT_SCORES = [
  ...createDefaultRegistry()
    .list()
    .flatMap((evaluator) => evaluator.metrics)
    .filter((metric) => metric.range === null || metric.range[0] !== 0 || metric.range[1] !== 1)
    .map((metric) => metric.name),
  ...JUDGE_USAGE_METRICS,
];

/**
 * Of a run id's lineage records, the one read first sorts highest (store/clickhouse/run-record-read-order.ts, readRun's
 * order): without a tenant, then one saying the run has not finished (`unfinished`, below), then the newest.
 */
const READ_FIRST = "(tenant_id = '', unfinished, version, tenant_id)";

/** Run lineage fields (contracts/run-lineage.ts) stored in runs.payload. */
const LINEAGE_FIELDS = ["dataset_id", "dataset_version", "corpus_version", "index_version", "embedding_model", "retriever_version", "reranker_version", "prompt_version", "generator_model", "application_version"];

export function runsDashboard(): dashboard.DashboardBuilder {
  let builder = dashboardShell(RUNS_UID, "ragscope — Runs", "Two offline runs side by side: lineage, metric means and their difference, and the cases that flipped.");
  for (const variable of runPairVariables()) builder = builder.withVariable(variable);

  builder = builder
    .withRow(row("Baseline $baseline · candidate $candidate"))
    .withPanel(
      statPanel(
        "Pass rates",
        "Cases each run evaluated; the cases paired — matched by case_id and case_version, as ragscope eval --baseline and gate pair them; " +
          "the cases left out because only one run has the case id, or because both have it at different case_versions (a changed case); " +
          "and in each run the share of the paired cases whose final verdict is passed (a human review's verdict where reviewers agreed, else quality_status), " +
          "with the cases it is over. With only one run chosen there is nothing to pair: its pass rate is over all its cases.",
        [
          [
            `SELECT sum(baseline_results) AS "Baseline cases", sum(candidate_results) AS "Candidate cases", countIf(paired) AS "Paired cases",`,
            `  uniqExactIf(case_id, NOT paired AND NOT id_in_both) AS "${LEFT_OUT_IN_ONE_RUN}", uniqExactIf(case_id, NOT paired AND id_in_both) AS "${LEFT_OUT_VERSIONS_DIFFER}",`,
            `  sumIf(baseline_passed, compared) / nullIf(sumIf(baseline_results, compared), 0) AS "Baseline pass rate", sumIf(baseline_results, compared) AS "Baseline pass rate · cases",`,
            `  sumIf(candidate_passed, compared) / nullIf(sumIf(candidate_results, compared), 0) AS "Candidate pass rate", sumIf(candidate_results, compared) AS "Candidate pass rate · cases"`,
            `FROM ${caseKeysOfPair(PAIR, currentOfBoth("case_results"), `${FINAL_VERDICT} = 'passed'`)}`,
          ].join("\n"),
        ],
        "short",
        { width: 12, height: 5 },
        [{ column: "Baseline pass rate", unit: "percentunit" }, { column: "Candidate pass rate", unit: "percentunit" }],
      ),
    )
    .withPanel(
      tablePanel(
        "Lineage",
        "The versions each run used (contracts/run-lineage.ts); changed = the runs differ.",
        [
          // A run id may hold a record per tenant (migration 0027): each run's values come from one record, the one the
          // readers read (store/ports/run-reader.ts readRun: READ_FIRST), never a mix.
          `SELECT field, argMaxIf(setting, ${READ_FIRST}, run_id = ${BASELINE}) AS baseline, argMaxIf(setting, ${READ_FIRST}, run_id = ${CANDIDATE}) AS candidate, baseline != candidate AS changed`,
          `FROM (SELECT run_id, tenant_id, version, JSONExtractString(payload, 'completion', 'status') IN ('running', 'interrupted') AS unfinished, field, JSONExtractString(payload, field) AS setting FROM runs FINAL ARRAY JOIN [${sqlList(LINEAGE_FIELDS)}] AS field WHERE ${BOTH})`,
          "GROUP BY field",
          "ORDER BY changed DESC, field",
        ].join("\n"),
        { width: 12, height: 5 },
      ),
    );

  builder = builder
    .withRow(row("Metrics"))
    .withPanel(
      tablePanel(
        "Metrics side by side",
        "Mean of every metric in each run over the paired cases' values where it applies (cases matched by case_id and case_version, as ragscope eval --baseline pairs them; " +
          "the Pass rates panel counts the cases left out), candidate − baseline, and how many cases and values each mean rests on. The judge's tokens and cost are a case's calls together " +
          "(each judged metric records its own call), as ragscope eval and gate count them, and a case with a call of unknown cost has none. " +
          `The heuristic judge's values are rows of their own, named "<metric>${HEURISTIC_JUDGE_NAME_SUFFIX}": ` +
          "a measurement, never a judged value — where only it scored a metric, the metric itself has no data, as on the RAG quality board.",
        [
          `SELECT shown AS metric, avgIf(value, run_id = ${BASELINE}) AS baseline, avgIf(value, run_id = ${CANDIDATE}) AS candidate, candidate - baseline AS difference,`,
          `  uniqExactIf(case_result_id, run_id = ${BASELINE} AND value IS NOT NULL) AS baseline_cases, uniqExactIf(case_result_id, run_id = ${CANDIDATE} AND value IS NOT NULL) AS candidate_cases,`,
          `  countIf(run_id = ${BASELINE} AND value IS NOT NULL) AS baseline_values, countIf(run_id = ${CANDIDATE} AND value IS NOT NULL) AS candidate_values`,
          `FROM ${judgeUsagePerCase(metricRowsWithCoverage({ metricValues: comparedOfBoth("metric_values"), evaluationResults: comparedOfBoth("evaluation_results") }))}`,
          "GROUP BY metric",
          "ORDER BY abs(difference) DESC, metric",
        ].join("\n"),
        { width: 12, height: 12 },
      ),
    )
    .withPanel(
      barChartPanel(
        "Scores, baseline vs candidate",
        `Means over the paired cases of the metrics scored between 0 and 1 (latency, tokens, counts and cost — the judge's tokens and cost too — are in the table); the heuristic judge's as "<metric>${HEURISTIC_JUDGE_NAME_SUFFIX}".`,
        [
          `SELECT shown AS metric, avgIf(value, run_id = ${BASELINE}) AS "Baseline", avgIf(value, run_id = ${CANDIDATE}) AS "Candidate"`,
          // The shown name under another alias inside: aliased `metric` in the same SELECT, the NOT IN read the shown
          // name, and the heuristic judge's "judge_cost (heuristic judge, measurement)" passed it into the chart.
          `FROM (SELECT ${METRIC_AS_SHOWN} AS shown, run_id, value FROM metric_values FINAL`,
          `  WHERE ${comparedOfBoth("metric_values")} AND value IS NOT NULL AND metric NOT IN (${sqlList(NOT_SCORES)}))`,
          "GROUP BY metric",
          "HAVING min(value) >= 0 AND max(value) <= 1",
          "ORDER BY metric",
        ].join("\n"),
        "percentunit",
        { width: 12, height: 12 },
        "metric",
      ),
    );

  builder = builder.withRow(row("Flipped cases")).withPanel(
    tablePanel(
      "Cases that flipped",
      "Cases (matched by case_id and case_version, as ragscope eval --baseline pairs them: a case changed between the runs has a new case_version and is left out — the Pass rates panel counts those) " +
        "where an evaluator passed in one run and failed in the other; the reasons are the candidate's.",
      [
        "SELECT candidate.case_id AS case_id, candidate.case_version AS case_version, candidate.evaluator_id AS evaluator_id, baseline.latest_outcome AS baseline_outcome, candidate.latest_outcome AS candidate_outcome,",
        "  if(candidate.latest_outcome = 'failed', 'regressed', 'fixed') AS change, candidate.latest_reason AS candidate_reason, baseline.latest_reason AS baseline_reason",
        `FROM ${latestOutcomes(CANDIDATE)} AS candidate`,
        `INNER JOIN ${latestOutcomes(BASELINE)} AS baseline`,
        "  ON baseline.case_id = candidate.case_id AND baseline.case_version = candidate.case_version AND baseline.evaluator_id = candidate.evaluator_id",
        "WHERE candidate.latest_outcome != baseline.latest_outcome",
        "ORDER BY change DESC, case_id, evaluator_id",
      ].join("\n"),
      { width: 24, height: 10 },
    ),
  );
  return builder;
}

/**
 * One row per case, case version and evaluator of a run — its latest pass or
 * fail — so the join of two runs has at most one row per pair. Results
 * without a case (online traffic: case_id '') match nothing: joined on '' = ''
 * they made every online result of an evaluator a pair with every other one
 * (a store of 300,000 metric values grew such a join past 20 GB).
 * evaluation_results has no case_version: a result's case result (one per
 * run, case and case version, contracts/ids.ts) gives it.
 */
function latestOutcomes(run: string): string {
  return (
    `(SELECT versions.case_id AS case_id, versions.case_version AS case_version, outcomes.evaluator_id AS evaluator_id, ` +
    `argMax(outcomes.outcome, outcomes.evaluated_at) AS latest_outcome, argMax(outcomes.reason, outcomes.evaluated_at) AS latest_reason FROM ` +
    `(SELECT case_result_id, evaluator_id, outcome, reason, evaluated_at FROM evaluation_results FINAL ` +
    `WHERE ${ofRun(run)} AND case_id != '' AND evaluator_id != '${ROOT_CAUSE_EVALUATOR}' AND outcome IN ('passed', 'failed')) AS outcomes ` +
    `INNER JOIN (SELECT case_result_id, case_id, case_version FROM case_results FINAL WHERE ${ofRun(run)} AND case_id != '' GROUP BY case_result_id, case_id, case_version) AS versions ` +
    `ON versions.case_result_id = outcomes.case_result_id GROUP BY case_id, case_version, evaluator_id)`
  );
}
