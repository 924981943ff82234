/**
 * The embedded bus: an in-process queue with Kafka's shape (one
 * partition, increasing offsets), bounded in messages and in bytes, read through the same TraceSource port as
 * Kafka, so one driver runs both. When the queue is full, publish fails as
 * retriable and the receiver answers 503 with Retry-After: the client keeps
 * the data, nothing is dropped. While the driver pauses reading (sink
 * backlog, open spans, heap), the queue fills and the receiver refuses.
 *
 * The receiver publishes decoded span records here (`publishDecoded`): the
 * bus lives in the receiver's process, so the decode thread's records are
 * handed to the evaluation loop as they are, instead of being encoded only to
 * be decoded again. Encoded messages (`publish`) are taken too.
 *
 * Not durable: the queue lives in the process, so a crash loses what it holds
 * and whatever was handed out and not yet stored; `commit` only records how
 * far the store has it (for `positions`).
 */
import { failure, success, type Result } from "../../../core/result.js";
import type { PauseReason } from "../../03-consume/backpressure.js";
import type { BusMessage, BusPosition, DecodedTrace, PublishFailure, TracePublisher } from "../trace-bus.js";
import type { CommittableOffsets, PartitionPosition, SourceRecord, TraceSource } from "../trace-source.js";

export interface InProcessBusOptions {
  maxQueuedMessages: number;
  /**
   * Bytes the queue may hold: an encoded message's length, a decoded trace's
   * estimated heap. A publish that would pass it is refused as retriable,
   * unless the queue is empty (then it is taken, so that no request can be
   * refused forever; the receiver's body limit bounds one request). While
   * reading is paused for the heap, a publish into a non-empty queue is
   * refused as well.
   */
  maxQueuedBytes?: number;
  /** What may be committed (the worker's progress); without it nothing is ever committed. */
  progress?: CommittableOffsets;
  /** Stamps each message's `receivedAt` when it is queued: the evaluation worker's clock (injected by tests). */
  clock?: () => number;
}

export const inProcessTopic = "in_process";

/** What the queue holds: each record as it will be handed out, with the bytes it counts for. */
interface QueuedRecord {
  record: SourceRecord;
  bytes: number;
}

/** The default byte bound: at 8-span RAG traces (~60 KB of records each) about 4,000 traces. */
export const DEFAULT_MAX_QUEUED_BYTES = 256 * 1024 * 1024;

function mebibytes(bytes: number): number {
  return Math.round(bytes / 1024 / 1024);
}

export class InProcessBus implements TracePublisher, TraceSource {
  readonly capabilities = { durable: false };
  private readonly queue: QueuedRecord[] = [];
  private queuedBytes = 0;
  private nextOffset = 0n;
  private readOffset = 0n;
  private committedOffset: bigint | null = null;
  private waiter: (() => void) | null = null;
  pausedFor: PauseReason | null = null;
  readonly counters = { published: 0, rejectedFull: 0, pauses: 0 };
  private readonly maxQueuedBytes: number;
  private readonly clock: () => number;

  constructor(private readonly options: InProcessBusOptions = { maxQueuedMessages: 10_000 }) {
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    this.clock = options.clock ?? Date.now;
  }

  get depth(): number {
    return this.queue.length;
  }

  /** Bytes the queue holds (see InProcessBusOptions.maxQueuedBytes). */
  get bytes(): number {
    return this.queuedBytes;
  }

  refusal(): PublishFailure | null {
    // Whatever comes next is at least one message of at least one byte.
    return this.rejection(1, 1, null);
  }

  /**
   * Why `count` more items of `bytes` cannot be queued now, or null: reading
   * is paused for the heap (whatever the queue took would only add to it), or
   * a bound would be passed. A non-empty queue only: an empty one takes any
   * request, so that none is refused forever. `asked` is the bytes to name in
   * the message, null when not known yet.
   */
  private rejection(count: number, bytes: number, asked: number | null): PublishFailure | null {
    let detail: string | null = null;
    if (this.pausedFor === "heap" && this.queue.length > 0) detail = "reading is paused: the heap is near its bound, RAGSCOPE_MAX_HEAP_MB";
    else if (this.queue.length + count > this.options.maxQueuedMessages) detail = `${this.queue.length} of ${this.options.maxQueuedMessages} messages`;
    else if (this.queue.length > 0 && this.queuedBytes + bytes > this.maxQueuedBytes) {
      const more = asked === null ? "" : `, ${mebibytes(asked)} MiB more asked`;
      detail = `${mebibytes(this.queuedBytes)} MiB held${more}, bound ${mebibytes(this.maxQueuedBytes)} MiB, RAGSCOPE_MAX_QUEUED_BYTES`;
    }
    if (detail === null) return null;
    this.counters.rejectedFull += 1;
    return { retriable: true, message: `the in-process queue is full (${detail})`, retryAfterMs: 1000 };
  }

  async publish(messages: BusMessage[]): Promise<Result<void, PublishFailure>> {
    const bytes = messages.reduce((sum, message) => sum + message.value.byteLength, 0);
    return this.enqueue(messages.length, bytes, (index, position) => {
      const message = messages[index]!;
      return { record: { kind: "encoded", message: { ...message, position } }, bytes: message.value.byteLength };
    });
  }

  async publishDecoded(traces: DecodedTrace[]): Promise<Result<void, PublishFailure>> {
    const bytes = traces.reduce((sum, trace) => sum + trace.bytes, 0);
    return this.enqueue(traces.length, bytes, (index, position) => {
      const trace = traces[index]!;
      return { record: { kind: "decoded", position, spans: trace.spans, traceIds: [trace.key] }, bytes: trace.bytes };
    });
  }

  /** Queues `count` items of `bytes` together (all or none), each made by `item` with its offset. */
  private enqueue(count: number, bytes: number, item: (index: number, position: BusPosition) => QueuedRecord): Result<void, PublishFailure> {
    if (count > this.options.maxQueuedMessages) {
      // More traces than the queue holds when empty: a retry would be refused forever.
      return failure({
        retriable: false,
        tooLarge: true,
        message: `the request holds ${count} traces, more than the in-process queue holds (${this.options.maxQueuedMessages}, RAGSCOPE_MAX_QUEUED_MESSAGES); send fewer traces per request (OTEL_BSP_MAX_EXPORT_BATCH_SIZE on the client) or raise the limit`,
      });
    }
    const rejected = this.rejection(count, bytes, bytes);
    if (rejected !== null) return failure(rejected);
    const receivedAt = this.clock();
    for (let index = 0; index < count; index += 1) {
      const queued = item(index, { partition: 0, offset: String(this.nextOffset) });
      queued.record.receivedAt = receivedAt;
      this.queue.push(queued);
      this.nextOffset += 1n;
    }
    this.queuedBytes += bytes;
    this.counters.published += count;
    if (this.pausedFor === null) this.waiter?.();
    return success(undefined);
  }

  async poll(max: number, waitMs: number): Promise<SourceRecord[]> {
    if ((this.queue.length === 0 || this.pausedFor !== null) && waitMs > 0) await this.wait(waitMs);
    // Paused: nothing is handed out, the queue holds what arrives (up to its bound).
    if (this.pausedFor !== null) return [];
    return this.takeAll(max);
  }

  /** Takes up to `max` messages whether paused or not: for a final flush. */
  takeAll(max = Number.MAX_SAFE_INTEGER): SourceRecord[] {
    const taken = this.queue.splice(0, max);
    this.readOffset += BigInt(taken.length);
    for (const item of taken) this.queuedBytes -= item.bytes;
    return taken.map((item) => item.record);
  }

  async positions(): Promise<readonly PartitionPosition[]> {
    return [{ topic: inProcessTopic, partition: 0, end: this.nextOffset, read: this.readOffset, committed: this.committedOffset, owned: true }];
  }

  async lag(): Promise<number> {
    return this.queue.length;
  }

  /** The queue is in the order messages were received, so its head is the oldest unread. */
  unreadSince(): number | null {
    return this.queue[0]?.record.receivedAt ?? null;
  }

  pause(reason: PauseReason): void {
    if (this.pausedFor === null) this.counters.pauses += 1;
    this.pausedFor = reason;
  }

  resume(): void {
    this.pausedFor = null;
    this.waiter?.();
  }

  async commit(): Promise<number> {
    const offset = this.options.progress?.committable().get(0);
    if (offset === undefined || (this.committedOffset !== null && BigInt(offset) <= this.committedOffset)) return 0;
    this.committedOffset = BigInt(offset);
    return 1;
  }

  /** Ends a poll waiting for messages, for shutdown. */
  wake(): void {
    this.waiter?.();
  }

  private wait(waitMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
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
}
