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
 *
 * With `availability` (the receiver role), a publish fails at once while
 * Kafka is known to be unreachable (`refusal`, asked before the body is read),
 * and each outcome tells the availability what was seen. With `timeoutMs`, a
 * publish Kafka did not acknowledge in time is a retriable failure: the
 * client's export timeout (10 s in the OpenTelemetry SDKs) must not pass
 * before it hears 503, or it gives up instead of retrying. kafkajs's send goes
 * on in the background; should it still succeed, the client's retry is a
 * duplicate the assembler drops.
 */
import type { Producer } from "kafkajs";
import { failure, success, type Result } from "../../../core/result.js";
import type { BusMessage, PublishFailure, TracePublisher } from "../trace-bus.js";
import { compressionOf, type CompressionName } from "./compression-codecs.js";
import type { BrokerAvailability } from "./broker-availability.js";
import { isUnreachable, toPublishFailure } from "./kafka-failure.js";
import { produceBatches } from "./produce-batches.js";

export interface KafkaTracePublisherOptions {
  topic: string;
  maxMessageBytes: number;
  compression: CompressionName;
  /** Longest wait for Kafka's acknowledgement; unset: as long as kafkajs's retries take. */
  timeoutMs?: number;
  /** What is known about Kafka being reachable: consulted before a publish, told each outcome. */
  availability?: BrokerAvailability;
}

/** How long a client is asked to wait while Kafka is unreachable (Retry-After: 1 s). */
const unavailableRetryAfterMs = 1_000;

class PublishTimeout extends Error {}

export class KafkaTracePublisher implements TracePublisher {
  readonly counters = { messages: 0, bytes: 0, failures: 0, refusedTooLarge: 0 };

  constructor(
    private readonly producer: Producer,
    private readonly options: KafkaTracePublisherOptions,
  ) {}

  get maxMessageBytes(): number {
    return this.options.maxMessageBytes;
  }

  /** A retriable failure while Kafka is known to be unreachable, else null: the receiver answers 503 without reading the body. */
  refusal(): PublishFailure | null {
    const reason = this.options.availability?.unavailableReason ?? null;
    if (reason === null) return null;
    return { retriable: true, message: reason, retryAfterMs: unavailableRetryAfterMs };
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
    const { availability, timeoutMs } = this.options;
    let timer: NodeJS.Timeout | undefined;
    try {
      const sent = Promise.all(
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
      if (timeoutMs === undefined) await sent;
      else {
        // The send goes on after the deadline: its outcome must not be an unhandled rejection.
        sent.catch(() => {});
        await Promise.race([
          sent,
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new PublishTimeout(`Kafka did not acknowledge within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      }
    } catch (error) {
      this.counters.failures += 1;
      const what = `publishing to Kafka topic ${this.options.topic} failed`;
      const timedOut = error instanceof PublishTimeout;
      const refused: PublishFailure = timedOut ? { retriable: true, message: `${what}: ${error.message}`, retryAfterMs: unavailableRetryAfterMs } : toPublishFailure(error, what);
      if (timedOut || isUnreachable(error)) availability?.unreachable(refused.message);
      return failure(refused);
    } finally {
      clearTimeout(timer);
    }
    availability?.reachable();
    this.counters.messages += messages.length;
    for (const message of messages) this.counters.bytes += message.value.byteLength;
    return success(undefined);
  }
}
