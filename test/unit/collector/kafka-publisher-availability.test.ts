/**
 * The receiver's Kafka publisher while Kafka is away (kafka-trace-publisher.ts,
 * broker-availability.ts): a publish Kafka does not acknowledge in time fails
 * retriably at the deadline (the receiver answers 503 before the client's
 * export timeout), and from then on publishes are refused at once (`refusal`,
 * asked before the body is read) until a produce request or a probe sees
 * Kafka again. A producer that answers with a protocol error does not make
 * Kafka "unreachable".
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Producer } from "kafkajs";
import { BrokerAvailability } from "../../../collector/02-transport/kafka/broker-availability.js";
import { KafkaTracePublisher } from "../../../collector/02-transport/kafka/kafka-trace-publisher.js";

const message = { key: "0af7651916cd43dd8448eb211c80319c", value: new Uint8Array(10) };

function fakeProducer(send: () => Promise<unknown>): Producer {
  return { send } as unknown as Producer;
}

function availability(probe: () => Promise<void> = async () => {}): BrokerAvailability {
  return new BrokerAvailability({ probe, intervalMs: 60_000, retryIntervalMs: 60_000, probeTimeoutMs: 100 });
}

const options = { topic: "otlp_spans", maxMessageBytes: 1_000_000, compression: "none" as const };

describe("the receiver's Kafka publisher while Kafka is away", () => {
  test("no acknowledgement by the deadline: a retriable failure then, and refusals at once until Kafka is seen again", async () => {
    let answer: () => Promise<unknown> = () => new Promise(() => {});
    const known = availability();
    const publisher = new KafkaTracePublisher(fakeProducer(() => answer()), { ...options, timeoutMs: 200, availability: known });
    assert.equal(publisher.refusal(), null);
    const started = Date.now();
    const result = await publisher.publish([message]);
    assert.ok(Date.now() - started < 2_000, "the deadline, not kafkajs's retries");
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.error.retriable, true);
    assert.ok(result.error.retryAfterMs !== undefined);
    assert.match(result.error.message, /did not acknowledge within 200 ms/);

    const refusal = publisher.refusal();
    assert.ok(refusal !== null && refusal.retriable, "refused before the body is read");
    assert.match(refusal.message, /^Kafka unreachable for \d+ s: /);
    assert.match(known.unavailableReason ?? "", /Kafka unreachable/);

    // A probe that gets an answer: publishes go through again.
    await known.probe();
    assert.equal(publisher.refusal(), null);
    answer = async () => [{ topicName: "otlp_spans", partition: 0, errorCode: 0 }];
    assert.equal((await publisher.publish([message])).ok, true);
  });

  test("a broker down (kafkajs's connection error) marks Kafka unreachable; a failed probe keeps it so; a produce that succeeds ends it", async () => {
    const connectionError = Object.assign(new Error("Connection error: connect ECONNREFUSED 127.0.0.1:9092"), { name: "KafkaJSConnectionError", retriable: true });
    const wrapped = Object.assign(new Error(connectionError.message), { name: "KafkaJSNonRetriableError", retriable: false, cause: connectionError });
    let fail = true;
    let probeFails = true;
    const known = availability(async () => {
      if (probeFails) throw new Error("no broker answered");
    });
    const publisher = new KafkaTracePublisher(fakeProducer(async () => (fail ? Promise.reject(wrapped) : [])), { ...options, timeoutMs: 5_000, availability: known });
    const result = await publisher.publish([message]);
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.error.retriable, true, "503, which clients retry; not 500");
    assert.notEqual(publisher.refusal(), null);
    await known.probe();
    assert.match(publisher.refusal()?.message ?? "", /metadata request failed: no broker answered/);
    probeFails = false;
    fail = false;
    await known.probe();
    assert.equal(publisher.refusal(), null);
    assert.equal((await publisher.publish([message])).ok, true);
  });

  test("a broker that answers with an error does not stop the publishes that follow", async () => {
    const leaderless = Object.assign(new Error("There is no leader for this topic-partition"), { name: "KafkaJSProtocolError", type: "LEADER_NOT_AVAILABLE", retriable: true });
    const known = availability();
    const publisher = new KafkaTracePublisher(fakeProducer(() => Promise.reject(leaderless)), { ...options, timeoutMs: 5_000, availability: known });
    const result = await publisher.publish([message]);
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.error.retriable, true);
    assert.equal(publisher.refusal(), null);
  });

  test("a probe that does not answer in time marks Kafka unreachable; the periodic probe never keeps the process alive", async () => {
    const known = new BrokerAvailability({ probe: () => new Promise(() => {}), intervalMs: 10, retryIntervalMs: 10, probeTimeoutMs: 50 });
    known.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.match(known.unavailableReason ?? "", /no answer within 50 ms/);
    known.stop();
  });
});
