/**
 * What a run produced, read back from ClickHouse: per-metric averages, case
 * counts, and the failing evaluations with their reasons. Every query collapses
 * duplicate rows with FINAL (the store is at-least-once).
 */
import type { ClickHouseConnection } from "../sink/clickhouse-connection.js";
import { quoteIdentifier } from "../sink/clickhouse-connection.js";

export interface MetricAverage {
  metric: string;
  evaluatorId: string;
  mean: number | null;
  applicable: number;
  notApplicable: number;
}

export interface FailedEvaluation {
  caseId: string;
  evaluatorId: string;
  reason: string;
  /** The case's verdict: failed, or review_required when only heuristic signals or errors flagged it. */
  caseStatus: string;
  /** A verdict of the heuristic judge: shown for review, it does not fail a case. */
  heuristicJudgement: boolean;
  /** A heuristic measure's review signal (Evaluation Result review_required), not a failure. */
  reviewSignal: boolean;
}

export interface RunSummary {
  runId: string;
  cases: number;
  passed: number;
  failed: number;
  /** Needs review: an evaluator errored or a heuristic signal is against the case. */
  reviewRequired: number;
  /** Measured, nothing against it, nothing able to judge it did: never counted as passed. */
  unjudged: number;
  /** Nothing applied. */
  notEvaluated: number;
  partial: number;
  metrics: MetricAverage[];
  failures: FailedEvaluation[];
}

async function rows<Row>(connection: ClickHouseConnection, query: string, runId: string): Promise<Row[]> {
  const result = await connection.client.query({ query, query_params: { runId }, format: "JSONEachRow" });
  return result.json<Row>();
}

export async function countCaseResults(connection: ClickHouseConnection, runId: string): Promise<number> {
  const database = quoteIdentifier(connection.database);
  const [row] = await rows<{ total: string | number }>(connection, `SELECT count() AS total FROM ${database}.case_results FINAL WHERE run_id = {runId:String}`, runId);
  return Number(row?.total ?? 0);
}

export async function readRunSummary(connection: ClickHouseConnection, runId: string): Promise<RunSummary> {
  const database = quoteIdentifier(connection.database);
  const [counts] = await rows<{ cases: string; passed: string; failed: string; review: string; unjudged: string; not_evaluated: string; partial: string }>(
    connection,
    `SELECT count() AS cases, countIf(quality_status = 'passed') AS passed, countIf(quality_status = 'failed') AS failed,
            countIf(quality_status = 'review_required') AS review, countIf(quality_status = 'unjudged') AS unjudged,
            countIf(quality_status = 'not_evaluated') AS not_evaluated, countIf(partial_trace = 1) AS partial
     FROM ${database}.case_results FINAL WHERE run_id = {runId:String}`,
    runId,
  );
  const metrics = await rows<{ metric: string; evaluator_id: string; mean: number | null; applicable: string; not_applicable: string }>(
    connection,
    `SELECT metric, any(evaluator_id) AS evaluator_id, avgOrNull(value) AS mean, count(value) AS applicable, countIf(value IS NULL) AS not_applicable
     FROM ${database}.metric_values FINAL WHERE run_id = {runId:String}
     GROUP BY metric ORDER BY evaluator_id, metric`,
    runId,
  );
  const failures = await rows<{ case_id: string; evaluator_id: string; reason: string; case_status: string; heuristic: number; review_signal: number }>(
    connection,
    `SELECT evaluation.case_id AS case_id, evaluation.evaluator_id AS evaluator_id, evaluation.reason AS reason, verdict.quality_status AS case_status,
            startsWith(evaluation.evaluator_id, 'judge.') AND JSONExtractString(evaluation.payload, 'confidence', 'semantics') = 'heuristic' AS heuristic,
            evaluation.outcome NOT IN ('failed', 'error') AS review_signal
     FROM (SELECT case_result_id, case_id, evaluator_id, reason, payload, outcome FROM ${database}.evaluation_results FINAL
           WHERE run_id = {runId:String} AND (outcome IN ('failed', 'error') OR review_required = 1)) AS evaluation
     INNER JOIN (SELECT case_result_id, quality_status FROM ${database}.case_results FINAL WHERE run_id = {runId:String}) AS verdict
     USING case_result_id
     ORDER BY case_id, evaluator_id`,
    runId,
  );
  return {
    runId,
    cases: Number(counts?.cases ?? 0),
    passed: Number(counts?.passed ?? 0),
    failed: Number(counts?.failed ?? 0),
    reviewRequired: Number(counts?.review ?? 0),
    unjudged: Number(counts?.unjudged ?? 0),
    notEvaluated: Number(counts?.not_evaluated ?? 0),
    partial: Number(counts?.partial ?? 0),
    metrics: metrics.map((row) => ({ metric: row.metric, evaluatorId: row.evaluator_id, mean: row.mean === null ? null : Number(row.mean), applicable: Number(row.applicable), notApplicable: Number(row.not_applicable) })),
    failures: failures.map((row) => ({ caseId: row.case_id, evaluatorId: row.evaluator_id, reason: row.reason, caseStatus: row.case_status, heuristicJudgement: Boolean(Number(row.heuristic)), reviewSignal: Boolean(Number(row.review_signal)) })),
  };
}
