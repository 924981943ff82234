/**
 * The embedded bus: an in-process queue with Kafka's shape (one
 * partition, increasing offsets), bounded in messages and in bytes, read through the same TraceSource port as
 * Kafka, so one driver runs both. When the queue is full, a request is
 * refused before its body is read (`refusal`): 503 with Retry-After, the
 * client keeps the data, nothing is dropped. A request admitted while the
 * queue had room but that no longer fits once decoded waits for the reader
 * to make room, first come first served, for at most `maxPublishWaitMs`,
 * and is refused only then: its body was read and decoded already, and
 * refusing it at once threw that work away for the client to send again —
 * under a burst from several senders serve spent a fifth to a third of its
 * CPU decoding requests it then refused (test/bench/embedded-serve.bench.ts).
 * While the driver pauses reading (sink backlog, open spans, heap), the
 * queue fills and the receiver refuses; paused for the heap, it refuses at
 * once and sends the waiting requests away, whose records only add to it.
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
  /**
   * How long a publish that does not fit waits for the reader to make room before it is refused as retriable
   * (0: refused at once). Its records are held meanwhile: how many requests can wait is bounded by the receiver's
   * in-flight bytes, as their bodies are. Default DEFAULT_MAX_PUBLISH_WAIT_MS.
   */
  maxPublishWaitMs?: number;
}

/** Default wait for room: well within an OTLP client's export timeout (10 s by default) and the receiver's (30 s). */
export const DEFAULT_MAX_PUBLISH_WAIT_MS = 2_000;

/** A publish waiting for room, in arrival order. */
interface WaitingPublish {
  count: number;
  bytes: number;
  /** Queues the items and settles the publish as taken. */
  take(): void;
  /** Settles the publish as refused with `failure`. */
  refuse(failure: PublishFailure): void;
}

export const inProcessTopic = "in_process";

/** What the queue holds: each record as it will be handed out, with the bytes it counts for. */
interface QueuedRecord {
  record: SourceRecord;
  bytes: number;
}

/**
 * The default byte bound: at 8-span RAG traces (~60 KB of records each) about 1,000 traces, several seconds of what
 * one process evaluates. A larger queue only holds more traces longer under a burst: at 256 MiB serve evaluated
 * ~5 % fewer spans a second at ~5 % more CPU a span (a larger live heap for the collector to mark) and peaked
 * ~150 MB higher, with no request refused at either bound (embedded-serve.bench.ts notes, 2026-12-05). Below
 * ~32 MiB the evaluator waits for work and CPU a span rises.
 */
export const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;

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
  /** `waitedForRoom`: publishes taken after waiting for room; `rejectedFull`: refusals (before reading, or after waiting). */
  readonly counters = { published: 0, rejectedFull: 0, pauses: 0, waitedForRoom: 0 };
  private readonly waiting: WaitingPublish[] = [];
  private readonly maxPublishWaitMs: number;
  private readonly maxQueuedBytes: number;
  private readonly clock: () => number;

  constructor(private readonly options: InProcessBusOptions = { maxQueuedMessages: 10_000 }) {
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    this.clock = options.clock ?? Date.now;
    this.maxPublishWaitMs = options.maxPublishWaitMs ?? DEFAULT_MAX_PUBLISH_WAIT_MS;
  }

  /** Publishes waiting for room now. */
  get waitingPublishes(): number {
    return this.waiting.length;
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
    const reason = this.rejectionReason(1, 1, null);
    return reason === null ? null : this.refused(reason);
  }

  /**
   * Why `count` more items of `bytes` cannot be queued now, or null: reading
   * is paused for the heap (whatever the queue took would only add to it), or
   * a bound would be passed. A non-empty queue only: an empty one takes any
   * request, so that none is refused forever. `asked` is the bytes to name in
   * the message, null when not known yet.
   */
  private rejectionReason(count: number, bytes: number, asked: number | null): string | null {
    let detail: string | null = null;
    if (this.pausedFor === "heap" && this.queue.length > 0) detail = "reading is paused: the heap is near its bound, RAGSCOPE_MAX_HEAP_MB";
    else if (this.queue.length + count > this.options.maxQueuedMessages) detail = `${this.queue.length} of ${this.options.maxQueuedMessages} messages`;
    else if (this.queue.length > 0 && this.queuedBytes + bytes > this.maxQueuedBytes) {
      const more = asked === null ? "" : `, ${mebibytes(asked)} MiB more asked`;
      detail = `${mebibytes(this.queuedBytes)} MiB held${more}, bound ${mebibytes(this.maxQueuedBytes)} MiB, RAGSCOPE_MAX_QUEUED_BYTES`;
    }
    return detail;
  }

  private refused(detail: string): PublishFailure {
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
      return { record: { kind: "decoded", position, spans: trace.spans, traceIds: [trace.key], ...(trace.logEvents === undefined ? {} : { logEvents: trace.logEvents }) }, bytes: trace.bytes };
    });
  }

  /**
   * Queues `count` items of `bytes` together (all or none), each made by `item` with its offset; when they do not
   * fit, waits for room behind the publishes already waiting (never overtaking them), or is refused.
   */
  private enqueue(count: number, bytes: number, item: (index: number, position: BusPosition) => QueuedRecord): Promise<Result<void, PublishFailure>> | Result<void, PublishFailure> {
    if (count > this.options.maxQueuedMessages) {
      // More traces than the queue holds when empty: a retry would be refused forever.
      return failure({
        retriable: false,
        tooLarge: true,
        message: `the request holds ${count} traces, more than the in-process queue holds (${this.options.maxQueuedMessages}, RAGSCOPE_MAX_QUEUED_MESSAGES); send fewer traces per request (OTEL_BSP_MAX_EXPORT_BATCH_SIZE on the client) or raise the limit`,
      });
    }
    const reason = this.waiting.length > 0 ? "publishes are waiting for room before it" : this.rejectionReason(count, bytes, bytes);
    if (reason === null) {
      this.place(count, bytes, item);
      return success(undefined);
    }
    // Paused for the heap, or no wait allowed: refused now (the heap's case is also the reason given).
    if (this.maxPublishWaitMs === 0 || this.pausedFor === "heap") return failure(this.refused(this.rejectionReason(count, bytes, bytes) ?? reason));
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(waiting);
        if (index === -1) return;
        this.waiting.splice(index, 1);
        waiting.refuse(this.refused(`${this.rejectionReason(count, bytes, bytes) ?? reason}; waited ${this.maxPublishWaitMs} ms for room`));
      }, this.maxPublishWaitMs);
      // Not unref'd: a request waits on it, and it ends within maxPublishWaitMs.
      const waiting: WaitingPublish = {
        count,
        bytes,
        take: () => {
          clearTimeout(timer);
          this.counters.waitedForRoom += 1;
          this.place(count, bytes, item);
          resolve(success(undefined));
        },
        refuse: (refusal) => {
          clearTimeout(timer);
          resolve(failure(refusal));
        },
      };
      this.waiting.push(waiting);
    });
  }

  /** Takes the waiting publishes that fit now, in order, stopping at the first that does not. */
  private admitWaiting(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      if (this.rejectionReason(next.count, next.bytes, next.bytes) !== null) return;
      this.waiting.shift();
      next.take();
    }
  }

  /** Refuses every waiting publish, e.g. when reading pauses for the heap: their records would only add to it. */
  private refuseWaiting(detail: string): void {
    for (const waiting of this.waiting.splice(0)) waiting.refuse(this.refused(detail));
  }

  private place(count: number, bytes: number, item: (index: number, position: BusPosition) => QueuedRecord): void {
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
    if (taken.length > 0) this.admitWaiting();
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
    if (reason === "heap") this.refuseWaiting("reading is paused: the heap is near its bound, RAGSCOPE_MAX_HEAP_MB");
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
