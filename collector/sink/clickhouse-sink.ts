/**
 * Writes evaluated Case Results to ClickHouse (server or embedded chDB).
 *
 * Exactly once in effect: rows carry deterministic ids and a version, tables are
 * ReplacingMergeTree, every insert carries a deduplication token derived from
 * its rows (a retried insert of the same batch is dropped by the server), and
 * queries collapse what is left with FINAL. Errors are values: a failed insert
 * is reported as retriable unless it is a schema or syntax problem that a
 * retry cannot fix.
 */
import { createHash } from "node:crypto";
import { failure, success, type Result } from "../../contracts/result.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";
import type { ResultSink, SinkFailure } from "./result-sink.js";
import { toRows } from "./result-rows.js";

/** ClickHouse error codes a retry cannot fix (unknown table/column, syntax, type). */
const PERMANENT_ERROR_CODES = new Set(["60", "16", "62", "53", "27", "6", "117"]);

export interface ClickHouseSinkOptions {
  /** dataset_id of a case, for the denormalised columns; "" when unknown. */
  datasetOf?: (caseId: string, caseVersion: string) => string;
  /** Clock for row versions, injectable for tests. */
  now?: () => number;
}

/**
 * The insert deduplication token: a hash of what the batch says, without the
 * evaluation times. A retried insert of the same batch, or a replay that
 * rebuilds the same results, is dropped by the server; a re-evaluation whose
 * results changed (more spans, another trace for the same run and case) is not.
 */
export function deduplicationToken(batch: readonly CaseEvaluation[]): string {
  const hash = createHash("sha256");
  for (const evaluation of batch) {
    hash.update(JSON.stringify(evaluation.caseResult));
    for (const result of evaluation.evaluationResults) hash.update(JSON.stringify({ ...result, evaluated_at: "" }));
  }
  return hash.digest("hex");
}

export class ClickHouseSink implements ResultSink {
  readonly counters = { batches: 0, caseResults: 0, metricValues: 0, failures: 0, lastWriteMs: 0 };
  private readonly database: string;

  constructor(
    private readonly connection: ClickHouseConnection,
    private readonly options: ClickHouseSinkOptions = {},
  ) {
    this.database = quoteIdentifier(connection.database);
  }

  async write(batch: readonly CaseEvaluation[]): Promise<Result<void, SinkFailure>> {
    if (batch.length === 0) return success(undefined);
    const started = Date.now();
    const version = (this.options.now ?? Date.now)();
    const rows = batch.map((evaluation) =>
      toRows(evaluation, this.options.datasetOf?.(evaluation.caseResult.case_id, evaluation.caseResult.case_version) ?? "", version),
    );
    const token = deduplicationToken(batch);
    try {
      // Children first: a reader that sees a case result also sees its metrics.
      await this.insert("metric_values", rows.flatMap((row) => row.metricValues), `${token}:m`);
      await this.insert("evaluation_results", rows.flatMap((row) => row.evaluationResults), `${token}:e`);
      await this.insert("case_results", rows.map((row) => row.caseResult), `${token}:c`);
    } catch (error) {
      this.counters.failures += 1;
      const code = (error as { code?: string }).code;
      const message = error instanceof Error ? error.message : String(error);
      return failure({ retriable: code === undefined || !PERMANENT_ERROR_CODES.has(String(code)), message: `ClickHouse insert failed: ${message}` });
    }
    this.counters.batches += 1;
    this.counters.caseResults += batch.length;
    this.counters.metricValues += rows.reduce((total, row) => total + row.metricValues.length, 0);
    this.counters.lastWriteMs = Date.now() - started;
    return success(undefined);
  }

  private async insert(table: string, values: Record<string, unknown>[], token: string): Promise<void> {
    if (values.length === 0) return;
    await this.connection.client.insert({
      table: `${this.database}.${table}`,
      values,
      format: "JSONEachRow",
      clickhouse_settings: { date_time_input_format: "best_effort", insert_deduplication_token: token },
    });
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
