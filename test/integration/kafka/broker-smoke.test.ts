/**
 * The test broker works end to end with kafkajs: keyed produce, group
 * consumption, offset commits, and a restart on the same ports and data.
 *
 * Uses the cluster in KAFKA_BROKERS when test/run-tests.ts provides one;
 * run on its own, the file starts its own broker.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Kafka } from "kafkajs";
import { startKafkaBroker } from "../../support/kafka-broker.js";
import { createTestKafkaClient } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { consumeMessages, createUniqueTopic, groupProgress, produceMessages, uniqueTopicName, waitUntil } from "../../support/kafka-helpers.js";

const messageCount = 1000;
const partitionCount = 3;

describe("Kafka test broker", () => {
  let cluster: KafkaForTests | undefined;
  let kafka: Kafka;

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
  });

  after(async () => {
    await cluster?.stop();
  });

  test("a consumer group receives every keyed message once, and a later member resumes after the commit", async () => {
    const topic = await createUniqueTopic(kafka, { prefix: "smoke", partitions: partitionCount });
    const groupId = uniqueTopicName("smoke-group");
    const sent = Array.from({ length: messageCount }, (_, index) => ({ key: `key-${index}`, value: `value-${index}` }));
    const metadata = await produceMessages(kafka, topic, sent);
    assert.ok(metadata.every((entry) => entry.errorCode === 0));

    const received = await consumeMessages(kafka, { topic, groupId, until: (messages) => messages.length >= messageCount });

    assert.equal(received.length, messageCount);
    const valueByKey = new Map<string, string | undefined>();
    for (const message of received) {
      assert.ok(message.key !== undefined, "every message was sent with a key");
      assert.ok(!valueByKey.has(message.key), `key ${message.key} was delivered twice`);
      valueByKey.set(message.key, message.value);
    }
    for (const message of sent) assert.equal(valueByKey.get(message.key), message.value);

    // Keyed partitioning spread the keys over every partition, and each
    // partition was read in order from offset 0 with no gap.
    const offsetsByPartition = new Map<number, number[]>();
    for (const message of received) {
      const offsets = offsetsByPartition.get(message.partition) ?? [];
      offsets.push(Number(message.offset));
      offsetsByPartition.set(message.partition, offsets);
    }
    assert.deepEqual([...offsetsByPartition.keys()].sort(), [0, 1, 2]);
    for (const offsets of offsetsByPartition.values()) {
      assert.deepEqual(offsets, offsets.map((_, index) => index));
    }

    // The group committed the log end of every partition by the time it stopped.
    const progress = await waitUntil(
      async () => {
        const partitions = await groupProgress(kafka, groupId, topic);
        return partitions.every((partition) => partition.committed === partition.end) ? partitions : undefined;
      },
      { description: "the group's commits to reach the log end", timeoutMs: 5_000 },
    );
    assert.equal(progress.length, partitionCount);
    assert.equal(
      progress.reduce((total, partition) => total + Number(partition.end), 0),
      messageCount,
    );

    // One new message per partition; a new member of the same group must get
    // exactly these. Had the commit been lost it would start from the
    // beginning (fromBeginning) and see the 1000 old messages as well.
    const markers = Array.from({ length: partitionCount }, (_, partition) => ({ partition, key: `marker-${partition}`, value: "after-commit" }));
    await produceMessages(kafka, topic, markers);
    const resumed = await consumeMessages(kafka, {
      topic,
      groupId,
      fromBeginning: true,
      until: (messages) => messages.filter((message) => message.value === "after-commit").length >= partitionCount,
    });
    assert.deepEqual(resumed.map((message) => message.key).sort(), markers.map((marker) => marker.key).sort());
  });

  test("a broker restarted after a crash keeps its address and its data", async () => {
    // Always a broker of its own: this test kills it.
    const broker = await startKafkaBroker();
    try {
      const client = createTestKafkaClient(broker.brokers);
      const topic = await createUniqueTopic(client, { prefix: "restart", partitions: 2 });
      const sent = Array.from({ length: 50 }, (_, index) => ({ key: `key-${index}`, value: `before-${index}` }));
      await produceMessages(client, topic, sent);

      await broker.restart({ signal: "SIGKILL" });
      assert.ok(broker.isRunning());

      await produceMessages(client, topic, [{ key: "late", value: "after-restart" }]);
      const received = await consumeMessages(client, {
        topic,
        groupId: uniqueTopicName("restart-group"),
        until: (messages) => messages.length >= sent.length + 1,
      });
      assert.deepEqual(
        received.map((message) => message.value).sort(),
        [...sent.map((message) => message.value), "after-restart"].sort(),
      );
    } finally {
      await broker.stop();
    }
  });
});
