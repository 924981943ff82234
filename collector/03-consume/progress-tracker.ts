/**
 * Which bus offsets may be committed.
 *
 * A message may hold spans of several traces, and a trace may span several
 * messages. A message is done when every trace it fed is durable in the sink
 * (or dead-lettered). The committable offset of a partition is the lowest
 * offset not yet done (Kafka's "next offset to read"), so a crash replays every
 * open trace from its first message, and deterministic ids make the replay
 * harmless (DESIGN.md "Delivery guarantees").
 */
import type { BusPosition } from "../02-transport/trace-bus.js";

interface PartitionProgress {
  /** offset → traces still pending for that message */
  pending: Map<bigint, Set<string>>;
  highestSeen: bigint;
}

export class ProgressTracker {
  private readonly partitions = new Map<number, PartitionProgress>();
  /** trace id → positions of the messages that fed it */
  private readonly tracePositions = new Map<string, { partition: number; offset: bigint }[]>();

  private partition(partition: number): PartitionProgress {
    let progress = this.partitions.get(partition);
    if (!progress) {
      progress = { pending: new Map(), highestSeen: -1n };
      this.partitions.set(partition, progress);
    }
    return progress;
  }

  /** Records a message and the traces it fed; a message with none is done at once. */
  received(position: BusPosition, traceIds: Iterable<string>): void {
    const progress = this.partition(position.partition);
    const offset = BigInt(position.offset);
    if (offset > progress.highestSeen) progress.highestSeen = offset;
    const traces = new Set(traceIds);
    if (traces.size === 0) return;
    const existing = progress.pending.get(offset);
    if (existing) for (const traceId of traces) existing.add(traceId);
    else progress.pending.set(offset, traces);
    for (const traceId of traces) {
      const positions = this.tracePositions.get(traceId) ?? [];
      positions.push({ partition: position.partition, offset });
      this.tracePositions.set(traceId, positions);
    }
  }

  /** Marks a trace durable: the messages that fed it no longer wait for it. */
  durable(traceId: string): void {
    const positions = this.tracePositions.get(traceId);
    if (!positions) return;
    this.tracePositions.delete(traceId);
    for (const { partition, offset } of positions) {
      const pending = this.partitions.get(partition)?.pending;
      const traces = pending?.get(offset);
      if (!traces) continue;
      traces.delete(traceId);
      if (traces.size === 0) pending!.delete(offset);
    }
  }

  /** Kafka commit offset per partition: the lowest pending offset, or one past the highest seen. */
  committable(): Map<number, string> {
    const result = new Map<number, string>();
    for (const [partition, progress] of this.partitions) {
      if (progress.highestSeen < 0n) continue;
      let lowest: bigint | null = null;
      for (const offset of progress.pending.keys()) if (lowest === null || offset < lowest) lowest = offset;
      result.set(partition, String(lowest ?? progress.highestSeen + 1n));
    }
    return result;
  }

  /** Forgets a partition (revoked in a rebalance): its open traces replay elsewhere. */
  forgetPartition(partition: number): void {
    this.partitions.delete(partition);
    for (const [traceId, positions] of this.tracePositions) {
      const kept = positions.filter((position) => position.partition !== partition);
      if (kept.length === 0) this.tracePositions.delete(traceId);
      else this.tracePositions.set(traceId, kept);
    }
  }

  get pendingMessages(): number {
    let count = 0;
    for (const progress of this.partitions.values()) count += progress.pending.size;
    return count;
  }
}
