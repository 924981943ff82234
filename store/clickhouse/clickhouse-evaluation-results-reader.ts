/**
 * The Evaluation Results of many Case Results at once (TraceReader
 * readEvaluationResults), each id's the rows readTrace reads for it: two
 * queries per slice of BULK_READ_IDS ids, whatever the number of ids. The
 * first finds the Case Results under the reader's tenant scope with each one's
 * newest start (each request's newest version, then the newest request, as
 * readTrace picks an id's newest request: newest-row.ts); the second completes
 * those rows only (as readTrace does, it does not repeat the scope), reading
 * the Evaluation Results stored with that start. Collapsed by hand (argMax in
 * FINAL's order over the key's columns that vary for one Case Result,
 * newest-row.ts), not with FINAL, for readTrace's reason: FINAL widens
 * the id's bloom-filter selection to whole days of every evaluator. The ids
 * and keys are query parameters, never text.
 */
import { TupleParam } from "@clickhouse/client";
import { evaluationResult as evaluationResultSchema, type EvaluationResult } from "../../contracts/evaluation-result.js";
import { compareEvaluationResults, inSlices } from "../ports/trace-reader.js";
import type { TenantFilter } from "./tenant-filter.js";
import { NEWEST_REQUEST_ORDER, newestCaseResultRows, WRITE_ORDER } from "./newest-row.js";

type Rows = <Row>(query: string, parameters: Record<string, unknown>) => Promise<Row[]>;

export async function readEvaluationResultsOnClickHouse(database: string, tenants: TenantFilter, rows: Rows, caseResultIds: readonly string[]): Promise<Map<string, EvaluationResult[]>> {
  const found = new Map<string, EvaluationResult[]>();
  for (const ids of inSlices(caseResultIds)) {
    const requests = newestCaseResultRows(
      database,
      ["case_result_id", "started_at", "trace_id", "tenant_id", "service_name", "version", "inserted_at"],
      `case_result_id IN {ids:Array(String)} AND ${tenants.on("case_results")}`,
    );
    const starts = await rows<{ case_result_id: string; started_at_ms: string | number }>(
      `SELECT case_result_id, toUnixTimestamp64Milli(argMax(started_at, ${NEWEST_REQUEST_ORDER})) AS started_at_ms FROM (${requests}) GROUP BY case_result_id`,
      { ids },
    );
    if (starts.length === 0) continue;
    for (const start of starts) found.set(start.case_result_id, []);
    // The days select each evaluator's granules (the sorting key is evaluator, day, id), the ids the bloom filter's,
    // and each row must carry its Case Result's newest start, as readTrace asks with `started_at =`.
    const keys = starts.map((start) => new TupleParam([start.case_result_id, Number(start.started_at_ms)]));
    const days = [...new Set(starts.map((start) => new Date(Number(start.started_at_ms)).toISOString().slice(0, 10)))];
    const results = await rows<{ case_result_id: string; payload: string }>(
      `SELECT case_result_id, argMax(payload, ${WRITE_ORDER}) AS payload FROM ${database}.evaluation_results
       WHERE case_result_id IN {foundIds:Array(String)} AND toDate(started_at) IN {days:Array(Date)}
         AND (case_result_id, toUnixTimestamp64Milli(started_at)) IN {keys:Array(Tuple(String, Int64))}
       GROUP BY case_result_id, evaluator_id, evaluation_result_id`,
      { foundIds: starts.map((start) => start.case_result_id), days, keys },
    );
    for (const row of results) found.get(row.case_result_id)!.push(evaluationResultSchema.parse(JSON.parse(row.payload)));
  }
  for (const results of found.values()) results.sort(compareEvaluationResults);
  return found;
}
