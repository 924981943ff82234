/**
 * The judge queue of the embedded collector: a bounded in-process queue with
 * the Kafka implementation's contract (judge-queue.ts). A batch leaves the
 * queue only when the handler succeeded; a failed batch goes back to the front
 * and is retried after a backoff.
 *
 * A newer request for a Case Result that is still waiting replaces the older
 * one (a re-opened trace was rebuilt with more spans): judging the stale
 * version would be paid for and then replaced anyway. When the queue is full,
 * enqueue fails with retriable = false and the caller counts the loss: judge
 * work is sampled, and the span stream must never wait for it.
 */
import { failure, success, type Result } from "../../core/result.js";
import type { JudgeBatchHandler, JudgeQueue, JudgeQueueFailure } from "./judge-queue.js";
import type { JudgeRequestMessage } from "./judge-request-message.js";

export interface InProcessJudgeQueueOptions {
  maxQueued: number;
  batchSize: number;
  /** Wait before redelivering a batch whose handler failed. */
  retryDelayMs: number;
  maxRetryDelayMs: number;
}

export const defaultInProcessJudgeQueueOptions: InProcessJudgeQueueOptions = { maxQueued: 10_000, batchSize: 16, retryDelayMs: 200, maxRetryDelayMs: 10_000 };

export class InProcessJudgeQueue implements JudgeQueue {
  private readonly queue: JudgeRequestMessage[] = [];
  private inFlight = 0;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  readonly counters = { enqueued: 0, replaced: 0, rejectedFull: 0, acknowledged: 0, redelivered: 0, handlerFailures: 0 };
  lastFailure: string | null = null;

  constructor(private readonly options: InProcessJudgeQueueOptions = defaultInProcessJudgeQueueOptions) {}

  get depth(): number {
    return this.queue.length;
  }

  async enqueue(messages: readonly JudgeRequestMessage[]): Promise<Result<void, JudgeQueueFailure>> {
    const fresh: JudgeRequestMessage[] = [];
    for (const message of messages) {
      const waiting = this.queue.findIndex((queued) => queued.case_result_id === message.case_result_id);
      if (waiting >= 0) {
        this.queue[waiting] = message;
        this.counters.replaced += 1;
      } else fresh.push(message);
    }
    if (this.queue.length + fresh.length > this.options.maxQueued) {
      this.counters.rejectedFull += fresh.length;
      return failure({ retriable: false, message: `the judge queue is full (${this.queue.length} of ${this.options.maxQueued} requests)` });
    }
    this.queue.push(...fresh);
    this.counters.enqueued += fresh.length;
    this.wake?.();
    return success(undefined);
  }

  async start(handler: JudgeBatchHandler): Promise<void> {
    if (this.loop !== null) throw new Error("the judge queue is already started");
    this.running = true;
    this.loop = this.deliver(handler);
  }

  isIdle(): boolean {
    return this.queue.length === 0 && this.inFlight === 0;
  }

  async close(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }

  private async deliver(handler: JudgeBatchHandler): Promise<void> {
    let failures = 0;
    while (this.running) {
      if (this.queue.length === 0) {
        await this.sleep(1_000);
        continue;
      }
      const batch = this.queue.splice(0, this.options.batchSize);
      this.inFlight = batch.length;
      let result: Result<void, JudgeQueueFailure>;
      try {
        result = await handler(batch);
      } catch (error) {
        // A handler bug must not lose the batch; it is reported and redelivered.
        result = failure({ retriable: true, message: `judge handler threw: ${error instanceof Error ? error.message : String(error)}` });
      }
      if (result.ok) {
        this.counters.acknowledged += batch.length;
        failures = 0;
      } else {
        // Back to the front, unless a newer request for the same Case Result arrived meanwhile.
        const newer = new Set(this.queue.map((message) => message.case_result_id));
        this.queue.unshift(...batch.filter((message) => !newer.has(message.case_result_id)));
        this.counters.redelivered += batch.length;
        this.counters.handlerFailures += 1;
        this.lastFailure = result.error.message;
        failures += 1;
        const backoff = Math.min(this.options.maxRetryDelayMs, this.options.retryDelayMs * 2 ** (failures - 1));
        this.inFlight = 0;
        await this.sleep(Math.max(backoff, result.error.retryAfterMs ?? 0), true);
      }
      this.inFlight = 0;
    }
  }

  /** Waits for new messages (or the delay); `ignoreEnqueue` keeps a retry backoff from being cut short. */
  private sleep(ms: number, ignoreEnqueue = false): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      timer.unref();
      this.wake = () => {
        if (ignoreEnqueue && this.running) return;
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }
}
