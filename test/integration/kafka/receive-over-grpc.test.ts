/**
 * `ragscope receive` (a real process) takes OTLP/gRPC into a real broker: a raw grpc-js client exports two
 * traces in one gzip-compressed message, with the receiver's bearer token in the `authorization` metadata, and
 * the topic holds one OTLP protobuf message per trace keyed by its trace id, as over OTLP/HTTP — acknowledged
 * (OK) only once Kafka took them. A call without the token is refused UNAUTHENTICATED and publishes nothing.
 *
 * Uses the cluster in KAFKA_BROKERS when test/run-tests.ts provides one; run on its own, the file starts its own broker.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import grpc, { Metadata } from "@grpc/grpc-js";
import type { Kafka } from "kafkajs";
import { countSpans } from "../../../collector/00-otlp/count-spans.js";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import { createTestKafkaClient } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { consumeMessages, createUniqueTopic, uniqueTopicName } from "../../support/kafka-helpers.js";
import { syntheticRequestBody, syntheticSpan, syntheticTraceId } from "../../support/synthetic-otlp-requests.js";
import { killAllCollectorProcesses, startCollectorProcess } from "./support/collector-processes.js";

const TOKEN = "kafka-grpc-token-0123456789";
const EXPORT_PATH = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
const identity = (bytes: Buffer) => bytes;

describe("ragscope receive over OTLP/gRPC", () => {
  let cluster: KafkaForTests;
  let kafka: Kafka;

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
  });
  after(async () => {
    await killAllCollectorProcesses();
    await cluster?.stop();
  });

  test("two traces in one gzip message: one keyed OTLP message per trace on the topic; no token: UNAUTHENTICATED", async () => {
    const topic = await createUniqueTopic(kafka, { prefix: "receive-grpc", partitions: 3 });
    const receiver = await startCollectorProcess("receiver-grpc", "receive", ["--kafka-brokers", cluster.brokers, "--topic", topic, "--port", "0"], { RAGSCOPE_AUTH_TOKENS: TOKEN });
    const grpcUrl = receiver.output.map((line) => /OTLP\/gRPC on (http:\/\/\S+)/.exec(line)?.[1]).find((url) => url !== undefined);
    assert.ok(grpcUrl, receiver.output.join("\n"));
    const client = new grpc.Client(new URL(grpcUrl).host, grpc.credentials.createInsecure(), { "grpc.default_compression_algorithm": grpc.compressionAlgorithms.gzip });
    const call = (metadata: Metadata, body: Buffer) =>
      new Promise<number>((resolve) => client.makeUnaryRequest(EXPORT_PATH, identity, identity, body, metadata, (error) => resolve(error ? error.code : grpc.status.OK)));
    try {
      const body = Buffer.from(syntheticRequestBody([syntheticSpan(1, 0, []), syntheticSpan(1, 1, []), syntheticSpan(2, 0, [])], "kafka-grpc"));
      assert.equal(await call(new Metadata(), body), grpc.status.UNAUTHENTICATED);
      const authorized = new Metadata();
      authorized.set("authorization", `Bearer ${TOKEN}`);
      assert.equal(await call(authorized, body), grpc.status.OK);
    } finally {
      client.close();
    }
    const received = await consumeMessages(kafka, { topic, groupId: uniqueTopicName("receive-grpc-reader"), until: (messages) => messages.length >= 2 });
    assert.equal(await receiver.kill("SIGTERM"), 0);
    assert.deepEqual(received.map((message) => message.key).sort(), [syntheticTraceId(1), syntheticTraceId(2)]);
    const spans = received.map((message) => {
      const decoded = decodeTraceRequest(message.valueBytes!, "protobuf");
      assert.ok(decoded.ok, "every message is an OTLP request");
      return countSpans(decoded.value);
    });
    assert.deepEqual(spans.sort(), [1, 2], "the unauthenticated call published nothing");
  });
});
