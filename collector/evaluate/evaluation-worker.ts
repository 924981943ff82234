/**
 * The consumer side of the collector, the same for the in-process bus and
 * Kafka: decode bus messages → assemble traces → (when a trace is ready)
 * normalize, rebuild the Case Result, evaluate, write to the sink → mark the
 * trace durable so its messages' offsets may be committed.
 *
 * A message that cannot be decoded goes to the dead-letter handler with the
 * reason and is done; it never stops the stream. A sink write that fails is
 * retried (retriable failures) with backoff; while it fails, `ingest` is not
 * called by the runner (backpressure), and nothing is marked durable.
 */
import type { EvalCase } from "../../contracts/eval-case.js";
import { evaluateCaseResult, type CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import type { EvaluatorRegistry } from "../../evaluators/evaluator-registry.js";
import { TraceAssembler, type AssembledTrace, type AssemblerOptions } from "../assemble/trace-assembler.js";
import type { BusPosition, DeliveredMessage } from "../bus/trace-bus.js";
import type { CaseStore } from "../cases/case-store.js";
import { ProgressTracker } from "../consume/progress-tracker.js";
import { createMapperRegistry } from "../normalize/normalize-spans.js";
import { decodeTraceRequest, detectEncoding, toSpanRecords } from "../otlp/index.js";
import { rebuildCaseResult } from "../rebuild/rebuild-case-result.js";
import { retry, type RetryPolicy } from "../retry/retry.js";
import type { ResultSink, SinkFailure } from "../sink/result-sink.js";

export interface DeadLetter {
  message: DeliveredMessage;
  reason: string;
}

export interface DeadLetterHandler {
  send(letter: DeadLetter): Promise<void>;
}

export interface EvaluationWorkerOptions {
  assembler: AssemblerOptions;
  registry: EvaluatorRegistry;
  cases: CaseStore;
  sink: ResultSink;
  deadLetters: DeadLetterHandler;
  sinkRetry: RetryPolicy;
  /** Largest number of Case Results per sink write. */
  maxBatch: number;
  clock?: () => number;
  signal?: AbortSignal;
  /**
   * Called after each successful sink write with the traces just written,
   * before they count as durable (collector/online/online-stage.ts hands
   * sampled traces to the judge queue and values to the alerts here). It
   * must only enqueue, never judge, and must not throw; a throw is counted
   * and reported, and the traces still count as durable.
   */
  afterWrite?: (evaluations: readonly CaseEvaluation[]) => Promise<void>;
}

export class EvaluationWorker {
  readonly assembler: TraceAssembler<BusPosition>;
  readonly progress = new ProgressTracker();
  private readonly normalize = createMapperRegistry();
  readonly counters = { messages: 0, spans: 0, deadLetters: 0, tracesEvaluated: 0, partialTraces: 0, unknownCases: 0, sinkRetries: 0, sinkFailures: 0, afterWriteFailures: 0 };
  private readonly clock: () => number;
  private readonly unwritten: { trace: AssembledTrace<BusPosition>; evaluation: CaseEvaluation }[] = [];
  lastSinkError: string | null = null;
  lastAfterWriteError: string | null = null;

  constructor(private readonly options: EvaluationWorkerOptions) {
    this.assembler = new TraceAssembler<BusPosition>(options.assembler);
    this.clock = options.clock ?? Date.now;
  }

  /** Decodes messages and buffers their spans. */
  async ingest(messages: readonly DeliveredMessage[]): Promise<void> {
    const now = this.clock();
    for (const message of messages) {
      this.counters.messages += 1;
      const decoded = decodeTraceRequest(message.value, detectEncoding(message.value));
      if (!decoded.ok) {
        this.counters.deadLetters += 1;
        await this.options.deadLetters.send({ message, reason: `undecodable OTLP (${detectEncoding(message.value)}): ${decoded.error.message}` });
        this.progress.received(message.position, []);
        continue;
      }
      const spans = toSpanRecords(decoded.value);
      this.counters.spans += spans.length;
      this.progress.received(message.position, new Set(spans.map((span) => span.traceId)));
      this.assembler.add(spans, now, message.position);
    }
  }

  /**
   * Evaluates and writes every trace that is ready. Returns false when the sink
   * stayed down past the retry policy: the traces are kept (not durable, not
   * committed) and the caller tries again later.
   */
  async processReady(flushAll = false): Promise<boolean> {
    const ready = flushAll ? this.assembler.flush() : this.assembler.collectReady(this.clock());
    for (const trace of ready) this.unwritten.push({ trace, evaluation: await this.evaluate(trace) });
    while (this.unwritten.length > 0) {
      const slice = this.unwritten.slice(0, this.options.maxBatch);
      const written = await retry<void, SinkFailure>(() => this.options.sink.write(slice.map((item) => item.evaluation)), this.options.sinkRetry, {
        onRetry: () => {
          this.counters.sinkRetries += 1;
        },
        signal: this.options.signal,
      });
      if (!written.ok) {
        // Kept in `unwritten`: written on the next call, never marked durable before.
        this.counters.sinkFailures += 1;
        this.lastSinkError = written.error.message;
        return false;
      }
      this.unwritten.splice(0, slice.length);
      await this.runAfterWrite(slice.map((item) => item.evaluation));
      for (const item of slice) {
        this.progress.durable(item.trace.traceId);
        this.counters.tracesEvaluated += 1;
        if (!item.trace.complete) this.counters.partialTraces += 1;
      }
    }
    return true;
  }

  private async runAfterWrite(evaluations: CaseEvaluation[]): Promise<void> {
    if (!this.options.afterWrite) return;
    try {
      await this.options.afterWrite(evaluations);
    } catch (error) {
      this.counters.afterWriteFailures += 1;
      this.lastAfterWriteError = error instanceof Error ? error.message : String(error);
    }
  }

  /** Evaluated traces waiting for the sink. */
  get backlog(): number {
    return this.unwritten.length;
  }

  private async evaluate(trace: AssembledTrace<BusPosition>): Promise<CaseEvaluation> {
    const normalized = trace.spans.map((span) => this.normalize(span));
    const caseResult = rebuildCaseResult(trace, normalized);
    let evalCase: EvalCase | null = null;
    if (caseResult.case_id !== "") {
      evalCase = await this.options.cases.get(caseResult.case_id, caseResult.case_version);
      if (!evalCase) this.counters.unknownCases += 1;
    }
    return evaluateCaseResult(this.options.registry, caseResult, evalCase, new Date(this.clock()).toISOString());
  }
}
