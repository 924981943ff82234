/**
 * kafkajs errors → PublishFailure values, at the edge (STYLE.md: map codes at
 * the edge, never parse messages).
 *
 * kafkajs wraps the cause of a failure in retriers, and the wrappers say
 * nothing about whether a later attempt may succeed: KafkaJSNumberOfRetriesExceeded
 * (retries exhausted) is marked not retriable, and an outer retrier that sees
 * it wraps it again in a KafkaJSNonRetriableError (a producer's send retries
 * around the cluster's own connect retries, so a broker that is down ends
 * as NonRetriable → the connection error). Whether a later attempt may
 * succeed is decided from the innermost cause, following `.cause` through
 * every wrapper (kafkajs once restarted consumers forever because a wrapper
 * was retriable; the opposite mistake refused spans with 500 while a broker
 * restarted, and OTLP clients do not retry 500: the spans were lost).
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

/**
 * Failures where no broker answered, or not in time: the broker is down or
 * unreachable, a connection broke, the cluster's metadata could not be read.
 * All may succeed later (some, such as KafkaJSLockTimeout, kafkajs marks not
 * retriable only because its own retrier must not repeat them).
 */
const unreachableNames = new Set([
  "KafkaJSConnectionError",
  "KafkaJSConnectionClosedError",
  "KafkaJSRequestTimeoutError",
  "KafkaJSBrokerNotFound",
  "KafkaJSNoBrokerAvailableError",
  "KafkaJSMetadataNotLoaded",
  "KafkaJSTopicMetadataNotLoaded",
  "KafkaJSStaleTopicMetadataAssignment",
  "KafkaJSGroupCoordinatorNotFound",
  "KafkaJSLockTimeout",
  "KafkaJSTimeout",
]);

/** Thrown by JavaScript itself: a bug, never worth retrying. */
const bugNames = new Set(["TypeError", "RangeError", "ReferenceError", "SyntaxError"]);

/** The chain from the error thrown to its innermost cause (at most 10 deep; cycles end it). */
function causeChain(error: unknown): KafkaJsErrorShape[] {
  const chain: KafkaJsErrorShape[] = [];
  let current: unknown = error;
  while (current !== null && typeof current === "object" && chain.length < 10 && !chain.includes(current as KafkaJsErrorShape)) {
    chain.push(current as KafkaJsErrorShape);
    current = (current as KafkaJsErrorShape).cause;
  }
  return chain;
}

function rootCause(error: unknown): KafkaJsErrorShape {
  return causeChain(error).at(-1) ?? {};
}

export function isTooLarge(error: unknown): boolean {
  return causeChain(error).some((entry) => entry.type !== undefined && tooLargeTypes.has(entry.type));
}

/**
 * True when the failure says Kafka is unreachable (no broker answered, or not
 * in time), as opposed to a broker that answered with an error: the receiver
 * then refuses further requests at once until Kafka answers again
 * (broker-availability.ts).
 */
export function isUnreachable(error: unknown): boolean {
  const cause = rootCause(error);
  return cause.name !== undefined && unreachableNames.has(cause.name);
}

/** Whether the same publish may succeed later, from the innermost cause. */
export function isRetriable(error: unknown): boolean {
  const chain = causeChain(error);
  if (chain.some((entry) => entry.type !== undefined && tooLargeTypes.has(entry.type))) return false;
  const cause = chain.at(-1);
  if (cause === undefined || cause.name === undefined || bugNames.has(cause.name)) return false;
  if (unreachableNames.has(cause.name)) return true;
  // Errors without the kafkajs shape (a bug, a closed producer) are not retried blindly; a protocol error
  // (LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT, …) says itself.
  return cause.retriable === true;
}

export function toPublishFailure(error: unknown, what: string): PublishFailure {
  const cause = rootCause(error);
  const message = `${what}: ${cause.message ?? String(error)}`;
  // Batches are cut to RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES (produce-batches.ts): the broker refusing one means its limit is lower.
  if (isTooLarge(error)) return { retriable: false, message: `${message} (set RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES no higher than the topic's max.message.bytes)` };
  return { retriable: isRetriable(error), message, retryAfterMs: 1_000 };
}
