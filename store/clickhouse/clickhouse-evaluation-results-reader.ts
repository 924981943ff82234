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
      ["case_result_id", "started_at", "trace_id", "tenant_id", "service_name", "version"],
      `case_result_id IN {ids:Array(String)} AND ${tenants.on("case_results")}`,
    );
    const starts = await rows<{ case_result_id: string; started_at_ms: string | number }>(
      `SELECT case_result_id, toUnixTimestamp64Milli(argMax(started_at, ${NEWEST_REQUEST_ORDER})) AS started_at_ms FROM (${requests}) GROUP BY case_result_id`,
      { ids },
    );
    if (starts.length === 0) continue;
    for (const start of starts) found.set(start.case_result_id, []);
    // The days select each evaluator's granules (the sorting key is evaluator, day, id), the ids the bloom filter's,
    // and each kept row must carry its Case Result's newest start, as readTrace asks (evaluationResultsOfRequests).
    const keys = starts.map((start) => new TupleParam([start.case_result_id, Number(start.started_at_ms)]));
    const days = [...new Set(starts.map((start) => new Date(Number(start.started_at_ms)).toISOString().slice(0, 10)))];
    const results = await rows<{ case_result_id: string; payload: string }>(
      evaluationResultsOfRequests(database, "case_result_id IN {foundIds:Array(String)} AND toDate(started_at) IN {days:Array(Date)}", "(case_result_id, started_at_ms) IN {keys:Array(Tuple(String, Int64))}"),
      { foundIds: starts.map((start) => start.case_result_id), days, keys },
    );
    for (const row of results) found.get(row.case_result_id)!.push(evaluationResultSchema.parse(JSON.parse(row.payload)));
  }
  for (const results of found.values()) results.sort(compareEvaluationResults);
  return found;
}

/**
 * The Evaluation Results written with given requests: of the rows `where` selects (a condition on their Case Result
 * ids and days, e.g. `case_result_id = {id:String} AND toDate(started_at) = {day:Date}`), each sorting key's newest
 * (evaluator, day and Evaluation Result id: WRITE_ORDER, as FINAL keeps it), kept when that newest row was written with
 * the request `request` names (a condition on `case_result_id` and `started_at_ms`, the row's start in milliseconds).
 * Collapsed first, then filtered: an Evaluation Result id is its Case Result's and evaluator's (contracts/ids.ts), so
 * a case sent again the same day writes the same key with the second request's start, and FINAL keeps that row alone.
 * Filtered by start before collapsing, the first request read its replaced rows until a merge dropped them, and
 * nothing after: an answer that depended on the engine's merges, unlike the in-memory store's (one row per key). The
 * Case Result id is grouped on though the key's id determines it: it is what `where` selects by. Rows
 * `case_result_id`, `evaluator_id`, `evaluation_result_id`, `payload`, `started_at_ms`.
 */
export function evaluationResultsOfRequests(database: string, where: string, request: string): string {
  return `SELECT case_result_id, evaluator_id, evaluation_result_id, tupleElement(newest, 1) AS payload, tupleElement(newest, 2) AS started_at_ms
    FROM (SELECT case_result_id, evaluator_id, evaluation_result_id, argMax((payload, toUnixTimestamp64Milli(started_at)), ${WRITE_ORDER}) AS newest
          FROM ${database}.evaluation_results WHERE ${where}
          GROUP BY case_result_id, evaluator_id, toDate(started_at), evaluation_result_id)
    WHERE ${request}`;
}
