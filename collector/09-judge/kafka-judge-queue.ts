/**
 * The judge queue on Kafka (production): topic `ragscope_judge_requests`, one
 * message per sampled Case Result — key = case_result_id (a replay of the
 * same trace lands on the same partition, in order), value = the JSON of
 * judge-request-message.ts — read by the consumer group `ragscope-judges`.
 *
 * Delivery: `eachBatch` with auto-resolve off. A slice of a batch is resolved,
 * and its offsets committed, only after the handler returned success — after
 * the judge results are durable. On failure nothing more of the batch is
 * resolved: the slice is delivered again after a backoff (the one retry
 * helper, heartbeating meanwhile, so the member keeps its partitions); when
 * the member stops or loses the partition meanwhile, kafkajs fetches from the
 * last resolved offset. A crash or a rebalance replays the unacknowledged requests;
 * the judge cache and deterministic result ids make that free and harmless.
 * A message that does not parse is logged, counted and skipped — one poisoned
 * message never stops a partition.
 *
 * This topic is not the span stream: the evaluation worker only produces to
 * it, so judging never holds the span topic's offsets.
 */
import { Partitioners, type Consumer, type EachBatchPayload, type Kafka, type Producer } from "kafkajs";
import { failure, success, type Result } from "../../core/result.js";
import { retry, type RetryPolicy } from "../../core/retry.js";
import type { JudgeBatchHandler, JudgeQueue, JudgeQueueFailure } from "./judge-queue.js";
import { decodeJudgeRequest, encodeJudgeRequest, type JudgeRequestMessage } from "./judge-request-message.js";

export const DEFAULT_JUDGE_REQUEST_TOPIC = "ragscope_judge_requests";
export const DEFAULT_JUDGE_CONSUMER_GROUP = "ragscope-judges";

export interface KafkaJudgeQueueOptions {
  kafka: Kafka;
  topic?: string;
  groupId?: string;
  /** Requests per handler call. */
  batchSize?: number;
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** Longest wait of a fetch for new messages; short keeps close() quick. */
  maxWaitTimeInMs?: number;
  log?: (line: string) => void;
}

export class KafkaJudgeQueue implements JudgeQueue {
  readonly topic: string;
  readonly groupId: string;
  readonly counters = { produced: 0, produceFailures: 0, acknowledged: 0, redeliveries: 0, poisonMessages: 0 };
  lastFailure: string | null = null;
  private readonly producer: Producer;
  private producerConnected: Promise<void> | null = null;
  private consumer: Consumer | null = null;
  private inFlight = 0;
  private readonly log: (line: string) => void;

  constructor(private readonly options: KafkaJudgeQueueOptions) {
    this.topic = options.topic ?? DEFAULT_JUDGE_REQUEST_TOPIC;
    this.groupId = options.groupId ?? DEFAULT_JUDGE_CONSUMER_GROUP;
    this.log = options.log ?? ((line) => console.warn(line));
    // Murmur2, as the Java client: the partition of a key is the same from any producer.
    this.producer = options.kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  }

  async enqueue(messages: readonly JudgeRequestMessage[]): Promise<Result<void, JudgeQueueFailure>> {
    if (messages.length === 0) return success(undefined);
    try {
      this.producerConnected ??= this.producer.connect();
      await this.producerConnected;
      await this.producer.send({
        topic: this.topic,
        acks: -1,
        messages: messages.map((message) => ({ key: message.case_result_id, value: encodeJudgeRequest(message) })),
      });
    } catch (error) {
      this.producerConnected = null;
      this.counters.produceFailures += 1;
      const retriable = (error as { retriable?: boolean }).retriable !== false;
      return failure({ retriable, message: `producing judge requests to ${this.topic} failed: ${error instanceof Error ? error.message : String(error)}` });
    }
    this.counters.produced += messages.length;
    return success(undefined);
  }

  async start(handler: JudgeBatchHandler): Promise<void> {
    if (this.consumer !== null) throw new Error("the judge queue is already started");
    const sessionTimeout = this.options.sessionTimeoutMs ?? 30_000;
    const consumer = this.options.kafka.consumer({
      groupId: this.groupId,
      sessionTimeout,
      heartbeatInterval: this.options.heartbeatIntervalMs ?? 3_000,
      maxWaitTimeInMs: this.options.maxWaitTimeInMs ?? 1_000,
    });
    this.consumer = consumer;
    await consumer.connect();
    await consumer.subscribe({ topics: [this.topic], fromBeginning: true });
    await consumer.run({
      eachBatchAutoResolve: false,
      autoCommit: true,
      // Commit as soon as something was resolved: resolved means durable.
      autoCommitThreshold: 1,
      eachBatch: async (payload) => {
        await this.handleBatch(payload, handler);
      },
    });
  }

  isIdle(): boolean {
    return this.inFlight === 0;
  }

  async close(): Promise<void> {
    await this.consumer?.disconnect();
    this.consumer = null;
    if (this.producerConnected !== null) await this.producer.disconnect();
    this.producerConnected = null;
  }

  private async handleBatch(payload: EachBatchPayload, handler: JudgeBatchHandler): Promise<void> {
    const { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale } = payload;
    const batchSize = this.options.batchSize ?? 16;
    // A slice is never given up: it is retried until acknowledged, or until this member stops or loses the partition.
    const policy: RetryPolicy = {
      initialDelayMs: this.options.retryDelayMs ?? 500,
      maxDelayMs: this.options.maxRetryDelayMs ?? 10_000,
      maxAttempts: Number.POSITIVE_INFINITY,
      deadlineMs: Number.POSITIVE_INFINITY,
    };
    const released = new AbortController();
    const stillOwned = (): boolean => {
      if (!isRunning() || isStale()) released.abort();
      return !released.signal.aborted;
    };
    for (let start = 0; start < batch.messages.length; start += batchSize) {
      if (!stillOwned()) return;
      const slice = batch.messages.slice(start, start + batchSize);
      const requests: JudgeRequestMessage[] = [];
      for (const message of slice) {
        const decoded = decodeJudgeRequest(message.value?.toString("utf8") ?? "");
        if (decoded.ok) requests.push(decoded.value);
        else {
          this.counters.poisonMessages += 1;
          this.log(`ragscope judge queue: skipped unreadable message ${batch.topic}/${batch.partition}@${message.offset}: ${decoded.error}`);
        }
      }
      const result = await retry(() => this.deliver(requests, handler, heartbeat), policy, {
        signal: released.signal,
        // The full backoff, no jitter: one member per partition, no crowd to spread.
        random: () => 1,
        sleep: async (ms) => {
          await this.waitWithHeartbeat(ms, heartbeat, stillOwned);
          stillOwned();
        },
      });
      // Stopping or rebalanced: the rest of the batch stays unresolved; the next fetch starts at the first unacknowledged message.
      if (!result.ok) return;
      resolveOffset(slice[slice.length - 1]!.offset);
      this.counters.acknowledged += slice.length;
      await commitOffsetsIfNecessary();
      await heartbeat();
    }
  }

  /** One delivery of a slice's requests to the handler; a failure is always retriable (the requests stay unacknowledged). */
  private async deliver(requests: readonly JudgeRequestMessage[], handler: JudgeBatchHandler, heartbeat: () => Promise<void>): Promise<Result<void, JudgeQueueFailure>> {
    this.inFlight += requests.length;
    // Judging may take longer than a session: keep the membership alive meanwhile.
    const beating = setInterval(() => void heartbeat().catch(() => undefined), this.options.heartbeatIntervalMs ?? 3_000);
    let result: Result<void, JudgeQueueFailure>;
    try {
      result = requests.length === 0 ? success(undefined) : await handler(requests);
    } catch (error) {
      result = failure({ retriable: true, message: `judge handler threw: ${error instanceof Error ? error.message : String(error)}` });
    } finally {
      clearInterval(beating);
      this.inFlight -= requests.length;
    }
    if (result.ok) return result;
    this.counters.redeliveries += 1;
    this.lastFailure = result.error.message;
    this.log(`ragscope judge queue: ${requests.length} judge requests not acknowledged, delivered again: ${result.error.message}`);
    return failure({ ...result.error, retriable: true });
  }

  private async waitWithHeartbeat(ms: number, heartbeat: () => Promise<void>, isRunning: () => boolean): Promise<void> {
    const until = Date.now() + ms;
    while (isRunning() && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(500, until - Date.now())));
      await heartbeat().catch(() => undefined);
    }
  }
}
