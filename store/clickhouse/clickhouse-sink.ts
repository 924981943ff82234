/**
 * Writes evaluated Case Results to ClickHouse (server or embedded chDB).
 *
 * Exactly once in effect: rows carry deterministic ids and a version, tables are
 * ReplacingMergeTree, every insert carries a deduplication token derived from
 * its rows (a retried insert of the same batch is dropped by the server), and
 * queries collapse what is left with FINAL. Errors are values: a failed insert
 * is reported as retriable unless it is a schema or syntax problem, or a
 * value the engine refuses (`rejectsData`), which a retry cannot fix.
 *
 * One insert per table per batch, in TabSeparated (tab-separated.ts says why),
 * built straight from the evaluations in one pass (tab-separated-batch.ts). Settings
 * travel in the statement's SETTINGS clause, not as session settings: the
 * embedded engine would apply those with `SET`, which outlives the insert and
 * is shared by every writer of the session. The engine inserts off this
 * thread; meanwhile this thread goes on receiving and evaluating traces
 * (collector/07-evaluate/evaluation-worker.ts).
 */
import { failure, success, type Result } from "../../core/result.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";
import type { ClickHouseMetricRollups, WrittenRequest } from "./metric-rollups.js";
import type { ResultSink, SinkFailure } from "../ports/result-sink.js";
import { caseResult as caseResultSchema, type CaseResult } from "../../contracts/case-result.js";
import { isLateFeedback, planLateFeedback } from "../late-feedback/merge-late-feedback.js";
import { batchBodies, caseResultColumns, evaluationResultColumns, metricValueColumns, traceSpanColumns } from "./tab-separated-batch.js";
import { clickHouseErrorCode } from "./clickhouse-error-code.js";
import { caseResultIdOf, RetriedVersions, RowVersionClock } from "../row-version-clock.js";

/** ClickHouse error codes a retry cannot fix because the schema is wrong (unknown table or column, syntax). */
const SCHEMA_ERROR_CODES = new Set(["60", "16", "62"]);
/**
 * ClickHouse error codes for a value the engine refuses: TYPE_MISMATCH (53),
 * CANNOT_PARSE_INPUT_ASSERTION_FAILED (27), CANNOT_PARSE_TEXT (6),
 * INCORRECT_DATA (117), CANNOT_PARSE_DATE/DATETIME (38, 41),
 * CANNOT_PARSE_NUMBER (72), CANNOT_CONVERT_TYPE (70),
 * VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE (321), TOO_LARGE_STRING_SIZE (131),
 * VIOLATED_CONSTRAINT (469). The rest of the batch can be written without it.
 */
const DATA_ERROR_CODES = new Set(["53", "27", "6", "117", "38", "41", "72", "70", "321", "131", "469"]);

export interface ClickHouseSinkOptions {
  /** dataset_id of a case, for the denormalised columns; "" when unknown. */
  datasetOf?: (caseId: string, caseVersion: string) => string;
  /** Clock for row versions, injectable for tests. */
  now?: () => number;
  /** The writer's row versions (row-version-clock.ts), shared with the store's judge result sink; default: one of its own on `now`. */
  versions?: RowVersionClock;
  /** The dashboards' rollups: told which request minutes each write touched (metric-rollups.ts). */
  rollups?: ClickHouseMetricRollups;
}

/** The request minute, tenant and service of each written Case Result, for the rollups. */
export function writtenRequests(batch: readonly { caseResult: CaseEvaluation["caseResult"] }[]): WrittenRequest[] {
  return batch.map(({ caseResult }) => ({ startedAt: caseResult.started_at, tenantId: caseResult.rag_observation.tenant_id ?? "", serviceName: caseResult.rag_observation.service_name ?? "" }));
}

/**
 * The settings of each of the sink's inserts. optimize_on_insert = 0: the engine does not collapse duplicate keys
 * within the inserted block, which cost ~15 % of each insert; queries collapse duplicates anyway (FINAL), as they
 * must across blocks.
 */
export function sinkInsertSettings(token: string): Record<string, string | number> {
  return { date_time_input_format: "best_effort", insert_deduplication_token: token, optimize_on_insert: 0 };
}

interface TableInsert {
  table: string;
  columns: readonly string[];
  token: string;
  body: Buffer;
}

export class ClickHouseSink implements ResultSink {
  readonly counters = { batches: 0, caseResults: 0, metricValues: 0, failures: 0, lastWriteMs: 0, lateEventsMerged: 0 };
  private readonly database: string;
  private readonly versions: RetriedVersions<CaseEvaluation>;

  constructor(
    private readonly connection: ClickHouseConnection,
    private readonly options: ClickHouseSinkOptions = {},
  ) {
    this.database = quoteIdentifier(connection.database);
    this.versions = new RetriedVersions(options.versions ?? new RowVersionClock(options.now));
  }

  async write(incoming: readonly CaseEvaluation[]): Promise<Result<void, SinkFailure>> {
    if (incoming.length === 0) return success(undefined);
    const started = Date.now();
    let batch = incoming;
    // The batch's items in the order they arrived, for their versions: a stored request rewritten with late events
    // arrived before the requests of this batch, so a case's request in the batch outranks its stored one's rewrite.
    let arrival = incoming;
    let mergedEvents = 0;
    if (incoming.some((evaluation) => isLateFeedback(evaluation.caseResult))) {
      // Late user events go onto their request's stored Case Result (store/late-feedback/merge-late-feedback.ts).
      let stored: CaseResult[];
      try {
        stored = await this.completeResultsOf(incoming.filter((evaluation) => isLateFeedback(evaluation.caseResult)).map((evaluation) => evaluation.caseResult.trace_id));
      } catch (error) {
        this.counters.failures += 1;
        return failure({ retriable: true, message: `ClickHouse read of stored Case Results for late user events failed: ${error instanceof Error ? error.message : String(error)}` });
      }
      const plan = planLateFeedback(incoming, stored);
      const rewrites = plan.rewrites.map((caseResult): CaseEvaluation => ({ caseResult, evaluationResults: [] }));
      batch = [...plan.batch, ...rewrites];
      arrival = [...rewrites, ...plan.batch];
      mergedEvents = plan.mergedEvents;
      if (batch.length === 0) return success(undefined);
    }
    // Strictly after this writer's last write, so that a later write wins, and of one case's requests in the batch
    // the later; a retry keeps its first attempt's. The token does not hash the versions (tab-separated-batch.ts), so
    // a retry sends the same token either way.
    const versionOf = this.versions.forWrite(arrival, caseResultIdOf);
    const bodies = batchBodies(batch, this.options.datasetOf ?? (() => ""), versionOf);
    const { token } = bodies;
    // Children first: a reader that sees a case result also sees its metrics.
    const tables: TableInsert[] = [
      { table: "metric_values", columns: metricValueColumns, token: `${token}:m`, body: bodies.metricValues },
      { table: "evaluation_results", columns: evaluationResultColumns, token: `${token}:e`, body: bodies.evaluationResults },
      // The token hashes the Case Results, not the spans: a retried batch carries the same spans.
      { table: "trace_spans", columns: traceSpanColumns, token: `${token}:s`, body: bodies.traceSpans },
      { table: "case_results", columns: caseResultColumns, token: `${token}:c`, body: bodies.caseResults },
    ];
    try {
      // One insert at a time, in order.
      for (const table of tables) await this.insert(table);
    } catch (error) {
      this.counters.failures += 1;
      this.versions.failedWith(batch, versionOf);
      const code = clickHouseErrorCode(error);
      const message = error instanceof Error ? error.message : String(error);
      const rejectsData = code !== null && DATA_ERROR_CODES.has(code);
      const permanent = rejectsData || (code !== null && SCHEMA_ERROR_CODES.has(code));
      return failure({ retriable: !permanent, rejectsData, message: `ClickHouse insert failed: ${message}` });
    }
    this.versions.written(batch);
    this.options.rollups?.note(writtenRequests(batch));
    this.counters.batches += 1;
    this.counters.lateEventsMerged += mergedEvents;
    this.counters.caseResults += batch.length;
    this.counters.metricValues += bodies.metricRows;
    this.counters.lastWriteMs = Date.now() - started;
    return success(undefined);
  }

  /** The stored complete Case Results of these traces (the trace_id skip index of 0007 finds them). */
  private async completeResultsOf(traceIds: readonly string[]): Promise<CaseResult[]> {
    const result = await this.connection.client.query({
      query: `SELECT payload FROM ${this.database}.case_results FINAL WHERE trace_id IN {traceIds:Array(String)} AND partial_trace = 0`,
      query_params: { traceIds: [...new Set(traceIds)] },
      format: "JSONEachRow",
    });
    const rows = await result.json<{ payload: string }>();
    return rows.flatMap((row) => {
      const parsed = caseResultSchema.safeParse(JSON.parse(row.payload));
      return parsed.success ? [parsed.data] : [];
    });
  }

  private async insert({ table, columns, token, body }: TableInsert): Promise<void> {
    await this.connection.insertTabSeparated({ database: this.database, table, columns, body, settings: sinkInsertSettings(token) });
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
