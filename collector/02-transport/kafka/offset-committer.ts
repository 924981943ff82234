/**
 * Commits, per assigned partition, the offset the progress trackers allow:
 * the oldest message still feeding a trace whose results are not durable
 * (DESIGN.md "Delivery guarantees"). kafkajs's own commit machinery commits
 * the consumer's *fetch* position (resolved offsets), which runs ahead of what
 * is durable; so auto-commit is off and this class commits explicit offsets,
 * on a timer and before the consumer stops.
 *
 * A partition is committed only while assigned to this member, and only when
 * its offset moved. After a rebalance kafkajs restarts every assigned
 * partition from its committed offset, so the trackers forget them all and
 * learn them again from the replay.
 */
import type { CommitSource } from "./partition-progress.js";

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  offset: string;
}

export interface OffsetCommitterOptions {
  sources: ReadonlyMap<string, CommitSource>;
  /** Partitions assigned to this member, by topic. */
  assigned: () => ReadonlyMap<string, ReadonlySet<number>>;
  commit: (offsets: TopicPartitionOffset[]) => Promise<void>;
}

export class OffsetCommitter {
  private readonly lastCommitted = new Map<string, Map<number, string>>();
  private inFlight: Promise<number> | null = null;
  readonly counters = { commits: 0, partitionsCommitted: 0, failures: 0 };
  lastError: string | null = null;

  constructor(private readonly options: OffsetCommitterOptions) {}

  /** Commits what moved; resolves with the number of partitions committed. Concurrent calls share one commit. */
  commit(): Promise<number> {
    this.inFlight ??= this.commitNow().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /** The offset last committed by this member, per topic and partition. */
  committed(topic: string): ReadonlyMap<number, string> {
    return this.lastCommitted.get(topic) ?? new Map();
  }

  /** A new assignment: everything restarts from the group's committed offsets. */
  forgetAll(): void {
    for (const source of this.options.sources.values()) {
      for (const partition of source.committable().keys()) source.forgetPartition(partition);
    }
    this.lastCommitted.clear();
  }

  private async commitNow(): Promise<number> {
    const assigned = this.options.assigned();
    const offsets: TopicPartitionOffset[] = [];
    for (const [topic, source] of this.options.sources) {
      const partitions = assigned.get(topic);
      if (!partitions) continue;
      const previous = this.lastCommitted.get(topic);
      for (const [partition, offset] of source.committable()) {
        if (!partitions.has(partition) || previous?.get(partition) === offset) continue;
        offsets.push({ topic, partition, offset });
      }
    }
    if (offsets.length === 0) return 0;
    try {
      await this.options.commit(offsets);
    } catch (error) {
      // The next tick tries again; a rebalance in between makes the member replay from the last commit.
      this.counters.failures += 1;
      this.lastError = error instanceof Error ? error.message : String(error);
      return 0;
    }
    for (const { topic, partition, offset } of offsets) {
      let byPartition = this.lastCommitted.get(topic);
      if (!byPartition) this.lastCommitted.set(topic, (byPartition = new Map()));
      byPartition.set(partition, offset);
    }
    this.counters.commits += 1;
    this.counters.partitionsCommitted += offsets.length;
    return offsets.length;
  }
}
