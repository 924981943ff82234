/**
 * Consumer lag per partition, from the broker's offsets rather than from the
 * batches this member happens to read: every partition of the topics counts,
 * also one this member does not own, one just added to the topic, and every
 * partition while reading is paused (when lag matters most: a sink outage).
 *
 * For each partition: lag = high watermark − read position, where the read
 * position is this member's next offset when it reads the partition (it runs
 * ahead of commits), else the group's committed offset, else where a group
 * without commits starts (the low watermark for `earliest`, the high one for
 * `latest`). The commit lag (high watermark − committed) comes along.
 *
 * Two admin requests per topic (ListOffsets for high and low watermarks, with
 * the admin client's fresh metadata, so new partitions appear at once) and one
 * OffsetFetch for the group, per refresh.
 *
 * A refresh that fails (Kafka unreachable) keeps the previous snapshot:
 * `refreshedAt` says how old it is (ragscope_kafka_consumer_lag_age_seconds).
 */
import type { Admin } from "kafkajs";

export interface PartitionLag {
  topic: string;
  partition: number;
  highWatermark: bigint;
  /** Where reading stands (see above). */
  position: bigint;
  /** The group's committed offset; null while the group has none for the partition. */
  committed: bigint | null;
  /** Read by this member now. */
  owned: boolean;
}

export interface BrokerLagOptions {
  admin: Pick<Admin, "fetchTopicOffsets" | "fetchOffsets">;
  groupId: string;
  topics: () => readonly string[];
  initialOffset: "earliest" | "latest";
  /** This member's next offset per partition it reads, by topic. */
  readPositions: () => ReadonlyMap<string, ReadonlyMap<number, bigint>>;
  /** Partitions assigned to this member, by topic. */
  assigned: () => ReadonlyMap<string, ReadonlySet<number>>;
  clock?: () => number;
}

export class BrokerLag {
  private latest: PartitionLag[] = [];
  private inFlight: Promise<void> | null = null;
  readonly counters = { refreshes: 0, failures: 0 };
  lastError: string | null = null;
  /** When the snapshot was last read from the broker (clock milliseconds); null before the first refresh that succeeded. */
  refreshedAt: number | null = null;
  private readonly createdAt: number;

  constructor(private readonly options: BrokerLagOptions) {
    this.createdAt = (options.clock ?? Date.now)();
  }

  /** Seconds since the snapshot was read from the broker (since this was created, before the first refresh). */
  ageSeconds(): number {
    return ((this.options.clock ?? Date.now)() - (this.refreshedAt ?? this.createdAt)) / 1000;
  }

  /** The last refreshed lag of every partition of the topics. */
  snapshot(): readonly PartitionLag[] {
    return this.latest;
  }

  /** Reads the offsets again; concurrent calls share one refresh; a failure keeps the previous snapshot. */
  refresh(): Promise<void> {
    this.inFlight ??= this.refreshNow().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async refreshNow(): Promise<void> {
    const { admin, groupId, initialOffset } = this.options;
    const topics = [...new Set(this.options.topics())];
    try {
      const [watermarks, committed] = await Promise.all([
        Promise.all(topics.map(async (topic) => ({ topic, partitions: await admin.fetchTopicOffsets(topic) }))),
        admin.fetchOffsets({ groupId, topics }),
      ]);
      const reading = this.options.readPositions();
      const assigned = this.options.assigned();
      const lags: PartitionLag[] = [];
      for (const { topic, partitions } of watermarks) {
        const commits = new Map((committed.find((entry) => entry.topic === topic)?.partitions ?? []).map((entry) => [entry.partition, BigInt(entry.offset)]));
        for (const { partition, high, low } of partitions) {
          const highWatermark = BigInt(high);
          const commit = commits.get(partition);
          const committedOffset = commit === undefined || commit < 0n ? null : commit;
          const owned = assigned.get(topic)?.has(partition) ?? false;
          const read = owned ? reading.get(topic)?.get(partition) : undefined;
          const position = read ?? committedOffset ?? (initialOffset === "earliest" ? BigInt(low) : highWatermark);
          lags.push({ topic, partition, highWatermark, position, committed: committedOffset, owned });
        }
      }
      lags.sort((left, right) => (left.topic === right.topic ? left.partition - right.partition : left.topic < right.topic ? -1 : 1));
      this.latest = lags;
      this.refreshedAt = (this.options.clock ?? Date.now)();
      this.counters.refreshes += 1;
    } catch (error) {
      this.counters.failures += 1;
      this.lastError = error instanceof Error ? error.message : String(error);
    }
  }
}

/** Messages not yet read, never negative (a read position can pass a watermark read a moment earlier). */
export function unread(lag: PartitionLag): number {
  const value = lag.highWatermark - lag.position;
  return value > 0n ? Number(value) : 0;
}
