/**
 * The TracePublisher of the receiver role: OTLP protobuf messages keyed by
 * the lower-case hex trace id on the span topic (`otlp_spans`), exactly what
 * the OpenTelemetry Collector's Kafka exporter writes with
 * `partition_traces_by_id` (shared/reference/interop.md §4), placed by the
 * same sarama-compatible hash.
 *
 * A publish resolves only once every message is acknowledged by all in-sync
 * replicas (acks = -1): the receiver answers 200 after that, and the client
 * may then drop its copy. The messages go out in produce calls of at most
 * `maxMessageBytes` each (produce-batches.ts: the broker limits a partition's
 * record batch, not one message), sent together. A message larger than
 * `maxMessageBytes` is refused before sending (not retriable: the same trace
 * will never fit; the receiver answers 413); a broker that is down is a
 * retriable failure, which the receiver turns into 503 + Retry-After. When
 * one call fails after others succeeded, the client's retry sends those
 * spans again: the assembler keeps one copy of a span id.
 */
import type { Producer } from "kafkajs";
import { failure, success, type Result } from "../../../core/result.js";
import type { BusMessage, PublishFailure, TracePublisher } from "../trace-bus.js";
import { compressionOf, type CompressionName } from "./compression-codecs.js";
import { toPublishFailure } from "./kafka-failure.js";
import { produceBatches } from "./produce-batches.js";

export interface KafkaTracePublisherOptions {
  topic: string;
  maxMessageBytes: number;
  compression: CompressionName;
}

export class KafkaTracePublisher implements TracePublisher {
  readonly counters = { messages: 0, bytes: 0, failures: 0, refusedTooLarge: 0 };

  constructor(
    private readonly producer: Producer,
    private readonly options: KafkaTracePublisherOptions,
  ) {}

  get maxMessageBytes(): number {
    return this.options.maxMessageBytes;
  }

  async publish(messages: BusMessage[]): Promise<Result<void, PublishFailure>> {
    if (messages.length === 0) return success(undefined);
    for (const message of messages) {
      if (message.value.byteLength > this.options.maxMessageBytes) {
        this.counters.refusedTooLarge += 1;
        return failure({
          retriable: false,
          tooLarge: true,
          message: `a message of ${message.value.byteLength} bytes (one span, or a trace the receiver could not cut) exceeds the largest Kafka message allowed (${this.options.maxMessageBytes} bytes, RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES; raise it together with the topic's max.message.bytes)`,
        });
      }
    }
    const compression = compressionOf(this.options.compression);
    try {
      await Promise.all(
        produceBatches(messages, this.options.maxMessageBytes).map((batch) =>
          this.producer.send({
            topic: this.options.topic,
            acks: -1,
            compression,
            messages: batch.map((message) => ({
              key: message.key,
              value: Buffer.from(message.value.buffer, message.value.byteOffset, message.value.byteLength),
              ...(message.headers ? { headers: message.headers } : {}),
            })),
          }),
        ),
      );
    } catch (error) {
      this.counters.failures += 1;
      return failure(toPublishFailure(error, `publishing to Kafka topic ${this.options.topic} failed`));
    }
    this.counters.messages += messages.length;
    for (const message of messages) this.counters.bytes += message.value.byteLength;
    return success(undefined);
  }
}
