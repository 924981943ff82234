/**
 * A token bucket: at most `ratePerSecond` acquisitions per second on average,
 * bursts of up to `capacity`. Judge workers take one token per judge call
 * (rate-limited-judge.ts), so the endpoint sees a steady rate whatever the
 * queue's backlog. Time and sleeping are injectable for tests.
 */
import { defaultSleep } from "../../core/retry.js";

export interface TokenBucketOptions {
  ratePerSecond: number;
  capacity: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export class TokenBucket {
  private tokens: number;
  private updatedAt: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Acquisitions wait in arrival order. */
  private queue: Promise<void> = Promise.resolve();
  readonly counters = { acquired: 0, waitedMs: 0 };

  constructor(private readonly options: TokenBucketOptions) {
    if (!(options.ratePerSecond > 0) || !Number.isFinite(options.ratePerSecond)) throw new RangeError(`ratePerSecond must be a positive number, got ${options.ratePerSecond}`);
    if (!(options.capacity >= 1)) throw new RangeError(`capacity must be at least 1, got ${options.capacity}`);
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? defaultSleep;
    this.tokens = options.capacity;
    this.updatedAt = this.now();
  }

  /** Resolves when a token was taken (or at once when the signal is aborted). */
  acquire(signal?: AbortSignal): Promise<void> {
    const turn = this.queue.then(() => this.take(signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.options.capacity, this.tokens + ((now - this.updatedAt) / 1000) * this.options.ratePerSecond);
    this.updatedAt = now;
  }

  private async take(signal?: AbortSignal): Promise<void> {
    for (;;) {
      this.refill();
      if (this.tokens >= 1 || signal?.aborted) {
        this.tokens -= 1;
        this.counters.acquired += 1;
        return;
      }
      const waitMs = Math.ceil(((1 - this.tokens) / this.options.ratePerSecond) * 1000);
      this.counters.waitedMs += waitMs;
      await this.sleep(waitMs, signal);
    }
  }
}
