/**
 * kafkajs errors → PublishFailure values, at the edge (STYLE.md: map codes at
 * the edge, never parse messages).
 *
 * kafkajs wraps the cause of an exhausted retry in
 * KafkaJSNumberOfRetriesExceeded, which it marks not retriable; whether a
 * later attempt may succeed is decided from the original cause instead
 * (kafkajs once restarted consumers forever because that wrapper was
 * retriable; here the mistake would be the opposite: refusing spans forever
 * after a broker restart).
 */
import type { PublishFailure } from "../trace-bus.js";

interface KafkaJsErrorShape {
  name?: string;
  message?: string;
  retriable?: boolean;
  type?: string;
  cause?: unknown;
}

/** Protocol errors no retry can fix: the message or batch is too large for the broker. */
const tooLargeTypes = new Set(["MESSAGE_TOO_LARGE", "RECORD_LIST_TOO_LARGE", "INVALID_RECORD"]);

function rootCause(error: unknown): KafkaJsErrorShape {
  let current = error as KafkaJsErrorShape;
  for (let depth = 0; depth < 10 && current?.name === "KafkaJSNumberOfRetriesExceeded" && current.cause; depth += 1) {
    current = current.cause as KafkaJsErrorShape;
  }
  return current ?? {};
}

export function isTooLarge(error: unknown): boolean {
  const cause = rootCause(error);
  return cause.type !== undefined && tooLargeTypes.has(cause.type);
}

export function toPublishFailure(error: unknown, what: string): PublishFailure {
  const cause = rootCause(error);
  const message = `${what}: ${cause.message ?? String(error)}`;
  // Batches are cut to RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES (produce-batches.ts): the broker refusing one means its limit is lower.
  if (cause.type !== undefined && tooLargeTypes.has(cause.type))
    return { retriable: false, message: `${message} (set RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES no higher than the topic's max.message.bytes)` };
  // Errors without the kafkajs shape (a bug, a closed producer) are not retried blindly.
  return { retriable: cause.retriable ?? false, message, retryAfterMs: 1_000 };
}
