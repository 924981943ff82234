/**
 * The one driver of the evaluating side, for any TraceSource (the in-process
 * bus, Kafka): poll → hand the messages to the EvaluationWorker → evaluate
 * and write the traces that are ready (quiet period over, deadline passed) →
 * pause or resume reading on the backpressure rules (backpressure.ts) →
 * commit what is durable, every `commitIntervalMs`.
 *
 * One loop per worker, so `processReady` never runs twice at once (its sink
 * backlog is not shared-safe); `exclusive` lets a caller (a flush) take turns
 * with the loop.
 *
 * Pauses are decided after every message handed to the worker, so reading
 * stops before the assembler's own bound would release traces early as
 * partial; what one poll already took is still handed over (at most `maxPoll`
 * messages past the bound, which the margin between `maxBufferedSpans` and
 * the assembler's `maxOpenSpans` absorbs).
 *
 * When the sink stays down past its retry policy, `processReady` returns
 * false, the results stay in the worker's backlog (not durable, offsets not
 * committed), reading pauses, and the loop tries again after `retryDelayMs`.
 * A round returns with its last write still in flight (the worker pipelines
 * writes); the engine inserts it while this thread polls and evaluates the
 * next round, which waits for it before writing again.
 */
import { getHeapStatistics } from "node:v8";
import type { TraceSource } from "../02-transport/trace-source.js";
import type { EvaluationWorker } from "../07-evaluate/evaluation-worker.js";
import { canResume, pauseReason, type BackpressureLimits, type BufferState } from "./backpressure.js";

export interface SourceDriverOptions {
  /** Longest wait for messages in one round; the assembler's next deadline shortens it. */
  idleWaitMs: number;
  /** Messages taken by one poll. */
  maxPoll: number;
  /** Wait between rounds while the sink is down. */
  retryDelayMs: number;
  commitIntervalMs: number;
  limits: BackpressureLimits;
  clock?: () => number;
  /** Heap in use, sampled every round (injected by tests). */
  heapUsedBytes?: () => number;
  log?: (line: string) => void;
}

export class SourceDriver {
  private running = false;
  private done: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private nextCommitAt = 0;
  /** Messages taken from the source and not yet handed to the worker. */
  private inFlight = 0;
  private readonly clock: () => number;
  readonly counters = { rounds: 0, unhealthyRounds: 0, pauses: 0 };
  /** Milliseconds spent handing messages to the worker (decoding encoded ones, buffering spans in the assembler). */
  readonly timings = { assembleMs: 0 };
  heapUsedBytes = 0;
  error: unknown = null;

  constructor(
    private readonly source: TraceSource,
    private readonly worker: EvaluationWorker,
    private readonly options: SourceDriverOptions,
  ) {
    this.clock = options.clock ?? Date.now;
  }

  /** Nothing taken from the source waits to be handed to the worker. */
  get handedOver(): boolean {
    return this.inFlight === 0;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.nextCommitAt = this.clock() + this.options.commitIntervalMs;
    this.done = this.run();
  }

  /** Runs `work` between two rounds of the loop, never during one. */
  exclusive<Value>(work: () => Promise<Value>): Promise<Value> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Stops after the current round, writes what is ready once more, waits for the write in flight and commits. */
  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    this.source.wake();
    await this.done;
    if (this.error !== null) return;
    await this.exclusive(async () => {
      await this.worker.processReady();
      await this.worker.settle();
    });
    await this.source.commit();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const next = this.worker.assembler.nextDeadline();
        const waitMs = next === null ? this.options.idleWaitMs : Math.max(0, Math.min(this.options.idleWaitMs, next - this.clock()));
        const records = await this.source.poll(this.options.maxPoll, waitMs);
        this.inFlight = records.length;
        if (!this.running && records.length === 0) break;
        const healthy = await this.exclusive(async () => {
          this.sampleHeap();
          for (const record of records) {
            const started = performance.now();
            await this.worker.ingestRecord(record);
            this.timings.assembleMs += performance.now() - started;
            this.inFlight -= 1;
            this.reviewPause();
          }
          return this.worker.processReady(false, this.readThrough());
        });
        this.counters.rounds += 1;
        if (!healthy) this.counters.unhealthyRounds += 1;
        this.sampleHeap();
        this.reviewPause();
        if (this.clock() >= this.nextCommitAt) {
          this.nextCommitAt = this.clock() + this.options.commitIntervalMs;
          // Not awaited: a slow commit must not hold up evaluating; the source shares one commit in flight.
          this.source.commit().catch((error: unknown) => this.options.log?.(`commit failed: ${error instanceof Error ? error.message : String(error)}`));
        }
        if (!healthy && this.running) await this.sleep(this.options.retryDelayMs);
        // A round that read nothing without waiting (a trace due that the round could not release yet) gives timers
        // and I/O a turn, so that a loop that has nothing to do can never starve the process.
        else if (records.length === 0 && waitMs === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      } catch (error) {
        // A bug, not an expected failure: stop loudly rather than spin (the role reports it unready).
        this.error = error;
        this.running = false;
        console.error("ragscope: evaluation loop stopped:", error);
      }
    }
  }

  /**
   * The time through which every span received has been handed to the worker: now, or, while the source still
   * holds a message received earlier (a round that waited for a write, a pause), that message's time. A trace
   * whose quiet period (counted from when its last span was received) ended by then is complete; one whose
   * quiet period ends after it waits, since a span of it may be in what is unread. While reading is paused, the
   * unread messages wait for the buffers to drain, and releasing traces is what drains them: the clock decides,
   * as it did before transports stamped arrivals (a span still queued re-opens its trace when read).
   */
  private readThrough(): number {
    const now = this.clock();
    const unread = this.source.pausedFor === null ? (this.source.unreadSince?.() ?? null) : null;
    return unread === null ? now : Math.min(now, unread);
  }

  private bufferState(): BufferState {
    // Not the whole backlog: one write in flight and one batch being evaluated are the pipeline working, not the sink falling behind.
    return { sinkBacklog: this.worker.overflow, openSpans: this.worker.assembler.openSpans, heapUsedBytes: this.heapUsedBytes };
  }

  /** Once a round, and before handing messages over: sampling the heap per message would cost more than it tells. */
  private sampleHeap(): void {
    this.heapUsedBytes = this.options.heapUsedBytes?.() ?? getHeapStatistics().used_heap_size;
  }

  /** Pauses reading when a buffer is full, resumes when they drained (with hysteresis). */
  private reviewPause(): void {
    const state = this.bufferState();
    if (this.source.pausedFor === null) {
      const reason = pauseReason(state, this.options.limits);
      if (reason === null) return;
      this.source.pause(reason);
      this.counters.pauses += 1;
      return;
    }
    if (!this.running || !canResume(state, this.options.limits)) return;
    this.source.resume();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = null;
        resolve();
      }, ms);
      timer.unref();
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
    });
  }
}
