/**
 * kafkajs failures → retriable or not (collector/02-transport/kafka/kafka-failure.ts).
 *
 * The wrappers are made by kafkajs's own retrier, nested as a producer's send
 * nests it around the cluster's connect (kafkajs/src/producer/sendMessages.js):
 * a broker that is down ends as KafkaJSNonRetriableError → the connection
 * error, which the receiver must answer with 503 (OTLP clients retry it), not
 * 500 (they drop the spans).
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, test } from "node:test";
import type * as KafkaJs from "kafkajs";
import { isTooLarge, isUnreachable, toPublishFailure } from "../../../collector/02-transport/kafka/kafka-failure.js";

const require = createRequire(import.meta.url);
// kafkajs spreads its errors into its exports, which ESM's named-export detection does not see.
const { KafkaJSConnectionError, KafkaJSNonRetriableError, KafkaJSProtocolError, KafkaJSRequestTimeoutError } = require("kafkajs") as typeof KafkaJs;
type Retrier = <Value>(attempt: (bail: (error: Error) => void, retryCount: number) => Promise<Value>) => Promise<Value>;
const createRetry = require("kafkajs/src/retry") as (options: { retries: number; initialRetryTime: number; maxRetryTime: number }) => Retrier;
const quickly = { retries: 1, initialRetryTime: 1, maxRetryTime: 2 };

/** What a producer's send rejects with when every attempt fails with `cause` inside the cluster's own (retried) request. */
async function nestedFailure(cause: () => Error): Promise<unknown> {
  const outer = createRetry(quickly);
  const inner = createRetry(quickly);
  try {
    await outer(async () =>
      inner(async () => {
        throw cause();
      }),
    );
  } catch (error) {
    return error;
  }
  assert.fail("the retriers resolved");
}

/** The protocol errors kafkajs builds from broker error codes (src/protocol/error.js) carry type and retriable. */
const protocolError = (type: string, retriable: boolean) => new KafkaJSProtocolError({ message: `broker said ${type}`, type, code: 1, retriable } as unknown as Error);

describe("kafkajs failures → PublishFailure", () => {
  test("a broker that is down, wrapped twice by kafkajs's retriers, is retriable and unreachable", async () => {
    const error = await nestedFailure(() => new KafkaJSConnectionError("Connection error: connect ECONNREFUSED 127.0.0.1:9092", { broker: "127.0.0.1:9092", code: "ECONNREFUSED" }));
    // The shape the QA run met: the outer wrapper says "not retriable".
    assert.equal((error as Error).name, "KafkaJSNonRetriableError");
    const failure = toPublishFailure(error, "publishing to Kafka topic otlp_spans failed");
    assert.equal(failure.retriable, true);
    assert.match(failure.message, /^publishing to Kafka topic otlp_spans failed: Connection error: connect ECONNREFUSED/);
    assert.equal(failure.retryAfterMs, 1_000);
    assert.equal(isUnreachable(error), true);
    assert.equal(isTooLarge(error), false);
  });

  test("request timeouts, missing brokers and leaderless partitions are retriable", async () => {
    const timeout = await nestedFailure(() => new KafkaJSRequestTimeoutError("Request Produce(key: 0, version: 7) timed out", { broker: "b:9092", clientId: "ragscope", correlationId: 1, createdAt: 0, sentAt: 0, pendingDuration: 0 }));
    assert.equal(toPublishFailure(timeout, "x").retriable, true);
    assert.equal(isUnreachable(timeout), true);
    for (const type of ["LEADER_NOT_AVAILABLE", "NOT_LEADER_FOR_PARTITION", "NOT_ENOUGH_REPLICAS", "REQUEST_TIMED_OUT"]) {
      const error = await nestedFailure(() => protocolError(type, true));
      assert.equal(toPublishFailure(error, "x").retriable, true, type);
      // The broker answered: not a reason to refuse every request before sending.
      assert.equal(isUnreachable(error), false, type);
    }
    const notFound = await nestedFailure(() => Object.assign(new Error("No brokers in the broker pool"), { name: "KafkaJSBrokerNotFound", retriable: true }));
    assert.equal(toPublishFailure(notFound, "x").retriable, true);
    assert.equal(isUnreachable(notFound), true);
  });

  test("a message too large is not retriable, however deep kafkajs wrapped it", async () => {
    const error = await nestedFailure(() => protocolError("MESSAGE_TOO_LARGE", false));
    assert.equal(isTooLarge(error), true);
    const failure = toPublishFailure(error, "x");
    assert.equal(failure.retriable, false);
    assert.match(failure.message, /RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES/);
  });

  test("refusals no retry can fix, and bugs, are not retriable", async () => {
    const denied = await nestedFailure(() => protocolError("TOPIC_AUTHORIZATION_FAILED", false));
    assert.equal(toPublishFailure(denied, "x").retriable, false);
    const bug = await nestedFailure(() => new TypeError("Cannot read properties of undefined (reading 'length')"));
    assert.equal(toPublishFailure(bug, "x").retriable, false);
    assert.equal(toPublishFailure(new KafkaJSNonRetriableError("The producer is disconnecting; therefore, it can't safely accept messages anymore"), "x").retriable, false);
    assert.equal(toPublishFailure("a string", "x").retriable, false);
    // A cycle of causes ends the walk.
    const cyclic: { name: string; message: string; cause?: unknown } = { name: "Error", message: "loop" };
    cyclic.cause = cyclic;
    assert.equal(toPublishFailure(cyclic, "x").retriable, false);
  });
});
