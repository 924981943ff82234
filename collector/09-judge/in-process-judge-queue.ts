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
import { retry, type RetryPolicy } from "../../core/retry.js";
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
  /** Aborted by close(): ends a retry backoff. */
  private closing = new AbortController();
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
    this.closing = new AbortController();
    this.loop = this.deliver(handler);
  }

  isIdle(): boolean {
    return this.queue.length === 0 && this.inFlight === 0;
  }

  async close(): Promise<void> {
    this.running = false;
    this.closing.abort();
    this.wake?.();
    await this.loop;
    this.loop = null;
  }

  private async deliver(handler: JudgeBatchHandler): Promise<void> {
    // A batch leaves the queue only when acknowledged, so every failure is retried, without an attempt or time budget.
    const policy: RetryPolicy = { initialDelayMs: this.options.retryDelayMs, maxDelayMs: this.options.maxRetryDelayMs, maxAttempts: Number.POSITIVE_INFINITY, deadlineMs: Number.POSITIVE_INFINITY };
    while (this.running) {
      if (this.queue.length === 0) {
        await this.sleep(1_000);
        continue;
      }
      await retry(() => this.deliverFront(handler), policy, {
        signal: this.closing.signal,
        // The full backoff, no jitter: one delivery loop, no crowd to spread.
        random: () => 1,
        // A retry backoff is not cut short by new messages, only by close().
        sleep: (ms) => this.sleep(ms, true),
      });
    }
  }

  /** Hands the batch at the front to the handler; on failure puts it back at the front. */
  private async deliverFront(handler: JudgeBatchHandler): Promise<Result<void, JudgeQueueFailure>> {
    const batch = this.queue.splice(0, this.options.batchSize);
    this.inFlight = batch.length;
    let result: Result<void, JudgeQueueFailure>;
    try {
      result = await handler(batch);
    } catch (error) {
      // A handler bug must not lose the batch; it is reported and redelivered.
      result = failure({ retriable: true, message: `judge handler threw: ${error instanceof Error ? error.message : String(error)}` });
    } finally {
      this.inFlight = 0;
    }
    if (result.ok) {
      this.counters.acknowledged += batch.length;
      return result;
    }
    // Back to the front, unless a newer request for the same Case Result arrived meanwhile.
    const newer = new Set(this.queue.map((message) => message.case_result_id));
    this.queue.unshift(...batch.filter((message) => !newer.has(message.case_result_id)));
    this.counters.redelivered += batch.length;
    this.counters.handlerFailures += 1;
    this.lastFailure = result.error.message;
    return failure({ ...result.error, retriable: true });
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
