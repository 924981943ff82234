/**
 * The TraceSource contract (test/support/trace-source-contract.ts) against
 * Kafka on the real broker: each transport a fresh one-partition topic and
 * consumer group; a reader is the evaluator's ConsumerGroupRunner. Durable: a
 * reader stopped without committing (a crash, as far as offsets go) leaves
 * its uncommitted messages to the next member of the group.
 *
 * "Cannot take more" for Kafka is a broker that cannot take the write: here
 * one that cannot be reached (a closed port), the retriable failure a broker
 * restart or outage gives the receiver.
 */
import net from "node:net";
import { after, before } from "node:test";
import { logLevel, type Kafka, type Producer } from "kafkajs";
import { ConsumerGroupRunner } from "../../../collector/02-transport/kafka/consumer-group-runner.js";
import { createKafkaClient } from "../../../collector/02-transport/kafka/kafka-client.js";
import { KafkaDeadLetters } from "../../../collector/02-transport/kafka/kafka-dead-letters.js";
import { KafkaTracePublisher } from "../../../collector/02-transport/kafka/kafka-trace-publisher.js";
import { Repartitioner } from "../../../collector/02-transport/kafka/repartitioner.js";
import { saramaCompatiblePartitioner } from "../../../collector/02-transport/kafka/sarama-partitioner.js";
import { spanCheckSettings } from "../../../collector/wiring/run/kafka-evaluator-role.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { createUniqueTopic, uniqueTopicName } from "../../support/kafka-helpers.js";
import { traceSourceContract, type SourceUnderTest, type TransportUnderTest } from "../../support/trace-source-contract.js";
import { evaluatorConfig } from "./support/in-process-evaluators.js";

let cluster: KafkaForTests;

before(async () => {
  cluster = await ensureKafkaForTests();
});

after(async () => {
  await cluster.stop();
});

traceSourceContract("Kafka", async () => {
  const kafka: Kafka = createKafkaClient({ brokers: cluster.brokers.split(","), clientId: "ragscope-source-contract" }, { level: logLevel.NOTHING });
  const topic = await createUniqueTopic(kafka, { prefix: "source_contract" });
  const deadLetterTopic = await createUniqueTopic(kafka, { prefix: "source_contract_dead_letters" });
  const config = evaluatorConfig({ "kafka.brokers": cluster.brokers.split(","), "kafka.topic": topic, "kafka.deadLetterTopic": deadLetterTopic, "kafka.groupId": uniqueTopicName("source_contract_group") });
  const producers: Producer[] = [];
  const producer = async (retries: number) => {
    const created = kafka.producer({ createPartitioner: saramaCompatiblePartitioner, allowAutoTopicCreation: false, retry: { retries } });
    await created.connect();
    producers.push(created);
    return created;
  };
  const writer = await producer(2);
  const publisher = new KafkaTracePublisher(writer, { topic, maxMessageBytes: config.kafka.maxMessageBytes, compression: "none" });
  const readers: SourceUnderTest[] = [];
  const transport: TransportUnderTest = {
    capabilities: { durable: true },
    publisher,
    async openSource(progress) {
      const stop = new AbortController();
      const runner = new ConsumerGroupRunner({
        kafka,
        settings: config.kafka,
        progress,
        repartitioner: new Repartitioner(publisher),
        deadLetters: new KafkaDeadLetters(writer, { topic: deadLetterTopic, compression: "none", defaultSourceTopic: topic }),
        maxHeapBytes: 512 * 1024 * 1024,
        signal: stop.signal,
        log: () => {},
        spanChecks: spanCheckSettings(config),
      });
      await runner.start();
      // Stopping the runner commits nothing (the driver commits before, in a process): alone, it is a crash.
      const end = async () => {
        stop.abort();
        await runner.stop();
      };
      const reader = { source: runner, crash: end, close: end };
      readers.push(reader);
      return reader;
    },
    async fullPublisher() {
      const unreachable = createKafkaClient({ brokers: [`127.0.0.1:${await closedPort()}`], clientId: "ragscope-source-contract" }, { level: logLevel.NOTHING });
      const refusing = unreachable.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
      return new KafkaTracePublisher(refusing, { topic, maxMessageBytes: config.kafka.maxMessageBytes, compression: "none" });
    },
    async close() {
      for (const reader of readers) await reader.close();
      for (const created of producers) await created.disconnect();
    },
  };
  return transport;
});

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
