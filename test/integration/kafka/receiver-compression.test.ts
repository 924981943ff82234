/**
 * What `ragscope receive` (a real process) writes to a real broker with
 * `--compression lz4` (deploy/ sets RAGSCOPE_KAFKA_COMPRESSION=lz4): LZ4
 * record batches, read back whole; and with the default, uncompressed ones.
 * A consumer in this process counts the batches its LZ4 codec decompresses
 * (kafkajs hands every compressed batch to the codec registered for it).
 *
 * Uses the cluster in KAFKA_BROKERS when test/run-tests.ts provides one;
 * run on its own, the file starts its own broker.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import kafkajs, { type Kafka } from "kafkajs";
import { countSpans } from "../../../collector/00-otlp/count-spans.js";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import { registerCompressionCodecs, type KafkaCodec } from "../../../collector/02-transport/kafka/compression-codecs.js";
import { createTestKafkaClient } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { consumeMessages, createUniqueTopic, uniqueTopicName } from "../../support/kafka-helpers.js";
import { postTraces, syntheticRequestBody, syntheticSpan, syntheticTraceId, text } from "../../support/synthetic-otlp-requests.js";
import { killAllCollectorProcesses, startCollectorProcess } from "./support/collector-processes.js";

const { CompressionCodecs, CompressionTypes } = kafkajs;
const TRACES = 40;

describe("the receiver's compression", () => {
  let cluster: KafkaForTests;
  let kafka: Kafka;
  let lz4Batches = 0;

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
    registerCompressionCodecs();
    const codecs = CompressionCodecs as unknown as Record<number, () => KafkaCodec>;
    const registered = codecs[CompressionTypes.LZ4]!;
    codecs[CompressionTypes.LZ4] = () => {
      const codec = registered();
      return {
        compress: (encoder) => codec.compress(encoder),
        decompress: (buffer) => {
          lz4Batches += 1;
          return codec.decompress(buffer);
        },
      };
    };
  });

  after(async () => {
    await killAllCollectorProcesses();
    await cluster?.stop();
  });

  /** Sends TRACES traces of two spans (one with a retrieved passage) through a receiver started with `flags`; the spans and LZ4 batches read back. */
  async function throughReceiver(flags: string[]): Promise<{ spans: number; keys: string[]; lz4Batches: number }> {
    const topic = await createUniqueTopic(kafka, { prefix: "receiver-compression", partitions: 3 });
    const receiver = await startCollectorProcess(`receiver-${flags.join("-") || "default"}`, "receive", ["--kafka-brokers", cluster.brokers, "--topic", topic, "--port", "0", ...flags]);
    const spans = [];
    for (let trace = 1; trace <= TRACES; trace += 1) {
      spans.push(syntheticSpan(trace, 0, []));
      spans.push(syntheticSpan(trace, 1, [text("retrieval.documents.0.document.content", `${trace} `.padEnd(2_000, "annual leave carries over up to five days "))]));
    }
    const answer = await postTraces(receiver.receiverUrl!, syntheticRequestBody(spans, "compression"));
    assert.equal(answer.status, 200, answer.body);
    const before = lz4Batches;
    const received = await consumeMessages(kafka, { topic, groupId: uniqueTopicName("compression-reader"), until: (messages) => messages.length >= TRACES });
    await receiver.kill("SIGTERM");
    let spanCount = 0;
    for (const message of received) {
      const decoded = decodeTraceRequest(message.valueBytes!, "protobuf");
      assert.ok(decoded.ok, "every message is an OTLP request");
      spanCount += countSpans(decoded.value);
    }
    return { spans: spanCount, keys: received.map((message) => message.key!).sort(), lz4Batches: lz4Batches - before };
  }

  const expectedKeys = Array.from({ length: TRACES }, (_, index) => syntheticTraceId(index + 1)).sort();

  test("with --compression lz4 the messages travel in LZ4 batches and arrive whole, one per trace", async () => {
    const read = await throughReceiver(["--compression", "lz4"]);
    assert.ok(read.lz4Batches > 0, "the consumer decompressed LZ4 batches");
    assert.equal(read.spans, 2 * TRACES);
    assert.deepEqual(read.keys, expectedKeys);
  });

  test("by default the messages are not compressed", async () => {
    const read = await throughReceiver([]);
    assert.equal(read.lz4Batches, 0);
    assert.equal(read.spans, 2 * TRACES);
    assert.deepEqual(read.keys, expectedKeys);
  });
});
