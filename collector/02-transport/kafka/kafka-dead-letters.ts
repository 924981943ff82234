/**
 * The dead-letter topic (`otlp_spans_dead_letters` by default): a message an
 * evaluator cannot use is copied there — key, value and headers as they were —
 * with headers that say why and where it came from, and its partition goes on
 * (DESIGN.md "Delivery guarantees"). The source offset counts as done only
 * once the dead letter is acknowledged, so a crash in between copies it again
 * rather than losing it.
 *
 * A value too large for the dead-letter topic is left out and the headers
 * say so (`ragscope.dead_letter.value_omitted`): the position still lets an
 * operator fetch the original.
 */
import type { IHeaders, Producer } from "kafkajs";
import { failure, success, type Result } from "../../../core/result.js";
import type { PublishFailure } from "../trace-bus.js";
import type { DeadLetter, DeadLetterHandler } from "../../07-evaluate/evaluation-worker.js";
import { isTooLarge, toPublishFailure } from "./kafka-failure.js";
import { compressionOf, type CompressionName } from "./compression-codecs.js";
import type { DeadLetterReason } from "./route-message.js";

export const deadLetterHeaders = {
  /** A short code: no_value, oversized, undecodable, wrong_encoding, unreadable, invalid_case_result; for spans refused in a message, invalid_id, future_time or zero_time. */
  reason: "ragscope.dead_letter.reason",
  /** The full sentence: what was wrong and, where it helps, what was expected. */
  detail: "ragscope.dead_letter.detail",
  sourceTopic: "ragscope.dead_letter.source_topic",
  sourcePartition: "ragscope.dead_letter.source_partition",
  sourceOffset: "ragscope.dead_letter.source_offset",
  deadLetteredAt: "ragscope.dead_letter.at",
  valueOmitted: "ragscope.dead_letter.value_omitted",
} as const;

export interface DeadLetterRecord {
  sourceTopic: string;
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers?: IHeaders | undefined;
  reason: DeadLetterReason | string;
  detail: string;
}

export interface KafkaDeadLettersOptions {
  topic: string;
  compression: CompressionName;
  /** The topic named in letters sent through the DeadLetterHandler interface. */
  defaultSourceTopic: string;
  clock?: () => number;
}

export class KafkaDeadLetters implements DeadLetterHandler {
  readonly counters = { letters: 0, valuesOmitted: 0, failures: 0 };
  readonly byReason = new Map<string, number>();

  constructor(
    private readonly producer: Producer,
    private readonly options: KafkaDeadLettersOptions,
  ) {}

  /** One attempt; retriable failures are retried by the caller. */
  async deadLetter(record: DeadLetterRecord): Promise<Result<void, PublishFailure>> {
    const headers: IHeaders = {
      ...(record.headers ?? {}),
      [deadLetterHeaders.reason]: String(record.reason),
      [deadLetterHeaders.detail]: record.detail,
      [deadLetterHeaders.sourceTopic]: record.sourceTopic,
      [deadLetterHeaders.sourcePartition]: String(record.partition),
      [deadLetterHeaders.sourceOffset]: record.offset,
      [deadLetterHeaders.deadLetteredAt]: new Date((this.options.clock ?? Date.now)()).toISOString(),
    };
    const send = (value: Buffer | null, extra: IHeaders) =>
      this.producer.send({
        topic: this.options.topic,
        acks: -1,
        compression: compressionOf(this.options.compression),
        messages: [{ key: record.key, value, headers: { ...headers, ...extra } }],
      });
    try {
      try {
        await send(record.value, {});
      } catch (error) {
        if (!isTooLarge(error) || record.value === null) throw error;
        this.counters.valuesOmitted += 1;
        await send(null, { [deadLetterHeaders.valueOmitted]: `${record.value.length} bytes: larger than the dead-letter topic accepts; read the source position` });
      }
    } catch (error) {
      this.counters.failures += 1;
      return failure(toPublishFailure(error, `writing a dead letter to ${this.options.topic} failed`));
    }
    this.counters.letters += 1;
    this.byReason.set(String(record.reason), (this.byReason.get(String(record.reason)) ?? 0) + 1);
    return success(undefined);
  }

  /** The EvaluationWorker's interface; the Kafka roles call deadLetter() with the full source position instead. */
  async send(letter: DeadLetter): Promise<void> {
    const sent = await this.deadLetter({
      sourceTopic: this.options.defaultSourceTopic,
      partition: letter.message.position.partition,
      offset: letter.message.position.offset,
      key: letter.message.key === null ? null : Buffer.from(letter.message.key),
      value: Buffer.from(letter.message.value),
      headers: letter.message.headers,
      reason: letter.code ?? "undecodable",
      detail: letter.reason,
    });
    // The interface has no failure value: a dead letter that cannot be written must not be acknowledged.
    if (!sent.ok) throw new Error(sent.error.message);
  }
}
