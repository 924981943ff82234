/**
 * Where Case Results go that the store refuses as bad data: the
 * `quarantined_results` table (migration 0005), one row per result with the
 * engine's error and the whole evaluation as JSON. Written as JSONEachRow
 * through the client, so no value is ever part of the SQL text.
 */
import { failure, success, type Result } from "../../core/result.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import { quoteIdentifier, type ClickHouseConnection } from "./clickhouse-connection.js";
import type { QuarantineSink, SinkFailure } from "../ports/result-sink.js";
import { RowVersionClock } from "../row-version-clock.js";

export class ClickHouseQuarantine implements QuarantineSink {
  readonly counters = { results: 0, failures: 0 };

  constructor(
    private readonly connection: ClickHouseConnection,
    /** When a result was quarantined: the clock's time, as recorded (quarantined_at). */
    private readonly now: () => number = Date.now,
    /**
     * The store's row versions (row-version-clock.ts): a case refused again (its Case Result id, the table's key)
     * replaces its earlier row whatever the clock did meanwhile, as the in-memory quarantine does; versioned by the
     * clock alone, a clock stepped back kept the earlier error.
     */
    private readonly versions: RowVersionClock = new RowVersionClock(now),
  ) {}

  async quarantine(evaluations: readonly CaseEvaluation[], error: string): Promise<Result<void, SinkFailure>> {
    if (evaluations.length === 0) return success(undefined);
    const at = this.now();
    const version = this.versions.next();
    try {
      await this.connection.client.insert({
        table: `${quoteIdentifier(this.connection.database)}.quarantined_results`,
        format: "JSONEachRow",
        values: evaluations.map((evaluation) => ({
          case_result_id: evaluation.caseResult.case_result_id,
          trace_id: evaluation.caseResult.trace_id,
          run_id: evaluation.caseResult.run_id,
          case_id: evaluation.caseResult.case_id,
          error,
          payload: JSON.stringify(evaluation),
          quarantined_at: at,
          version,
        })),
      });
    } catch (cause) {
      this.counters.failures += 1;
      // Retriable: the quarantine table takes any string, so a failure here is the store being unavailable.
      return failure({ retriable: true, message: `writing to the quarantine table failed: ${cause instanceof Error ? cause.message : String(cause)}` });
    }
    this.counters.results += evaluations.length;
    return success(undefined);
  }
}
