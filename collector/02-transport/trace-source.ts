/**
 * Where the evaluating side reads spans from: the port both transports
 * implement, side by side — the in-process bus (collector/02-transport/in-process/in-process-bus.ts)
 * and Kafka (collector/02-transport/kafka/consumer-group-runner.ts). One driver
 * (collector/03-consume/source-driver.ts) runs either: it polls, hands what it
 * got to the EvaluationWorker, pauses and resumes reading on the
 * backpressure rules, and commits what is durable.
 *
 * Contract (test/support/trace-source-contract.ts runs it against both):
 * - `poll` hands out messages in order per partition. After `pause`, nothing
 *   read after the pause is handed out until `resume`; what the transport had
 *   read before (Kafka: a message already routed) is still handed out, so it
 *   is never stranded. Meanwhile producers keep writing and `lag` grows; a
 *   bounded transport refuses publishes once full (the receiver answers 503).
 * - `commit` records, per partition, the offset the progress tracker allows
 *   (the oldest message still feeding a trace whose results are not durable);
 *   it never passes a message that was not handed out.
 * - `capabilities.durable`: after a crash (the process ends without
 *   committing), a new source replays every message from the last commit on.
 *   Kafka is durable. The in-process bus is not: its queue lives in the
 *   process, and a crash loses whatever was accepted and not yet durable in
 *   the store (DESIGN.md "Delivery guarantees": the embedded default trades
 *   this for needing nothing else).
 */
import type { LogEventRecord } from "../00-otlp/log-event-record.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import type { PauseReason } from "../03-consume/backpressure.js";
import type { BusPosition, DeliveredMessage } from "./trace-bus.js";

/**
 * One message, as the transport hands it over: still encoded (the worker
 * decodes it, dead-lettering what does not decode), or already decoded by the
 * transport (Kafka routes every message, so it decodes it once there; a
 * message it republished or dead-lettered arrives with no spans and is done).
 */
export type SourceRecord = (
  | { kind: "encoded"; message: DeliveredMessage }
  | { kind: "decoded"; position: BusPosition; spans: readonly SpanRecord[]; traceIds: readonly string[]; logEvents?: readonly LogEventRecord[] }
) & {
  /**
   * When the collector took the message in, on the evaluating side's clock (ms), where the transport knows it: a
   * trace's quiet period counts from then, not from when the loop read it. Absent (Kafka): the time it is read.
   */
  receivedAt?: number;
};

/** Where one partition stands, as message offsets (Kafka's "next offset" convention). */
export interface PartitionPosition {
  topic: string;
  partition: number;
  /** One past the last message written. */
  end: bigint;
  /** The next message this reader hands out. */
  read: bigint;
  /** The last committed offset; null while none was committed. */
  committed: bigint | null;
  /** Read by this reader (a Kafka group member sees other members' partitions too). */
  owned: boolean;
}

/** What may be committed per partition (the worker's ProgressTracker). */
export interface CommittableOffsets {
  committable(): ReadonlyMap<number, string>;
}

export interface TraceSourceCapabilities {
  /** A crash replays every message not committed (see the contract above). */
  durable: boolean;
}

export interface TraceSource {
  readonly capabilities: TraceSourceCapabilities;
  /** Why reading is paused, or null while reading. */
  readonly pausedFor: PauseReason | null;
  /** Up to `max` messages; resolves early with what is there, or after `waitMs` with nothing. */
  poll(max: number, waitMs: number): Promise<SourceRecord[]>;
  /** Every partition of what is read, fresh (Kafka asks the broker). */
  positions(): Promise<readonly PartitionPosition[]>;
  /** Messages written and not yet handed out, over the partitions this reader owns. */
  lag(): Promise<number>;
  /**
   * Where the transport stamps `receivedAt`: when the oldest message not yet handed out was received, or null when
   * every message received was handed out. Every span received before that time has been read, so a quiet period
   * that ended before it is over (source-driver.ts readThrough).
   */
  unreadSince?(): number | null;
  pause(reason: PauseReason): void;
  resume(): void;
  /** Commits what the progress tracker allows; resolves with the number of partitions whose commit moved. */
  commit(): Promise<number>;
  /** Ends a `poll` waiting for messages (for shutdown). */
  wake(): void;
}

export function unreadOf(position: PartitionPosition): number {
  return Number(position.end > position.read ? position.end - position.read : 0n);
}
