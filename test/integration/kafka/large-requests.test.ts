/**
 * `ragscope receive` (a real process) in front of a real broker, with the
 * broker's default size limit (message.max.bytes, ~1 MB), fed the requests an
 * SDK sends under load: a few MB of RAG traces at once. The broker limits a
 * partition's record batch, not a message, so the receiver must cut its
 * produce calls (produce-batches.ts); sent in one call, such a request was
 * refused as a whole with 500 and the client's spans were lost.
 *
 * Uses the cluster in KAFKA_BROKERS when test/run-tests.ts provides one;
 * run on its own, the file starts its own broker.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Kafka } from "kafkajs";
import { createTestKafkaClient } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { consumeMessages, createUniqueTopic, uniqueTopicName, type ConsumedMessage } from "../../support/kafka-helpers.js";
import { countSpans } from "../../../collector/00-otlp/count-spans.js";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import { postTraces, syntheticRequestBody, syntheticSpan, syntheticTraceId, text } from "../../support/synthetic-otlp-requests.js";
import { killAllCollectorProcesses, startCollectorProcess, type CollectorProcess } from "./support/collector-processes.js";

/** A retrieved passage of `bytes` ASCII characters, different per trace so nothing compresses across traces by accident. */
const passage = (trace: number, bytes: number) => `${trace} `.padEnd(bytes, "lorem ipsum dolor sit amet ");

describe("large requests through the receiver into Kafka", () => {
  let cluster: KafkaForTests;
  let kafka: Kafka;
  let topic: string;
  let receiver: CollectorProcess;

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
    topic = await createUniqueTopic(kafka, { prefix: "large", partitions: 3 });
    receiver = await startCollectorProcess("receiver", "receive", ["--kafka-brokers", cluster.brokers, "--topic", topic, "--port", "0"]);
  });

  after(async () => {
    await killAllCollectorProcesses();
    await cluster?.stop();
  });

  test("a request of 6 MB (150 traces of 40 KB) is taken whole: 200, and every trace is on the topic once", async () => {
    const traces = 150;
    const spans = [];
    for (let trace = 1; trace <= traces; trace += 1) {
      spans.push(syntheticSpan(trace, 0, []));
      spans.push(syntheticSpan(trace, 1, [text("retrieval.documents.0.document.content", passage(trace, 20_000)), text("retrieval.documents.1.document.content", passage(trace, 20_000))]));
    }
    const body = syntheticRequestBody(spans, "large-requests");
    assert.ok(body.byteLength > 6_000_000, `the request is ${body.byteLength} bytes`);

    const answer = await postTraces(receiver.receiverUrl!, body);
    assert.equal(answer.status, 200, `the receiver answered ${answer.status}: ${answer.body}`);

    const received = await consumeMessages(kafka, { topic, groupId: uniqueTopicName("large-reader"), until: (messages) => messages.length >= traces });
    const keys = received.map((message) => message.key).sort();
    const expected = Array.from({ length: traces }, (_, index) => syntheticTraceId(index + 1)).sort();
    assert.deepEqual(keys, expected, "one message per trace, keyed by its trace id");
    assert.equal(await receiver.sample("ragscope_spans_published_total"), 2 * traces);
  });

  test("a trace of 300 spans of 6 KB (1.8 MB) is published whole as several messages keyed by its trace id", async () => {
    const trace = 700;
    const spans = [syntheticSpan(trace, 0, [])];
    for (let index = 1; index < 300; index += 1) spans.push(syntheticSpan(trace, index, [text("retrieval.documents.0.document.content", passage(index, 6_000))]));
    const body = syntheticRequestBody(spans, "large-trace");
    assert.ok(body.byteLength > 1_800_000, `the request is ${body.byteLength} bytes`);

    const answer = await postTraces(receiver.receiverUrl!, body);
    assert.equal(answer.status, 200, `the receiver answered ${answer.status}: ${answer.body}`);

    const key = syntheticTraceId(trace);
    const countSpansOf = (messages: readonly ConsumedMessage[]) =>
      messages.filter((message) => message.key === key).reduce((sum, message) => {
        const decoded = decodeTraceRequest(message.valueBytes!, "protobuf");
        assert.ok(decoded.ok);
        return sum + countSpans(decoded.value);
      }, 0);
    const received = await consumeMessages(kafka, { topic, groupId: uniqueTopicName("large-trace-reader"), until: (messages) => countSpansOf(messages) >= 300 });
    const messages = received.filter((message) => message.key === key);
    assert.ok(messages.length >= 2, `${messages.length} message(s)`);
    for (const message of messages) assert.ok(message.valueBytes!.byteLength <= 1_000_000, `a message of ${message.valueBytes!.byteLength} bytes`);
    assert.equal(new Set(messages.map((message) => message.partition)).size, 1, "one partition: the trace's");
    assert.equal(countSpansOf(received), 300);
  });

  test("a span larger than the largest Kafka message is refused with 413 and says which setting limits it; the receiver goes on", async () => {
    const oversize = syntheticRequestBody([
      syntheticSpan(900, 0, []),
      syntheticSpan(900, 1, [text("retrieval.documents.0.document.content", passage(900, 700_000)), text("retrieval.documents.1.document.content", passage(901, 700_000))]),
    ]);
    const answer = await postTraces(receiver.receiverUrl!, oversize);
    assert.equal(answer.status, 413, answer.body);
    assert.match(answer.body, /RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES/);

    const small = await postTraces(receiver.receiverUrl!, syntheticRequestBody([syntheticSpan(901, 0, [])]));
    assert.equal(small.status, 200, small.body);
  });
});
