/**
 * A ResultSink that records what passes through it for the collector's
 * metrics: traces and spans evaluated (offered to the sink for the first
 * time) and written, failed writes, and the latency of each write. It wraps
 * the real sink (ClickHouse) and changes nothing else.
 *
 * The worker offers the same evaluations again after a failed write; those
 * are remembered (by case result id and trace, until written) so they count
 * once. By trace too: a case sent twice in one run keeps its Case Result id
 * under each request, and two such requests in one write are two traces.
 */

/** An evaluation's identity for the retry bookkeeping: its Case Result and the request (trace) it was rebuilt from. */
function offeredKey(evaluation: CaseEvaluation): string {
  return `${evaluation.caseResult.case_result_id}\u0000${evaluation.caseResult.trace_id}`;
}
import type { Result } from "../../../core/result.js";
import type { CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import type { ResultSink, SinkFailure } from "../../../store/ports/result-sink.js";
import type { Histogram } from "./metrics-registry.js";

export class MeasuredSink implements ResultSink {
  readonly counters = {
    writes: 0,
    failures: 0,
    tracesEvaluated: 0,
    spansEvaluated: 0,
    traces: 0,
    spans: 0,
    metricValues: 0,
    lastFailure: null as string | null,
    lastSuccessAt: 0,
  };
  private readonly offered = new Set<string>();
  private slowestSinceTaken: number | null = null;

  /** The slowest write (ms) since the previous call, for health snapshots, or null when there was none; resets it. */
  takeSlowestWriteMs(): number | null {
    const slowest = this.slowestSinceTaken;
    this.slowestSinceTaken = null;
    return slowest;
  }

  constructor(
    private readonly sink: ResultSink,
    private readonly latency: Histogram | null,
  ) {}

  async write(batch: readonly CaseEvaluation[]): Promise<Result<void, SinkFailure>> {
    for (const evaluation of batch) {
      const key = offeredKey(evaluation);
      if (this.offered.has(key)) continue;
      this.offered.add(key);
      this.counters.tracesEvaluated += 1;
      this.counters.spansEvaluated += evaluation.caseResult.rag_observation.span_count;
    }
    const started = performance.now();
    const written = await this.sink.write(batch);
    const elapsedMs = performance.now() - started;
    this.latency?.observe(elapsedMs / 1000);
    this.slowestSinceTaken = Math.max(this.slowestSinceTaken ?? 0, elapsedMs);
    if (!written.ok) {
      this.counters.failures += 1;
      this.counters.lastFailure = written.error.message;
      return written;
    }
    this.counters.writes += 1;
    this.counters.traces += batch.length;
    for (const evaluation of batch) {
      this.offered.delete(offeredKey(evaluation));
      this.counters.spans += evaluation.caseResult.rag_observation.span_count;
      for (const result of evaluation.evaluationResults) this.counters.metricValues += Object.keys(result.metric_values).length;
    }
    this.counters.lastSuccessAt = Date.now();
    return written;
  }

  close(): Promise<void> {
    return this.sink.close();
  }
}
