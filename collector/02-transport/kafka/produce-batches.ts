/**
 * Messages grouped into produce calls that each fit the broker's size limit.
 *
 * kafkajs sends the messages of one `send` call to a partition as one record
 * batch, and the broker refuses a batch larger than its `message.max.bytes`
 * (MESSAGE_TOO_LARGE) — a limit on the batch, not on one message. An OTLP
 * request of a few hundred RAG traces (~40 KB each) is several MB, so sent in
 * one call it was refused as a whole, and the receiver answered 500 to a
 * request it could have taken. The OpenTelemetry Collector's Kafka exporter
 * (sarama) caps its batches the same way (Producer.MaxMessageBytes).
 *
 * A group's bytes are counted across partitions, so each partition's batch of
 * it is smaller still; uncompressed, so compression only adds headroom.
 */
import type { BusMessage } from "../trace-bus.js";

/**
 * A record's framing in a batch: its length, attributes, timestamp and offset
 * deltas, key and value lengths and header count, as varints (≤ 25 bytes),
 * plus each header's two lengths. Counted generously.
 */
const RECORD_FRAMING_BYTES = 32;
const HEADER_FRAMING_BYTES = 10;
/** A record batch's own header is 61 bytes. */
export const BATCH_FRAMING_BYTES = 64;

/** The bytes `message` takes in a record batch, at most. */
export function recordBytes(message: BusMessage): number {
  let bytes = RECORD_FRAMING_BYTES + message.value.byteLength + (message.key === null ? 0 : Buffer.byteLength(message.key, "utf8"));
  if (message.headers) for (const name in message.headers) bytes += HEADER_FRAMING_BYTES + Buffer.byteLength(name, "utf8") + Buffer.byteLength(message.headers[name]!, "utf8");
  return bytes;
}

/**
 * `messages` in order, cut into groups of at most `maxBatchBytes` (framing
 * included). A message too large for a group of its own still gets one: the
 * caller decides whether to send it (the broker's limit may be higher than
 * this one).
 */
export function produceBatches<Message extends BusMessage>(messages: readonly Message[], maxBatchBytes: number): Message[][] {
  const groups: Message[][] = [];
  let group: Message[] = [];
  let bytes = BATCH_FRAMING_BYTES;
  for (const message of messages) {
    const size = recordBytes(message);
    if (group.length > 0 && bytes + size > maxBatchBytes) {
      groups.push(group);
      group = [];
      bytes = BATCH_FRAMING_BYTES;
    }
    group.push(message);
    bytes += size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
