/**
 * The consumer side of the collector, the same for the in-process bus and
 * Kafka: decode bus messages → assemble traces → (when a trace is ready)
 * normalize, rebuild the Case Result, evaluate, write to the sink → mark the
 * trace durable so its messages' offsets may be committed.
 *
 * A trace that records no RAG request (an index being built: rag-request-evidence.ts)
 * is no Case Result: counted by reason (`tracesWithoutRequest`) and done.
 *
 * A message that cannot be decoded goes to the dead-letter handler with the
 * reason and is done; it never stops the stream. So does a rebuilt Case
 * Result that fails its schema (contracts/case-result.ts): it is dead-lettered
 * with the schema's reasons instead of being stored. A sink write that fails is
 * retried (retriable failures) with backoff; while it fails, `ingest` is not
 * called by the runner (backpressure), and nothing is marked durable. A write
 * the store refuses for a value in it (`rejectsData`: a type or a constraint)
 * is split in halves until each refused result stands alone; those go to the
 * quarantine with the store's error, the rest is written, and all of them
 * count as durable (stored or quarantined), so a poison result cannot stall
 * the pipeline. Tables the sink wrote before the one that refused keep the
 * refused result's rows (the sink writes metric values, then evaluation
 * results, then case results; a Case Result refused by the last has its
 * metric rows stored).
 *
 * Writes are pipelined, one at a time: a write is handed to the sink and left
 * in flight while the next ready traces are evaluated; the next write starts
 * only after it succeeded. So the engine inserts while this thread evaluates,
 * and still
 * - a trace is marked durable only after the write holding it resolved, and
 *   the traces of a write only after every earlier write succeeded (a failed
 *   write stays first in line, the later results wait behind it);
 * - results reach the sink in the order they were evaluated, so row versions
 *   (taken from the clock at write time) follow that order;
 * - at most one write is in flight, and `overflow` tells the caller when more
 *   waits than the pipeline holds by design, to stop reading (backpressure).
 * A trace that receives spans again while its earlier result is being written
 * (late spans re-open it) is not marked durable by that write: the messages
 * that re-opened it stay uncommitted until the re-opened trace is written.
 */
import type { LogEventRecord } from "../00-otlp/log-event-record.js";
import { boundedRawSpans } from "./bounded-raw-spans.js";
import { caseResult as caseResultSchema, MALFORMED_ATTRIBUTE_KINDS, type CaseResult, type MalformedAttributeKind } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import { evalCaseFor, evalCaseTenant } from "../../contracts/eval-case-tenant.js";
import type { OtherTenantsCase } from "./unknown-case-notice.js";
import type { Result } from "../../core/result.js";
import { evaluateCaseResult, type CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import type { EvaluatorRegistry } from "../../evaluators/evaluator-registry.js";
import type { AttributionOptions } from "../../evaluators/root-cause/index.js";
import { assembledTraceKey, TraceAssembler, type AssembledTrace, type AssemblerOptions } from "../05-assemble/trace-assembler.js";
import { CountedOncePerTrace } from "./counted-once-per-trace.js";
import type { BusPosition, DeliveredMessage } from "../02-transport/trace-bus.js";
import type { SourceRecord } from "../02-transport/trace-source.js";
import type { CaseStore } from "../../store/ports/case-store.js";
import { ProgressTracker } from "../03-consume/progress-tracker.js";
import { createTraceNormalizer } from "../04-normalize/normalize-spans.js";
import { decodeTraceRequest, detectEncoding, toSpanRecords } from "../00-otlp/index.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import { rebuildCaseResult } from "../06-rebuild/rebuild-case-result.js";
import { NO_REQUEST_REASONS, whyNotARequest, type NoRequestReason } from "../06-rebuild/rag-request-evidence.js";
import { retry, type RetryPolicy } from "../../core/retry.js";
import { failure, success } from "../../core/result.js";
import type { QuarantineSink, ResultSink, SinkFailure } from "../../store/ports/result-sink.js";

export interface DeadLetter {
  message: DeliveredMessage;
  reason: string;
  /** A short code for the dead-letter headers and metrics; `undecodable` when absent. */
  code?: "undecodable" | "invalid_case_result" | "store_refused_at_stop";
}

export interface DeadLetterHandler {
  send(letter: DeadLetter): Promise<void>;
}

export interface EvaluationWorkerOptions {
  assembler: AssemblerOptions;
  registry: EvaluatorRegistry;
  cases: CaseStore;
  sink: ResultSink;
  /** Where results the store refuses as bad data go; without one, such a write is retried like any failure. */
  quarantine?: QuarantineSink;
  deadLetters: DeadLetterHandler;
  sinkRetry: RetryPolicy;
  /** Largest number of Case Results per sink write. */
  maxBatch: number;
  /**
   * Largest estimated bytes of the traces of one sink write (at least one
   * trace is written). Each table's insert body is one string, and V8 caps a
   * string at ~512 M characters: a count alone let a batch of large traces
   * pass it ("Invalid string length"). Default 64 MiB.
   */
  maxBatchBytes?: number;
  clock?: () => number;
  signal?: AbortSignal;
  /**
   * Called after each successful sink write with the traces just written,
   * before they count as durable (collector/wiring/online/online-stage.ts hands
   * sampled traces to the judge queue and values to the alerts here). It
   * must only enqueue, never judge, and must not throw; a throw is counted
   * and reported, and the traces still count as durable.
   */
  afterWrite?: (evaluations: readonly CaseEvaluation[]) => Promise<void>;
  /**
   * Told, for each trace whose result became durable, the seconds since its last span was received (where the
   * transport stamps arrivals; else since it was read): the quiet period, evaluation and the write. The collector
   * exposes it as ragscope_trace_freshness_seconds.
   */
  freshness?: { observe(seconds: number): void };
  /** Told of each trace naming a case id and version no stored Eval Case has, or only another tenant's (`tenants`; unknown-case-notice.ts). */
  onUnknownCase?: (caseId: string, caseVersion: string, traceId: string, tenants?: OtherTenantsCase) => void;
  /** For the root cause of failed cases: the corpus index of `ragscope eval --corpus` (DATA_MISSING); absent: none. */
  attribution?: AttributionOptions;
}

/** What is counted once per trace (CountedOncePerTrace): the kinds of notes on its Case Result, and naming an unknown Eval Case. */
type CountedPerTrace = MalformedAttributeKind | "unknown_case";

/** EvaluationWorkerOptions.maxBatchBytes when not set. */
export const DEFAULT_MAX_BATCH_BYTES = 64 * 1024 * 1024;

/** Longest stretch of evaluation without giving I/O callbacks a turn. */
const YIELD_EVERY_MS = 5;

interface PendingResult {
  trace: AssembledTrace<BusPosition>;
  evaluation: CaseEvaluation;
  /** The trace's last received message when it was released (see `accept`). */
  receivedUpTo: number;
}

/** How a write ended: `bug` is an exception from the sink (a bug, not a failure value), rethrown by `settle`. */
interface WriteOutcome {
  ok: boolean;
  bug?: unknown;
}

export class EvaluationWorker {
  readonly assembler: TraceAssembler<BusPosition>;
  readonly progress = new ProgressTracker();
  private readonly normalize = createTraceNormalizer();
  readonly counters = {
    messages: 0,
    spans: 0,
    deadLetters: 0,
    tracesEvaluated: 0,
    partialTraces: 0,
    /** Traces naming an Eval Case the store does not hold (for their tenant), once per trace (counted-once-per-trace.ts). */
    unknownCases: 0,
    sinkRetries: 0,
    sinkFailures: 0,
    afterWriteFailures: 0,
    /** JSON-valued span attributes that did not parse (rag_observation.malformed_attributes), all traces together. */
    malformedJsonAttributes: 0,
    /** Identifiers refused at ingestion (contracts/identifiers.ts): left empty and noted on the Case Result. */
    rejectedIdentifiers: 0,
    /** Rebuilt Case Results that failed their schema: dead-lettered, not stored. */
    invalidCaseResults: 0,
    /** Results the store refused for their values: kept in the quarantine table, not retried. */
    quarantined: 0,
  };
  /**
   * The notes of rebuilt Case Results' `rag_observation.malformed_attributes`, by kind, all traces together, every
   * kind from the start at 0 (ragscope_malformed_attributes_total): counted where Case Results are rebuilt, so
   * `serve` and the Kafka evaluator count alike; each note once per trace, a trace that late spans re-open adding
   * only the notes it did not have (counted-once-per-trace.ts).
   */
  readonly malformedAttributesByKind: Record<MalformedAttributeKind, number> = Object.fromEntries(MALFORMED_ATTRIBUTE_KINDS.map((kind) => [kind, 0])) as Record<MalformedAttributeKind, number>;
  /** What the counters above and `unknownCases` counted per recent trace: a trace that late spans re-open is counted once. */
  private readonly countedPerTrace: CountedOncePerTrace<CountedPerTrace>;
  /**
   * Traces that record no RAG request (rag-request-evidence.ts: an index being built, a service's other spans), by
   * reason: not rebuilt into Case Results, not stored, counted here (ragscope_traces_without_request_total).
   */
  readonly tracesWithoutRequest: Record<NoRequestReason, number> = Object.fromEntries(NO_REQUEST_REASONS.map((reason) => [reason, 0])) as Record<NoRequestReason, number>;
  /**
   * Milliseconds spent, all together: evaluating (normalize, rebuild, rule
   * evaluators); in the sink's calls on this thread, until each hands its
   * first insert over; and from there until writes resolve (the engine or the
   * server, retries included), which overlaps evaluation.
   */
  readonly timings = { evaluateMs: 0, sinkCallMs: 0, sinkWaitMs: 0 };
  private readonly clock: () => number;
  /** Evaluated, not yet durable, oldest first; the write in flight holds the first `writing` of them. */
  private readonly unwritten: PendingResult[] = [];
  private writing = 0;
  private inFlight: Promise<WriteOutcome> | null = null;
  /** From a write's first failed attempt until a write succeeds: everything not durable then counts as overflow. */
  private sinkDown = false;
  /** Traces taken from the assembler and not yet evaluated. */
  private evaluating = 0;
  /** Per trace: the sequence number of the last message that fed it, while a result of it may be pending. */
  private readonly lastReceived = new Map<string, number>();
  private receivedSequence = 0;
  lastSinkError: string | null = null;
  lastAfterWriteError: string | null = null;
  lastQuarantineReason: string | null = null;

  /**
   * When the event loop last had a turn. Kept across calls: the source driver
   * hands messages to `ingest` one at a time, and a slice that restarted with
   * each call never yielded — ten 3 MiB messages of one large request were
   * decoded back to back, holding every other client for most of a second.
   */
  private yieldedAt = performance.now();

  /** Gives the event loop a turn once the current slice has run YIELD_EVERY_MS. */
  private async yieldWhenDue(): Promise<void> {
    if (performance.now() - this.yieldedAt < YIELD_EVERY_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.yieldedAt = performance.now();
  }

  constructor(private readonly options: EvaluationWorkerOptions) {
    this.assembler = new TraceAssembler<BusPosition>(options.assembler);
    this.countedPerTrace = new CountedOncePerTrace(options.assembler.recentTraceMemory);
    this.clock = options.clock ?? Date.now;
  }

  /** Buffers one record of a TraceSource: decoded spans as they are, an encoded message once decoded. */
  async ingestRecord(record: SourceRecord): Promise<void> {
    if (record.kind === "encoded") return this.ingest([record.message], record.receivedAt);
    this.counters.messages += 1;
    this.counters.spans += record.spans.length;
    this.accept(record.spans, record.traceIds, record.position, record.receivedAt, record.logEvents);
  }

  /** Decodes messages and buffers their spans, as received at `receivedAt` (default: now). */
  async ingest(messages: readonly DeliveredMessage[], receivedAt?: number): Promise<void> {
    const now = receivedAt ?? this.clock();
    for (const message of messages) {
      // Large messages are decoded in slices: between them the receiver answers its clients.
      await this.yieldWhenDue();
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
      this.accept(spans, new Set(spans.map((span) => span.traceId)), message.position, now);
    }
  }

  /**
   * Buffers the spans of one decoded message and records which traces it fed
   * (for commits). Everything that reaches the assembler comes through here,
   * so the worker knows when a trace receives spans after it was released.
   */
  accept(spans: readonly SpanRecord[], traceIds: Iterable<string>, position: BusPosition, now: number = this.clock(), logEvents: readonly LogEventRecord[] = []): void {
    this.assembler.add(spans, now, position, logEvents);
    const fed = [...traceIds];
    this.progress.received(position, fed);
    if (fed.length === 0) return;
    this.receivedSequence += 1;
    for (const traceId of fed) this.lastReceived.set(traceId, this.receivedSequence);
  }

  /**
   * Evaluates every trace that is ready and hands the results to the sink,
   * one batch (`maxBatch`) at a time, each batch evaluated while the write
   * before it is in flight. Returns with the last write still in flight
   * (`settle` waits for it), except for `flushAll`, which returns once
   * everything is written. Returns false when the sink stayed down past the
   * retry policy: the results are kept (not durable, not committed), every
   * ready trace evaluated and queued behind them, and the caller tries again
   * later. `readThrough`: every span received before it has been handed to
   * the worker (the driver knows from its source; default now), so a quiet
   * period that ended by then is over.
   */
  async processReady(flushAll = false, readThrough: number = this.clock()): Promise<boolean> {
    const ready = flushAll ? this.assembler.flush() : this.assembler.collectReady(readThrough);
    const releases = ready.map((trace) => this.lastReceived.get(trace.traceId) ?? 0);
    this.evaluating += ready.length;
    let next = 0;
    const evaluateUpTo = async (end: number) => {
      for (; next < end; next += 1) {
        const trace = ready[next]!;
        const evaluation = await this.evaluate(trace);
        if (evaluation !== null) this.unwritten.push({ trace, evaluation, receivedUpTo: releases[next]! });
        else this.settleRejected(trace, releases[next]!);
        this.evaluating -= 1;
        // Let I/O in between: the write in flight moves on to its next insert, and the consumer keeps fetching and heartbeating.
        await this.yieldWhenDue();
      }
    };
    try {
      for (;;) {
        await evaluateUpTo(Math.min(ready.length, next + this.options.maxBatch));
        if (!(await this.settle())) {
          // Nothing may be lost: what was taken from the assembler waits behind the failed write.
          await evaluateUpTo(ready.length);
          return false;
        }
        if (this.unwritten.length === 0) break;
        this.startWrite();
        if (next === ready.length && this.unwritten.length === this.writing) break;
      }
    } finally {
      // Only an exception (a bug) leaves traces unevaluated: they are dropped with it, as before.
      this.evaluating -= ready.length - next;
    }
    return flushAll ? this.settle() : true;
  }

  /** Waits for the write in flight, if any: true when it (and so everything before it) is durable. */
  async settle(): Promise<boolean> {
    const inFlight = this.inFlight;
    if (inFlight === null) return true;
    const outcome = await inFlight;
    if (this.inFlight === inFlight) this.inFlight = null;
    if (outcome.bug !== undefined) throw outcome.bug;
    return outcome.ok;
  }

  private startWrite(): void {
    const maxBytes = this.options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES;
    let end = 0;
    let bytes = 0;
    while (end < this.unwritten.length && end < this.options.maxBatch && (end === 0 || bytes + this.unwritten[end]!.trace.bytes <= maxBytes)) {
      bytes += this.unwritten[end]!.trace.bytes;
      end += 1;
    }
    const slice = this.unwritten.slice(0, end);
    this.writing = slice.length;
    // Never rejects: a bug is kept in the outcome and rethrown by `settle`, so it cannot go unhandled meanwhile.
    this.inFlight = this.write(slice).catch((bug: unknown) => {
      this.writing = 0;
      return { ok: false, bug };
    });
  }

  private async write(slice: PendingResult[]): Promise<WriteOutcome> {
    const evaluations = slice.map((item) => item.evaluation);
    let written: Result<readonly CaseEvaluation[], SinkFailure> = await this.retriedWrite(evaluations);
    if (!written.ok && written.error.rejectsData && this.options.quarantine) written = await this.isolate(evaluations, written.error, this.options.quarantine);
    if (!written.ok) {
      // Kept first in `unwritten`: written again before anything later, never marked durable before.
      this.writing = 0;
      this.sinkDown = true;
      this.counters.sinkFailures += 1;
      this.lastSinkError = written.error.message;
      return { ok: false };
    }
    await this.runAfterWrite(written.value);
    this.unwritten.splice(0, slice.length);
    this.writing = 0;
    this.sinkDown = false;
    for (const item of slice) {
      const traceId = item.trace.traceId;
      const received = this.lastReceived.get(traceId) ?? 0;
      // Spans arrived after this result was taken: their messages wait for the re-opened trace's result.
      if (received > item.receivedUpTo) continue;
      this.lastReceived.delete(traceId);
      this.progress.durable(traceId);
    }
    const durableAt = this.clock();
    for (const item of slice) {
      this.counters.tracesEvaluated += 1;
      if (!item.trace.complete) this.counters.partialTraces += 1;
      this.options.freshness?.observe((durableAt - item.trace.lastSpanAt) / 1000);
    }
    return { ok: true };
  }

  /** One write with the retry policy; resolves with what was stored. */
  private async retriedWrite(evaluations: CaseEvaluation[]): Promise<Result<readonly CaseEvaluation[], SinkFailure>> {
    const written = await retry<void, SinkFailure>(() => this.timedWrite(evaluations), this.options.sinkRetry, {
      onRetry: (_attempt, _delay, failed) => {
        this.counters.sinkRetries += 1;
        this.sinkDown = true;
        // Said while the retries go on (readiness, the operator's notice), not only once they are spent.
        this.lastSinkError = failed.message;
      },
      signal: this.options.signal,
    });
    return written.ok ? success(evaluations) : written;
  }

  /**
   * The store refused a value in `evaluations`: writes each half on its own,
   * halving again where the refusal recurs, until each refused result stands
   * alone and goes to the quarantine. Resolves with the results stored. A
   * failure that is not about the data (the store went away meanwhile) ends
   * it: the whole slice stays first in line and is written again later (what
   * was stored then is written again, which the row ids make harmless).
   */
  private async isolate(evaluations: CaseEvaluation[], refused: SinkFailure, quarantine: QuarantineSink): Promise<Result<readonly CaseEvaluation[], SinkFailure>> {
    if (evaluations.length === 1) {
      const kept = await retry<void, SinkFailure>(() => quarantine.quarantine(evaluations, refused.message), this.options.sinkRetry, { signal: this.options.signal });
      if (!kept.ok) return failure(kept.error);
      this.counters.quarantined += 1;
      this.lastQuarantineReason = refused.message;
      return success([]);
    }
    const middle = Math.ceil(evaluations.length / 2);
    const stored: CaseEvaluation[] = [];
    for (const half of [evaluations.slice(0, middle), evaluations.slice(middle)]) {
      const written = await this.retriedWrite(half);
      const settled = written.ok || !written.error.rejectsData ? written : await this.isolate(half, written.error, quarantine);
      if (!settled.ok) return settled;
      stored.push(...settled.value);
    }
    return success(stored);
  }

  private async timedWrite(evaluations: CaseEvaluation[]): Promise<Result<void, SinkFailure>> {
    const called = performance.now();
    const pending = this.options.sink.write(evaluations);
    const handedOver = performance.now();
    this.timings.sinkCallMs += handedOver - called;
    try {
      return await pending;
    } finally {
      this.timings.sinkWaitMs += performance.now() - handedOver;
    }
  }

  private async runAfterWrite(evaluations: readonly CaseEvaluation[]): Promise<void> {
    if (!this.options.afterWrite) return;
    try {
      await this.options.afterWrite(evaluations);
    } catch (error) {
      this.counters.afterWriteFailures += 1;
      this.lastAfterWriteError = error instanceof Error ? error.message : String(error);
    }
  }

  private async deadLetterInvalid(trace: AssembledTrace<BusPosition>, rebuilt: CaseResult, issues: readonly { path: readonly PropertyKey[]; message: string }[]): Promise<void> {
    this.counters.invalidCaseResults += 1;
    const problems = issues.map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`).join("; ");
    const reason = `the Case Result rebuilt from trace ${trace.traceId} does not match its schema (contracts/case-result.ts), so it was not stored: ${problems}`;
    await this.sendResultLetter(trace, rebuilt, "case-result", reason, "invalid_case_result");
  }

  /** A trace's result as a dead letter: `body` as JSON, named by the `ragscope=` part of its content type. */
  private async sendResultLetter(trace: AssembledTrace<BusPosition>, body: unknown, kind: string, reason: string, code: NonNullable<DeadLetter["code"]>): Promise<void> {
    this.counters.deadLetters += 1;
    await this.options.deadLetters.send({
      message: {
        key: trace.traceId,
        value: new TextEncoder().encode(JSON.stringify(body)),
        position: trace.sources[0] ?? { partition: 0, offset: "0" },
        headers: { "content-type": `application/json; ragscope=${kind}` },
      },
      reason,
      code,
    });
  }

  /**
   * At an embedded collector's stop, after the last write failed: every result the store still refuses becomes a
   * dead letter (its Case Result with its Evaluation Results), so an acknowledged trace is kept where the store may
   * still take it — the dead_letters table, when only the result tables refuse (too many parts in one) — or, when
   * the store takes nothing, counted as unsaved by the dead letters. Their messages count as handled. How many.
   */
  async deadLetterUnwritten(reason: string): Promise<number> {
    if (this.writing > 0) return 0;
    const refused = this.unwritten.splice(0, this.unwritten.length);
    for (const item of refused) {
      const body = { case_result: item.evaluation.caseResult, evaluation_results: item.evaluation.evaluationResults };
      await this.sendResultLetter(item.trace, body, "case-evaluation", reason, "store_refused_at_stop");
    }
    return refused.length;
  }

  /** Whether the store refuses writes now: from a write's first failed attempt until a write succeeds (`lastSinkError` says why). */
  get storeRefusesWrites(): boolean {
    return this.sinkDown;
  }

  /** Traces released from the assembler and not yet durable: being evaluated, waiting for the sink, or in the write in flight. */
  get backlog(): number {
    return this.evaluating + this.unwritten.length;
  }

  /**
   * Traces beyond what the pipeline holds by design (one batch in flight, one
   * being evaluated), or every one of them while writes fail: the caller
   * stops reading while this is above zero.
   */
  get overflow(): number {
    if (this.sinkDown) return this.backlog;
    return Math.max(0, this.backlog - 2 * this.options.maxBatch);
  }

  /**
   * A trace whose Case Result was dead-lettered, or that records no request, is done: its messages no
   * longer wait for it, unless spans arrived after it was released (they
   * wait for the re-opened trace, as in `write`).
   */
  private settleRejected(trace: AssembledTrace<BusPosition>, receivedUpTo: number): void {
    const received = this.lastReceived.get(trace.traceId) ?? 0;
    if (received > receivedUpTo) return;
    this.lastReceived.delete(trace.traceId);
    this.progress.durable(trace.traceId);
  }

  /**
   * Rebuilds, checks and evaluates one trace. A Case Result that fails its
   * schema is dead-lettered with the schema's reasons and null is returned:
   * it is never stored. The letter's key is the trace id, its value the
   * rejected result as JSON, its position the trace's first message. A trace
   * that records no RAG request is counted by reason and null is returned:
   * it is no Case Result (rag-request-evidence.ts).
   */
  private async evaluate(trace: AssembledTrace<BusPosition>): Promise<CaseEvaluation | null> {
    const started = performance.now();
    const normalized = this.normalize(trace.spans);
    const notARequest = whyNotARequest(normalized);
    if (notARequest !== null) {
      // Counted when first released; late spans that re-open it (still no request) do not make it a second trace.
      if (!trace.reopened) this.tracesWithoutRequest[notARequest] += 1;
      this.timings.evaluateMs += performance.now() - started;
      return null;
    }
    const rebuilt = rebuildCaseResult(trace, normalized);
    const holds: Partial<Record<CountedPerTrace, number>> = {};
    for (const note of rebuilt.rag_observation.malformed_attributes) holds[note.kind] = (holds[note.kind] ?? 0) + 1;
    const checked = caseResultSchema.safeParse(rebuilt);
    if (!checked.success) {
      this.countOncePerTrace(trace, holds);
      this.timings.evaluateMs += performance.now() - started;
      await this.deadLetterInvalid(trace, rebuilt, checked.error.issues);
      return null;
    }
    const caseResult = checked.data;
    let evaluated = performance.now() - started;
    let evalCase: EvalCase | null = null;
    if (caseResult.case_id !== "") {
      const found = await this.options.cases.get(caseResult.case_id, caseResult.case_version);
      // Another tenant's case is that tenant's gold data: for this trace it is as if not stored (eval-case-tenant.ts).
      evalCase = evalCaseFor(found, caseResult.rag_observation.tenant_id);
      if (!evalCase) {
        holds.unknown_case = 1;
        const tenants = found === null ? undefined : { caseTenant: evalCaseTenant(found) ?? "", traceTenant: caseResult.rag_observation.tenant_id ?? "" };
        this.options.onUnknownCase?.(caseResult.case_id, caseResult.case_version, caseResult.trace_id, tenants);
      }
    }
    this.countOncePerTrace(trace, holds);
    const resumed = performance.now();
    const evaluation = evaluateCaseResult(this.options.registry, caseResult, evalCase, new Date(this.clock()).toISOString(), this.options.attribution);
    evaluated += performance.now() - resumed;
    this.timings.evaluateMs += evaluated;
    // A re-opened trace was evaluated and written before: the store must not keep a value this evaluation no longer has.
    if (trace.reopened) evaluation.replacesEarlier = true;
    evaluation.rawSpans = boundedRawSpans(trace.spans);
    return evaluation;
  }

  /** Adds to the per-trace counters what this evaluation of the trace holds beyond what was counted for it before. */
  private countOncePerTrace(trace: AssembledTrace<BusPosition>, holds: Partial<Record<CountedPerTrace, number>>): void {
    const added = this.countedPerTrace.increase(assembledTraceKey(trace), trace.reopened, holds);
    for (const kind of MALFORMED_ATTRIBUTE_KINDS) this.malformedAttributesByKind[kind] += added[kind] ?? 0;
    this.counters.rejectedIdentifiers += added.invalid_identifier ?? 0;
    this.counters.malformedJsonAttributes += added.malformed_json ?? 0;
    this.counters.unknownCases += added.unknown_case ?? 0;
  }
}
