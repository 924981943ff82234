/**
 * JudgeResultSink in memory: as the ClickHouse adapter, it writes the judge's
 * Evaluation Results, then decides each judged case's verdict again over
 * everything stored for it and rewrites the Case Result and its root cause.
 */
import { success, type Result } from "../../core/result.js";
import { decideCaseVerdict } from "../../evaluators/case-verdict.js";
import type { JudgedCase, JudgeResultSink } from "../ports/judge-result-sink.js";
import type { SinkFailure } from "../ports/result-sink.js";
import type { MemoryTables } from "./memory-tables.js";
import { writeCaseResult, writeEvaluationResults } from "./write-evaluation.js";
import { caseResultIdOf, RetriedVersions, RowVersionClock } from "../row-version-clock.js";

export class MemoryJudgeResultSink implements JudgeResultSink {
  private readonly versions: RetriedVersions<JudgedCase>;

  constructor(
    private readonly tables: MemoryTables,
    /** Shared with the store's result sink, as the ClickHouse adapter's (row-version-clock.ts). */
    clock: RowVersionClock = new RowVersionClock(),
  ) {
    this.versions = new RetriedVersions(clock);
  }

  async write(batch: readonly JudgedCase[]): Promise<Result<void, SinkFailure>> {
    if (batch.every((judged) => judged.evaluationResults.length === 0)) return success(undefined);
    // Strictly after this writer's last write, so that a later write wins, and of one case's judged requests in the
    // batch the later. A write here cannot fail, so none is retried.
    const versionOf = this.versions.forWrite(batch, caseResultIdOf);
    for (const judged of batch) writeEvaluationResults(this.tables, judged.caseResult, judged.evaluationResults, versionOf(judged));
    for (const judged of batch) {
      const id = judged.caseResult.case_result_id;
      const stored = this.tables.evaluations.values().filter((entry) => entry.result.case_result_id === id).map((entry) => entry.result);
      // The verdict's evaluation time is its rows' version millisecond, as the ClickHouse adapter's.
      const verdict = decideCaseVerdict(judged.caseResult, judged.evalCase ?? null, stored.length > 0 ? stored : judged.evaluationResults, new Date(versionOf(judged)).toISOString(), undefined, judged.attribution);
      writeEvaluationResults(this.tables, verdict.caseResult, verdict.evaluationResults.filter((item) => item.evaluator_id === "root_cause"), versionOf(judged));
      writeCaseResult(this.tables, verdict.caseResult, versionOf(judged));
    }
    return success(undefined);
  }
}
