/** ResultSink and QuarantineSink in memory. */
import { success, type Result } from "../../core/result.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import type { QuarantineSink, ResultSink, SinkFailure } from "../ports/result-sink.js";
import type { MemoryTables } from "./memory-tables.js";
import { isLateFeedback, planLateFeedback } from "../late-feedback/merge-late-feedback.js";
import { writeCaseResult, writeEvaluationResults } from "./write-evaluation.js";
import { caseResultIdOf, RetriedVersions, RowVersionClock } from "../row-version-clock.js";

export class MemoryResultSink implements ResultSink {
  private readonly versions: RetriedVersions<CaseEvaluation>;

  constructor(
    private readonly tables: MemoryTables,
    /** Shared with the store's judge result sink, as the ClickHouse adapter's (row-version-clock.ts). */
    clock: RowVersionClock = new RowVersionClock(),
  ) {
    this.versions = new RetriedVersions(clock);
  }

  async write(incoming: readonly CaseEvaluation[]): Promise<Result<void, SinkFailure>> {
    let batch = incoming;
    // In the order they arrived: a stored request rewritten with late events before this batch's requests (clickhouse-sink.ts).
    let arrival = incoming;
    if (incoming.some((evaluation) => isLateFeedback(evaluation.caseResult))) {
      // Late user events go onto their request's stored Case Result, as in the ClickHouse sink.
      const traces = new Set(incoming.filter((evaluation) => isLateFeedback(evaluation.caseResult)).map((evaluation) => evaluation.caseResult.trace_id));
      const stored = this.tables.caseResults.values().filter((caseResult) => traces.has(caseResult.trace_id) && !caseResult.rag_observation.partial_trace);
      const plan = planLateFeedback(incoming, stored);
      const rewrites = plan.rewrites.map((caseResult): CaseEvaluation => ({ caseResult, evaluationResults: [] }));
      batch = [...plan.batch, ...rewrites];
      arrival = [...rewrites, ...plan.batch];
    }
    // Strictly after this writer's last write, so that a later write wins, and of one case's requests in the batch the
    // later. A write here cannot fail, so none is retried.
    const versionOf = this.versions.forWrite(arrival, caseResultIdOf);
    for (const evaluation of batch) {
      writeEvaluationResults(this.tables, evaluation.caseResult, evaluation.evaluationResults, versionOf(evaluation));
      writeCaseResult(this.tables, evaluation.caseResult, versionOf(evaluation));
    }
    return success(undefined);
  }

  async close(): Promise<void> {}
}

export interface QuarantinedResult {
  caseResultId: string;
  error: string;
  evaluation: CaseEvaluation;
}

/** A Case Result quarantined again replaces its entry: the later is kept, as the ClickHouse adapter's row versions keep it. */
export class MemoryQuarantine implements QuarantineSink {
  private readonly entries = new Map<string, QuarantinedResult>();

  async quarantine(evaluations: readonly CaseEvaluation[], error: string): Promise<Result<void, SinkFailure>> {
    for (const evaluation of evaluations) this.entries.set(evaluation.caseResult.case_result_id, { caseResultId: evaluation.caseResult.case_result_id, error, evaluation });
    return success(undefined);
  }

  /** What was quarantined, one entry per Case Result, the latest winning. */
  quarantined(): QuarantinedResult[] {
    return [...this.entries.values()];
  }
}
