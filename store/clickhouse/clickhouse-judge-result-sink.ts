/**
 * Writes judge results to ClickHouse (`evaluation_results`, `metric_values`),
 * with the row layout of the rule stage (result-rows.ts).
 *
 * Replays replace, never add: Evaluation Result ids are deterministic
 * (case_result_id, evaluator id, version — contracts/ids.ts), the tables are
 * ReplacingMergeTree, and readers use FINAL. The insert deduplication token
 * is a hash of the rows' content (not of the Case Result id alone, as the rule
 * stage's is): a judge result that changed — a trace re-opened with more spans
 * was judged again — must not be dropped as a duplicate of the first insert,
 * while a retried insert of the same rows is.
 */
import { createHash } from "node:crypto";
import { evaluationResult as evaluationResultSchema } from "../../contracts/evaluation-result.js";
import { decideCaseVerdict } from "../../evaluators/case-verdict.js";
import { failure, success, type Result } from "../../core/result.js";
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";
import type { SinkFailure } from "../ports/result-sink.js";
import { toRows } from "./result-rows.js";
import type { ClickHouseMetricRollups } from "./metric-rollups.js";
import { writtenRequests } from "./clickhouse-sink.js";
import type { JudgedCase, JudgeResultSink } from "../ports/judge-result-sink.js";
import { clickHouseErrorCode } from "./clickhouse-error-code.js";
import { caseResultIdOf, RetriedVersions, RowVersionClock } from "../row-version-clock.js";

/** ClickHouse error codes a retry cannot fix (unknown table/column, syntax, type). */
const PERMANENT_ERROR_CODES = new Set(["60", "16", "62", "53", "27", "6", "117"]);

export interface ClickHouseJudgeResultSinkOptions {
  now?: () => number;
  /** The writer's row versions (row-version-clock.ts), shared with the store's result sink; default: one of its own on `now`. */
  versions?: RowVersionClock;
  /** The dashboards' rollups: judge metrics are on the boards too (metric-rollups.ts). */
  rollups?: ClickHouseMetricRollups;
}

export class ClickHouseJudgeResultSink implements JudgeResultSink {
  readonly counters = { batches: 0, evaluationResults: 0, metricValues: 0, failures: 0 };
  private readonly database: string;
  private readonly versions: RetriedVersions<JudgedCase>;

  constructor(
    private readonly connection: ClickHouseConnection,
    private readonly options: ClickHouseJudgeResultSinkOptions = {},
  ) {
    this.database = quoteIdentifier(connection.database);
    this.versions = new RetriedVersions(options.versions ?? new RowVersionClock(options.now));
  }

  async write(batch: readonly JudgedCase[]): Promise<Result<void, SinkFailure>> {
    // Strictly after this writer's last write, so that a later write wins, and of one case's judged requests in the
    // batch the later; a retry keeps its first attempt's (row-version-clock.ts).
    const versionOf = this.versions.forWrite(batch, caseResultIdOf);
    // Judge results keep a NULL row for a metric without a value: a judge that failed this time hides the value it gave before.
    const rows = batch.map((judged) => toRows(judged, "", versionOf(judged), { tombstones: true }));
    const evaluationRows = rows.flatMap((row) => row.evaluationResults);
    const metricRows = rows.flatMap((row) => row.metricValues);
    if (evaluationRows.length === 0) return success(undefined);
    const token = createHash("sha256")
      .update(JSON.stringify(batch.map((judged) => judged.evaluationResults)))
      .digest("hex");
    try {
      // Children first, as the rule stage: a reader that sees a result also sees its metrics.
      await this.insert("metric_values", metricRows, `judge:${token}:m`);
      await this.insert("evaluation_results", evaluationRows, `judge:${token}:e`);
      await this.rewriteVerdicts(batch, versionOf, token);
    } catch (error) {
      this.counters.failures += 1;
      this.versions.failedWith(batch, versionOf);
      const code = clickHouseErrorCode(error);
      return failure({ retriable: code === null || !PERMANENT_ERROR_CODES.has(code), message: `ClickHouse insert of judge results failed: ${error instanceof Error ? error.message : String(error)}` });
    }
    this.versions.written(batch);
    this.options.rollups?.note(writtenRequests(batch));
    this.counters.batches += 1;
    this.counters.evaluationResults += evaluationRows.length;
    this.counters.metricValues += metricRows.length;
    return success(undefined);
  }

  /**
   * Decides each judged case's verdict again over everything stored for it
   * (rule results, earlier judge results, the results just written) and
   * rewrites its Case Result row and root cause; a newer version replaces the
   * rule stage's row.
   */
  private async rewriteVerdicts(batch: readonly JudgedCase[], versionOf: (judged: JudgedCase) => number, token: string): Promise<void> {
    const ids = batch.map((judged) => judged.caseResult.case_result_id);
    const result = await this.connection.client.query({
      query: `SELECT payload FROM ${this.database}.evaluation_results FINAL WHERE case_result_id IN {ids:Array(String)}`,
      query_params: { ids },
      format: "JSONEachRow",
    });
    const stored = new Map<string, ReturnType<typeof evaluationResultSchema.parse>[]>();
    for (const row of await result.json<{ payload: string }>()) {
      const parsed = evaluationResultSchema.parse(JSON.parse(row.payload));
      stored.set(parsed.case_result_id, [...(stored.get(parsed.case_result_id) ?? []), parsed]);
    }
    // The verdict's evaluation time is its rows' version millisecond: the clock's, or a few milliseconds after it while
    // writes come faster than they take versions (row-version-clock.ts); a retry keeps both.
    const verdicts = batch.map((judged) =>
      decideCaseVerdict(judged.caseResult, judged.evalCase ?? null, stored.get(judged.caseResult.case_result_id) ?? judged.evaluationResults, new Date(versionOf(judged)).toISOString(), undefined, judged.attribution),
    );
    const rows = verdicts.map((verdict, index) =>
      toRows({ caseResult: verdict.caseResult, evaluationResults: verdict.evaluationResults.filter((item) => item.evaluator_id === "root_cause") }, "", versionOf(batch[index]!)),
    );
    await this.insert("evaluation_results", rows.flatMap((row) => row.evaluationResults), `judge:${token}:r`);
    await this.insert("case_results", rows.map((row) => row.caseResult), `judge:${token}:c`);
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
}
