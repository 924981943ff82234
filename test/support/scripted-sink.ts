/** A ResultSink for collector unit tests: each write resolves when the test says so. */
import { failure, success, type Result } from "../../core/result.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import type { ResultSink, SinkFailure } from "../../store/ports/result-sink.js";

/** A sink whose writes resolve when the test says so; it records what it was given and how many writes overlapped. */
export class ScriptedSink implements ResultSink {
  readonly writes: { traceIds: string[]; evaluations: readonly CaseEvaluation[]; settled: boolean; settle: (result: Result<void, SinkFailure>) => void }[] = [];
  private active = 0;
  maxActive = 0;

  write(batch: readonly CaseEvaluation[]): Promise<Result<void, SinkFailure>> {
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    return new Promise((resolve) => {
      const write = {
        traceIds: batch.map((evaluation) => evaluation.caseResult.trace_id),
        evaluations: batch,
        settled: false,
        settle: (result: Result<void, SinkFailure>) => {
          if (write.settled) return;
          write.settled = true;
          this.active -= 1;
          resolve(result);
        },
      };
      this.writes.push(write);
    });
  }

  succeed(index: number): void {
    this.writes[index]!.settle(success(undefined));
  }

  fail(index: number): void {
    this.writes[index]!.settle(failure({ retriable: true, message: "the engine is down" }));
  }

  /** Resolves every write still waiting as stored (a test's clean-up, so that nothing waits on the sink forever). */
  succeedAll(): void {
    for (const write of this.writes) write.settle(success(undefined));
  }

  async close(): Promise<void> {}
}

