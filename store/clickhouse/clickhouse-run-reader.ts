/**
 * RunReader on ClickHouse: every query collapses duplicate rows with FINAL
 * (the store is at-least-once), so a replayed trace counts once, and is
 * limited to the reader's tenant scope (tenant-filter.ts): a run's cases,
 * counts and metric values are those of the scope's tenants only.
 */
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import { evalCase as evalCaseSchema, type EvalCase } from "../../contracts/eval-case.js";
import { evalCaseFor } from "../../contracts/eval-case-tenant.js";
import { caseIdentity } from "../../contracts/eval-case-identity.js";
import { evaluationResult as evaluationResultSchema, type EvaluationResult } from "../../contracts/evaluation-result.js";
import { runLineage, type RunLineage } from "../../contracts/run-lineage.js";
import type { EvaluatedCase } from "../../evaluators/aggregate/index.js";
import { COUNTED_REVIEWER, FINAL_VERDICT, REVIEW_DECIDED } from "../../dashboards/source/aggregate-metrics.js";
import { qualifyTables } from "../../report/qualify-tables.js";
import type { RunReader, RunSummary, RunTenantCount, StoredSpan } from "../ports/run-reader.js";
import type { TenantScope } from "../ports/tenant-scope.js";
import { quoteIdentifier, type ClickHouseConnection } from "./clickhouse-connection.js";
import { TenantFilter } from "./tenant-filter.js";
import { casesWithOneContent } from "./stored-case-contents.js";
import { RUN_RECORD_READ_ORDER } from "./run-record-read-order.js";
import { currentRunRows, type RunTable } from "./run-current-results.js";

export class ClickHouseRunReader implements RunReader {
  private readonly database: string;
  private readonly tenants: TenantFilter;

  constructor(
    private readonly connection: ClickHouseConnection,
    scope: TenantScope = "all",
  ) {
    this.database = quoteIdentifier(connection.database);
    this.tenants = new TenantFilter(this.database, scope);
  }

  /** The run's newest request of each case (run-current-results.ts), as a condition on a table's rows. */
  private current(table: RunTable): string {
    return currentRunRows(this.database, this.tenants.on("case_results"), table);
  }

  private async rows<Row>(query: string, parameters: Record<string, unknown>): Promise<Row[]> {
    const result = await this.connection.client.query({ query, query_params: { ...parameters, ...this.tenants.parameters }, format: "JSONEachRow" });
    return result.json<Row>();
  }

  /** The run's final verdicts (FINAL_VERDICT: an agreed human review's, else quality_status), with the reviewers where a review decided (not where their pass was set aside). */
  private async finalVerdicts(runId: string): Promise<Map<string, { verdict: string; reviewedBy: string[] }>> {
    const database = this.database;
    const rows = await this.rows<{ case_result_id: string; final_verdict: string; reviewers: string[] }>(
      qualifyTables(
        `SELECT verdicts.case_result_id AS case_result_id, verdicts.final_verdict AS final_verdict, if(verdicts.reviewed, reviewers.names, []) AS reviewers
         FROM (SELECT case_result_id, trace_id, ${FINAL_VERDICT} AS final_verdict, ${REVIEW_DECIDED} AS reviewed FROM case_results FINAL WHERE run_id = {runId:String} AND ${this.current("case_results")}) AS verdicts
         LEFT JOIN (SELECT case_result_id, trace_id, arraySort(groupUniqArray(labeler_id)) AS names FROM ${database}.human_labels FINAL WHERE metric != 'root_cause' AND ${COUNTED_REVIEWER} GROUP BY case_result_id, trace_id) AS reviewers
         ON reviewers.case_result_id = verdicts.case_result_id AND reviewers.trace_id = verdicts.trace_id`,
        this.connection.database,
      ),
      { runId },
    );
    return new Map(rows.map((row) => [row.case_result_id, { verdict: row.final_verdict, reviewedBy: row.reviewers }]));
  }

  private async payloads(query: string, parameters: Record<string, unknown>): Promise<string[]> {
    return (await this.rows<{ payload: string }>(query, parameters)).map((row) => row.payload);
  }

  async loadRunCases(runId: string): Promise<EvaluatedCase[]> {
    const database = this.database;
    const caseResults = (await this.payloads(`SELECT payload FROM ${database}.case_results FINAL WHERE run_id = {runId:String} AND ${this.tenants.on("case_results")} AND ${this.current("case_results")} ORDER BY case_id`, { runId })).map((payload) => caseResultSchema.parse(JSON.parse(payload)));
    const evaluations = new Map<string, EvaluationResult[]>();
    for (const payload of await this.payloads(`SELECT payload FROM ${database}.evaluation_results FINAL WHERE run_id = {runId:String} AND ${this.tenants.on("evaluation_results")} AND ${this.current("evaluation_results")}`, { runId })) {
      const result = evaluationResultSchema.parse(JSON.parse(payload));
      evaluations.set(result.case_result_id, [...(evaluations.get(result.case_result_id) ?? []), result]);
    }
    let cases = new Map<string, EvalCase>();
    const caseIds = [...new Set(caseResults.map((result) => result.case_id).filter((id) => id !== ""))];
    if (caseIds.length > 0) {
      const stored = (await this.payloads(`SELECT payload FROM ${database}.eval_cases FINAL WHERE case_id IN {caseIds:Array(String)}`, { caseIds })).map((payload) => evalCaseSchema.parse(JSON.parse(payload)));
      // A case stored with two contents (two pushes raced) is nobody's choice: the run is shown without its gold, as for an unknown case.
      cases = casesWithOneContent(stored);
    }
    const verdicts = await this.finalVerdicts(runId);
    return caseResults.map((caseResult) => {
      const final = verdicts.get(caseResult.case_result_id);
      return {
        caseResult: final === undefined ? caseResult : { ...caseResult, quality_status: caseResultSchema.shape.quality_status.parse(final.verdict) },
        ...(final !== undefined && final.reviewedBy.length > 0 ? { reviewedBy: final.reviewedBy } : {}),
        evaluationResults: evaluations.get(caseResult.case_result_id) ?? [],
        // Another tenant's case shares only its ids with this result (contracts/eval-case-tenant.ts).
        evalCase: evalCaseFor(cases.get(caseIdentity(caseResult)), caseResult.rag_observation.tenant_id),
      };
    });
  }

  async countCaseResults(runId: string): Promise<number> {
    const [row] = await this.rows<{ total: string | number }>(`SELECT count() AS total FROM ${this.database}.case_results FINAL WHERE run_id = {runId:String} AND ${this.tenants.on("case_results")} AND ${this.current("case_results")}`, { runId });
    return Number(row?.total ?? 0);
  }

  async countRunTenants(runId: string): Promise<RunTenantCount[]> {
    const rows = await this.rows<{ tenant_id: string; results: string | number }>(
      `SELECT tenant_id, count() AS results FROM ${this.database}.case_results FINAL WHERE run_id = {runId:String} AND ${this.tenants.on("case_results")} AND ${this.current("case_results")} GROUP BY tenant_id ORDER BY tenant_id`,
      { runId },
    );
    return rows.map((row) => ({ tenant: row.tenant_id, results: Number(row.results) }));
  }

  async readRunSummary(runId: string): Promise<RunSummary> {
    const database = this.database;
    const [counts] = await this.rows<{ cases: string; passed: string; failed: string; review: string; unjudged: string; not_evaluated: string; partial: string }>(
      qualifyTables(
        `SELECT count() AS cases, countIf(final_verdict = 'passed') AS passed, countIf(final_verdict = 'failed') AS failed,
                countIf(final_verdict = 'review_required') AS review, countIf(final_verdict = 'unjudged') AS unjudged,
                countIf(final_verdict = 'not_evaluated') AS not_evaluated, countIf(partial_trace = 1) AS partial
         FROM (SELECT ${FINAL_VERDICT} AS final_verdict, partial_trace FROM case_results FINAL WHERE run_id = {runId:String} AND ${this.tenants.on("case_results")} AND ${this.current("case_results")})`,
        this.connection.database,
      ),
      { runId },
    );
    const metrics = await this.rows<{ metric: string; evaluator_id: string; mean: number | null; applicable: string; not_applicable: string }>(
      // Values from metric_values, not-applicable counts from the Evaluation Results (migration 0008: metrics without a value have no row).
      // A metric two evaluators write is shown under the least id (the in-memory store's rule), not any one of them.
      `SELECT metric, min(evaluator_id) AS evaluator_id, avgOrNull(value) AS mean, count(value) AS applicable, countIf(value IS NULL) AS not_applicable
       FROM (SELECT metric, evaluator_id, value FROM ${database}.metric_values FINAL WHERE run_id = {runId:String} AND value IS NOT NULL AND ${this.tenants.on("metric_values")} AND ${this.current("metric_values")}
             UNION ALL
             SELECT metric, evaluator_id, CAST(NULL AS Nullable(Float64)) AS value FROM ${database}.evaluation_results FINAL ARRAY JOIN not_applicable_metrics AS metric WHERE run_id = {runId:String} AND ${this.tenants.on("evaluation_results")} AND ${this.current("evaluation_results")})
       GROUP BY metric ORDER BY evaluator_id, metric`,
      { runId },
    );
    const failures = await this.rows<{ case_id: string; evaluator_id: string; reason: string; case_status: string; heuristic: number; review_signal: number }>(
      `SELECT evaluation.case_id AS case_id, evaluation.evaluator_id AS evaluator_id, evaluation.reason AS reason, verdict.quality_status AS case_status,
              startsWith(evaluation.evaluator_id, 'judge.') AND JSONExtractString(evaluation.payload, 'confidence', 'semantics') = 'heuristic' AS heuristic,
              evaluation.outcome NOT IN ('failed', 'error') AS review_signal
       FROM (SELECT case_result_id, case_id, evaluator_id, reason, payload, outcome FROM ${database}.evaluation_results FINAL
             WHERE run_id = {runId:String} AND (outcome IN ('failed', 'error') OR review_required = 1) AND ${this.current("evaluation_results")}) AS evaluation
       INNER JOIN (SELECT case_result_id, ${qualifyTables(FINAL_VERDICT, this.connection.database)} AS quality_status FROM ${database}.case_results FINAL WHERE run_id = {runId:String} AND ${this.tenants.on("case_results")} AND ${this.current("case_results")}) AS verdict
       USING case_result_id
       ORDER BY case_id, evaluator_id`,
      { runId },
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

  async readRun(runId: string): Promise<RunLineage | null> {
    // Of the records this reader may read (its tenants', tenant-filter.ts), the one RunReader.readRun names (the same
    // order as the runs list's, READ_ORDER): one without a tenant first, then one that says the run has not finished,
    // else the newest.
    const [payload] = await this.payloads(`SELECT payload FROM ${this.database}.runs FINAL WHERE run_id = {runId:String} AND ${this.tenants.on("runs")} ORDER BY ${RUN_RECORD_READ_ORDER} DESC LIMIT 1`, { runId });
    return payload === undefined ? null : runLineage.parse(JSON.parse(payload));
  }

  async storedSpan(): Promise<StoredSpan | null> {
    const [row] = await this.rows<{ first: string | number; last: string | number; requests: string | number }>(
      `SELECT toUnixTimestamp64Milli(min(started_at)) AS first, toUnixTimestamp64Milli(max(started_at)) AS last, count() AS requests FROM ${this.database}.case_results FINAL WHERE ${this.tenants.on("case_results")}`,
      {},
    );
    if (!row || Number(row.requests) === 0) return null;
    return { firstMs: Number(row.first), lastMs: Number(row.last), requests: Number(row.requests) };
  }
}
