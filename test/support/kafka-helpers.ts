/**
 * Small helpers for tests that talk to a real Kafka broker: uniquely named
 * topics (so tests sharing one broker never see each other's data), a polling
 * wait, and produce/consume conveniences built on kafkajs.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { ConsumerConfig, IHeaders, ITopicConfig, Kafka, Message, RecordMetadata } from "kafkajs";
import { createTestProducer } from "./kafka-client.js";

/** `<prefix>-<base36 time>-<8 hex>`: unique across tests, runs and parallel files. */
export function uniqueTopicName(prefix = "test"): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
}

export interface UniqueTopicOptions {
  readonly prefix?: string;
  readonly partitions?: number;
  readonly configEntries?: ITopicConfig["configEntries"];
}

/** Creates a fresh topic and resolves with its name once every partition has a leader. */
export async function createUniqueTopic(kafka: Kafka, options: UniqueTopicOptions = {}): Promise<string> {
  const topic = uniqueTopicName(options.prefix);
  const admin = kafka.admin();
  await admin.connect();
  try {
    const created = await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic, numPartitions: options.partitions ?? 1, ...(options.configEntries === undefined ? {} : { configEntries: options.configEntries }) }],
    });
    if (!created) throw new Error(`topic ${topic} already existed; uniqueTopicName should have prevented that`);
    return topic;
  } finally {
    await admin.disconnect();
  }
}

export interface WaitUntilOptions {
  /** Says what is awaited; it is part of the timeout error. */
  readonly description: string;
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

/**
 * Polls `probe` until it returns something other than undefined or false, and
 * resolves with that. A probe that throws counts as "not yet"; its last error
 * is reported if time runs out.
 */
export async function waitUntil<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, options: WaitUntilOptions): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError === undefined ? "" : ` (last error: ${String(lastError)})`;
      throw new Error(`timed out after ${options.timeoutMs ?? 15_000} ms waiting for ${options.description}${cause}`);
    }
    await delay(options.intervalMs ?? 100);
  }
}

/** Sends `messages` with a short-lived producer (acks=-1), in batches. */
export async function produceMessages(kafka: Kafka, topic: string, messages: readonly Message[], batchSize = 500): Promise<RecordMetadata[]> {
  const producer = createTestProducer(kafka);
  await producer.connect();
  try {
    const metadata: RecordMetadata[] = [];
    for (let start = 0; start < messages.length; start += batchSize) {
      metadata.push(...(await producer.send({ topic, acks: -1, messages: messages.slice(start, start + batchSize) })));
    }
    return metadata;
  } finally {
    await producer.disconnect();
  }
}

export interface ConsumedMessage {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string | undefined;
  readonly value: string | undefined;
  /** The value as it was sent (binary values, such as OTLP protobuf, do not survive `value`'s UTF-8 decoding). */
  readonly valueBytes: Buffer | undefined;
  readonly headers: IHeaders | undefined;
}

export interface ConsumeMessagesOptions {
  readonly topic: string;
  readonly groupId: string;
  /** Where a group without committed offsets starts. Default true. */
  readonly fromBeginning?: boolean;
  /** Consumption stops once this returns true for the messages received so far. */
  readonly until: (received: readonly ConsumedMessage[]) => boolean;
  readonly timeoutMs?: number;
  /** Merged over the defaults below (groupId always comes from `groupId`). */
  readonly consumerConfig?: Partial<ConsumerConfig>;
}

/**
 * Runs a consumer-group member until `until` is satisfied, then disconnects it.
 * kafkajs commits the offsets of every processed batch (autoCommit), and
 * disconnecting leaves the group, so a later member of the same group resumes
 * after the last message returned here. Every message delivered before the
 * consumer stopped is returned, even past the point `until` became true.
 */
export async function consumeMessages(kafka: Kafka, options: ConsumeMessagesOptions): Promise<ConsumedMessage[]> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const consumer = kafka.consumer({
    // The broker rejects sessions shorter than group.min.session.timeout.ms (6000 by default).
    sessionTimeout: 10_000,
    heartbeatInterval: 1_000,
    // Short fetch waits keep disconnect() (which waits for the fetch in flight) fast.
    maxWaitTimeInMs: 250,
    ...options.consumerConfig,
    groupId: options.groupId,
  });
  const received: ConsumedMessage[] = [];
  let satisfy: () => void = () => {};
  const satisfied = new Promise<void>((resolve) => {
    satisfy = resolve;
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`consumer ${options.groupId} received ${received.length} messages from ${options.topic} in ${timeoutMs} ms without satisfying its stop condition`)),
      timeoutMs,
    );
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [options.topic], fromBeginning: options.fromBeginning ?? true });
    await consumer.run({
      eachMessage: async ({ topic, partition, message }) => {
        received.push({
          topic,
          partition,
          offset: message.offset,
          key: message.key?.toString("utf8"),
          value: message.value?.toString("utf8"),
          valueBytes: message.value ?? undefined,
          headers: message.headers,
        });
        // Resolve, never await consumer.stop() here: stop waits for this handler.
        if (options.until(received)) satisfy();
      },
    });
    await Promise.race([satisfied, timedOut]);
    return received;
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
  }
}

/** Per partition: the offset the group committed (-1 when none) and the log end offset. */
export interface PartitionProgress {
  readonly partition: number;
  readonly committed: string;
  readonly end: string;
}

export async function groupProgress(kafka: Kafka, groupId: string, topic: string): Promise<PartitionProgress[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(topic);
    const [committedForTopic] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const committed = new Map((committedForTopic?.partitions ?? []).map((entry) => [entry.partition, entry.offset]));
    return ends
      .map((entry) => ({ partition: entry.partition, committed: committed.get(entry.partition) ?? "-1", end: entry.high }))
      .sort((left, right) => left.partition - right.partition);
  } finally {
    await admin.disconnect();
  }
}

/** Whether the group has committed to the log end of every partition of the topic (everything read was settled); an empty partition has nothing to commit. */
export async function committedAtEnd(kafka: Kafka, groupId: string, topic: string): Promise<boolean> {
  return (await groupProgress(kafka, groupId, topic)).every((partition) => partition.committed === partition.end || (partition.end === "0" && partition.committed === "-1"));
}

/** Waits until committedAtEnd holds. */
export async function waitForCommitsAtEnd(kafka: Kafka, groupId: string, topic: string, timeoutMs = 30_000): Promise<void> {
  await waitUntil(() => committedAtEnd(kafka, groupId, topic), {
    description: "commits at the end of every partition",
    timeoutMs,
    intervalMs: 250,
  });
}
