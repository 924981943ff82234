/**
 * The partition a trace id goes to, the way the OpenTelemetry Collector's
 * Kafka exporter picks it (shared/reference/interop.md §4): its default
 * partitioner is "sticky_key" with the sarama-compatible hash — FNV-1a 32 of
 * the key bytes, read as a signed 32-bit integer, modulo the partition count,
 * negated when negative (franz-go's SaramaCompatHasher; sarama's
 * HashPartitioner). With `partition_traces_by_id` the key is the lower-case
 * hex trace id.
 *
 * ragscope's receivers and repartitioner use the same function, so a trace
 * keyed by the Collector and the same trace keyed by ragscope land in the
 * same partition and meet in one evaluator. kafkajs's own partitioners hash
 * with murmur2 (the Java client's), which would split them.
 */
import type { ICustomPartitioner, PartitionerArgs } from "kafkajs";

const fnvOffsetBasis = 0x811c9dc5;
const fnvPrime = 0x01000193;

export function fnv1a32(bytes: Uint8Array): number {
  let hash = fnvOffsetBasis;
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, fnvPrime) >>> 0;
  }
  return hash >>> 0;
}

/** sarama's HashPartitioner: int32(fnv1a(key)) % n, made non-negative by negation. */
export function saramaPartition(key: Uint8Array | string, partitionCount: number): number {
  if (!Number.isInteger(partitionCount) || partitionCount <= 0) throw new RangeError(`partitionCount must be a positive integer, got ${partitionCount}`);
  const bytes = typeof key === "string" ? Buffer.from(key, "utf8") : key;
  const signed = fnv1a32(bytes) | 0;
  return Math.abs(signed % partitionCount);
}

/**
 * A kafkajs partitioner that places keyed messages like the Collector does.
 * Unkeyed messages (ragscope never produces them to the span topics) go
 * round robin.
 */
export const saramaCompatiblePartitioner: ICustomPartitioner = () => {
  let next = 0;
  return ({ partitionMetadata, message }: PartitionerArgs) => {
    const count = partitionMetadata.length;
    if (message.key === null || message.key === undefined) {
      next = (next + 1) % count;
      return partitionMetadata[next]!.partitionId;
    }
    const key = typeof message.key === "string" ? Buffer.from(message.key, "utf8") : message.key;
    return saramaPartition(key, count);
  };
};
