/**
 * Drives the EvaluationWorker on the consumer side: evaluates and writes the
 * traces that are ready (quiet period over, deadline passed), as soon as the
 * assembler says one may be, and at least every `idleWaitMs`. One loop per
 * worker, so `processReady` never runs twice at once (its sink backlog is not
 * shared-safe); the consumer keeps adding spans meanwhile.
 *
 * When the sink stays down past its retry policy, `processReady` returns
 * false, the results stay in the worker's backlog (not durable, offsets not
 * committed), and the loop tries again after `retryDelayMs`.
 *
 * A round returns with its last write still in flight (the worker pipelines
 * writes); the engine inserts it while this thread sleeps, reads and
 * evaluates the next round, which waits for it before writing again.
 */
import type { EvaluationWorker } from "../evaluate/evaluation-worker.js";

export interface EvaluationLoopOptions {
  idleWaitMs: number;
  retryDelayMs: number;
  /** Called after every round: backpressure decisions, commits. */
  afterRound?: (healthy: boolean) => void | Promise<void>;
}

export class EvaluationLoop {
  private running = false;
  private done: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  readonly counters = { rounds: 0, unhealthyRounds: 0 };
  error: unknown = null;

  constructor(
    private readonly worker: EvaluationWorker,
    private readonly options: EvaluationLoopOptions,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.done = this.run();
  }

  wake(): void {
    this.wakeUp?.();
  }

  /** Stops after the current round, then writes what is ready once more and waits for the write in flight. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.done;
    if (this.error !== null) return;
    await this.worker.processReady();
    await this.worker.settle();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const next = this.worker.assembler.nextDeadline();
        const waitMs = next === null ? this.options.idleWaitMs : Math.max(0, Math.min(this.options.idleWaitMs, next - Date.now()));
        if (waitMs > 0) await this.sleep(waitMs);
        if (!this.running) break;
        const healthy = await this.worker.processReady();
        this.counters.rounds += 1;
        if (!healthy) this.counters.unhealthyRounds += 1;
        await this.options.afterRound?.(healthy);
        if (!healthy && this.running) await this.sleep(this.options.retryDelayMs);
      } catch (error) {
        // A bug, not an expected failure: stop loudly rather than spin (the role reports it unready).
        this.error = error;
        this.running = false;
        console.error("ragscope evaluator: evaluation loop stopped:", error);
      }
    }
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
