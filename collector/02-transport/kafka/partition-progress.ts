/**
 * Committable offsets of a topic whose messages are done as soon as they are
 * handled (republished or dead-lettered, never assembled): the input topic
 * when a separate repartition topic is configured. Messages of a partition are
 * handled in order, so the next offset after the last one done is committable.
 *
 * The assembled topic uses ProgressTracker (collector/03-consume/), which waits
 * for traces to be durable; both have the shape OffsetCommitter reads.
 */
export interface CommitSource {
  committable(): Map<number, string>;
  forgetPartition(partition: number): void;
}

export class SequentialProgress implements CommitSource {
  private readonly next = new Map<number, bigint>();

  done(partition: number, offset: string): void {
    const following = BigInt(offset) + 1n;
    if (following > (this.next.get(partition) ?? -1n)) this.next.set(partition, following);
  }

  committable(): Map<number, string> {
    return new Map([...this.next].map(([partition, offset]) => [partition, String(offset)]));
  }

  forgetPartition(partition: number): void {
    this.next.delete(partition);
  }
}
