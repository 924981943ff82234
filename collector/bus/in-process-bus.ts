/**
 * The embedded bus: a bounded in-process queue with Kafka's shape (one
 * partition, increasing offsets), so the consumer side is the same code for
 * both. When the queue is full, publish fails as retriable and the receiver
 * answers 503 with Retry-After: the client keeps the data, nothing is dropped.
 */
import { failure, success, type Result } from "../../core/result.js";
import type { BusMessage, DeliveredMessage, PublishFailure, TracePublisher } from "./trace-bus.js";

export interface InProcessBusOptions {
  maxQueuedMessages: number;
}

export class InProcessBus implements TracePublisher {
  private readonly queue: DeliveredMessage[] = [];
  private nextOffset = 0n;
  private waiter: (() => void) | null = null;
  readonly counters = { published: 0, rejectedFull: 0 };

  constructor(private readonly options: InProcessBusOptions = { maxQueuedMessages: 10_000 }) {}

  get depth(): number {
    return this.queue.length;
  }

  async publish(messages: BusMessage[]): Promise<Result<void, PublishFailure>> {
    if (messages.length > this.options.maxQueuedMessages) {
      // More traces than the queue holds when empty: a retry would be refused forever.
      return failure({
        retriable: false,
        tooLarge: true,
        message: `the request holds ${messages.length} traces, more than the in-process queue holds (${this.options.maxQueuedMessages}, RAGSCOPE_MAX_QUEUED_MESSAGES); send fewer traces per request (OTEL_BSP_MAX_EXPORT_BATCH_SIZE on the client) or raise the limit`,
      });
    }
    if (this.queue.length + messages.length > this.options.maxQueuedMessages) {
      this.counters.rejectedFull += 1;
      return failure({ retriable: true, message: `the in-process queue is full (${this.queue.length} of ${this.options.maxQueuedMessages} messages)`, retryAfterMs: 1000 });
    }
    for (const message of messages) {
      this.queue.push({ ...message, position: { partition: 0, offset: String(this.nextOffset) } });
      this.nextOffset += 1n;
    }
    this.counters.published += messages.length;
    this.waiter?.();
    return success(undefined);
  }

  /** Takes up to `max` messages; resolves early with what is there, or after `waitMs` with nothing. */
  async take(max: number, waitMs: number): Promise<DeliveredMessage[]> {
    if (this.queue.length === 0 && waitMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.waiter = null;
          resolve();
        }, waitMs);
        timer.unref();
        this.waiter = () => {
          clearTimeout(timer);
          this.waiter = null;
          resolve();
        };
      });
    }
    return this.queue.splice(0, max);
  }

  /** Wakes a consumer blocked in take(), for shutdown. */
  wake(): void {
    this.waiter?.();
  }
}
