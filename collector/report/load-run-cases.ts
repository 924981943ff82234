/**
 * Reads back everything stored for a run — Case Results, their Evaluation
 * Results and the run's Eval Cases — as the aggregates' EvaluatedCase list.
 * FINAL collapses duplicate rows, so a replayed trace counts once.
 */
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import { evalCase as evalCaseSchema, type EvalCase } from "../../contracts/eval-case.js";
import { evaluationResult as evaluationResultSchema, type EvaluationResult } from "../../contracts/evaluation-result.js";
import type { EvaluatedCase } from "../../evaluators/aggregate/index.js";
import type { ClickHouseConnection } from "../sink/clickhouse-connection.js";
import { quoteIdentifier } from "../sink/clickhouse-connection.js";

async function payloads(connection: ClickHouseConnection, query: string, runId: string): Promise<string[]> {
  const result = await connection.client.query({ query, query_params: { runId }, format: "JSONEachRow" });
  return (await result.json<{ payload: string }>()).map((row) => row.payload);
}

export async function loadRunCases(connection: ClickHouseConnection, runId: string): Promise<EvaluatedCase[]> {
  const database = quoteIdentifier(connection.database);
  const caseResults = (await payloads(connection, `SELECT payload FROM ${database}.case_results FINAL WHERE run_id = {runId:String} ORDER BY case_id`, runId)).map((payload) => caseResultSchema.parse(JSON.parse(payload)));
  const evaluations = new Map<string, EvaluationResult[]>();
  for (const payload of await payloads(connection, `SELECT payload FROM ${database}.evaluation_results FINAL WHERE run_id = {runId:String}`, runId)) {
    const result = evaluationResultSchema.parse(JSON.parse(payload));
    evaluations.set(result.case_result_id, [...(evaluations.get(result.case_result_id) ?? []), result]);
  }
  const cases = new Map<string, EvalCase>();
  const caseIds = [...new Set(caseResults.map((result) => result.case_id).filter((id) => id !== ""))];
  if (caseIds.length > 0) {
    const result = await connection.client.query({
      query: `SELECT payload FROM ${database}.eval_cases FINAL WHERE case_id IN {caseIds:Array(String)}`,
      query_params: { caseIds },
      format: "JSONEachRow",
    });
    for (const row of await result.json<{ payload: string }>()) {
      const parsed = evalCaseSchema.parse(JSON.parse(row.payload));
      cases.set(`${parsed.case_id}@${parsed.case_version}`, parsed);
    }
  }
  return caseResults.map((caseResult) => ({
    caseResult,
    evaluationResults: evaluations.get(caseResult.case_result_id) ?? [],
    evalCase: cases.get(`${caseResult.case_id}@${caseResult.case_version}`) ?? null,
  }));
}
