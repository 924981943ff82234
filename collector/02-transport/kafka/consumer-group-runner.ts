/**
 * The Kafka transport's TraceSource (collector/02-transport/trace-source.ts): one
 * kafkajs consumer-group member that reads the span topic, routes each
 * message (route-message.ts), and hands the decoded spans to the one driver
 * (collector/03-consume/source-driver.ts) through `poll`, which feeds the
 * EvaluationWorker. kafkajs pushes batches (`eachBatch`); a small handoff
 * queue turns that into polling: a batch waits (heartbeating) until the
 * driver took its messages, and a message is resolved once taken.
 *
 * Delivery (DESIGN.md "Delivery guarantees"):
 * - `eachBatch` with auto-commit off. `resolveOffset` only moves the fetch
 *   position; what is committed comes from the progress trackers: the oldest
 *   message that still feeds a trace whose results are not durable
 *   (OffsetCommitter, on a timer and before leaving). A crash or a rebalance
 *   replays the open traces; deterministic ids and ReplacingMergeTree make
 *   the replay harmless.
 * - A message is resolved only once it is fully handled: its spans taken by
 *   the driver (which buffers them at once), or its republished traces / its
 *   dead letter acknowledged by the broker and the message taken as done.
 *   Messages of the assembled topic reach the progress tracker in order,
 *   through the handoff, so a commit never passes a message not handed out.
 * - After a rebalance kafkajs restarts every assigned partition from its
 *   committed offset, so the trackers forget all partitions, and batches of
 *   the previous generation stop at their next message.
 * - Backpressure: the driver decides (collector/03-consume/backpressure.ts) and
 *   calls `pause`/`resume`. A paused batch routes no further message; what it
 *   already routed is still handed out, the rest stays unresolved and is
 *   fetched again after the resume.
 * - Long waits (a broker refusing produce) heartbeat between attempts, so the
 *   member keeps its partitions.
 * - No message can stop a partition: one whose handling throws (a bug, or
 *   input nothing foresaw) is dead-lettered with the error as its reason.
 * - Spans the receiver would have refused (a Collector writing straight to
 *   the topic never met it) are taken out of their message when it is routed
 *   (screen-consumed-spans.ts, at the runner's span clock) and dead-lettered,
 *   each reason's spans as one OTLP request, before the rest is handed out or
 *   republished: like any dead letter, acknowledged before the offset moves.
 * - Kafka unreachable: kafkajs's consumer crashes, leaves the group and
 *   restarts; the member is not `ready` until it joined again. A crash kafkajs
 *   does not restart from because Kafka was unreachable (no group coordinator
 *   found) is restarted here; any other ends the role (`fatalError`).
 * - Partitions added to a topic are read within `metadataMaxAgeMs` (kafkajs
 *   notices the new count when its metadata expires and the group rejoins);
 *   lag is read from the broker for every partition (broker-lag.ts).
 */
import type { Admin, Consumer, EachBatchPayload, Kafka, KafkaMessage } from "kafkajs";
import type { Result } from "../../../core/result.js";
import { retry, type RetryPolicy } from "../../../core/retry.js";
import type { BusPosition, PublishFailure } from "../trace-bus.js";
import type { PartitionPosition, SourceRecord, TraceSource } from "../trace-source.js";
import { BrokerLag, unread, type PartitionLag } from "./broker-lag.js";
import { fetchSizes, type PauseReason } from "../../03-consume/backpressure.js";
import { ensureTopics, partitionCounts } from "./ensure-topics.js";
import type { KafkaSettings } from "./kafka-client.js";
import type { DeadLetterRecord, KafkaDeadLetters } from "./kafka-dead-letters.js";
import { isUnreachable } from "./kafka-failure.js";
import { OffsetCommitter } from "./offset-committer.js";
import { SequentialProgress, type CommitSource } from "./partition-progress.js";
import type { Repartitioner } from "./repartitioner.js";
import { contentTypeHeader, routeMessage, type LogRecordTally, type MessageRoute } from "./route-message.js";
import { saramaPartition } from "./sarama-partitioner.js";
import { spanChecksAt, type Screening, type SpanCheckSettings, type SpanRefusalReason } from "./screen-consumed-spans.js";

export interface ConsumerGroupRunnerOptions {
  kafka: Kafka;
  settings: KafkaSettings;
  /** What may be committed on the assembled topic: the worker's progress tracker. */
  progress: CommitSource;
  repartitioner: Repartitioner;
  deadLetters: KafkaDeadLetters;
  /** The heap bound, for fetch sizes that stay small next to it. */
  maxHeapBytes: number;
  /** Messages routed and not yet taken by `poll`, at most (default 256). */
  handoffCapacity?: number;
  /** Aborted when the role stops: ends produce retries. */
  signal: AbortSignal;
  log: (line: string) => void;
  /** What spans read are held to: the receiver's future-time allowance and per-span bounds (screen-consumed-spans.ts). */
  spanChecks: SpanCheckSettings;
  /**
   * The clock spans are screened against (future times), Unix milliseconds; Date.now when not given. Apart from
   * `clock`, which also paces heartbeats: a test that fixes the time of the spans must not stop the member's heartbeat.
   */
  spanClock?: () => number;
  clock?: () => number;
}

const stopped = Symbol("stopped");

/** Wait before running a consumer again that crashed with Kafka unreachable and that kafkajs does not restart. */
const consumerRestartDelayMs = 5_000;

/**
 * Waiting for the broker to take a republished trace or a dead letter: until
 * it does (no attempt or time budget — the message must not be resolved
 * before), from 200 ms doubling to 5 s between attempts.
 */
const untilAcknowledgedPolicy: RetryPolicy = { initialDelayMs: 200, maxDelayMs: 5_000, maxAttempts: Number.POSITIVE_INFINITY, deadlineMs: Number.POSITIVE_INFINITY };
type Attempt = Result<void, PublishFailure> | typeof stopped;

/** A routed message of the assembled topic, waiting for `poll`. */
interface HandoffEntry {
  record: SourceRecord;
  generation: number;
  taken: boolean;
  onTaken: () => void;
}

export class ConsumerGroupRunner implements TraceSource {
  readonly capabilities = { durable: true };
  readonly counters = {
    messages: 0,
    bytes: 0,
    messagesAssembled: 0,
    spansAssembled: 0,
    messagesRepartitioned: 0,
    tracesRepartitioned: 0,
    spansRepartitioned: 0,
    messagesEmpty: 0,
    messagesDeadLettered: 0,
    produceRetries: 0,
    rebalances: 0,
    pauses: 0,
    crashes: 0,
  };
  /** Milliseconds spent decoding and routing messages. */
  readonly timings = { decodeMs: 0 };
  readonly deadLettersByReason = new Map<string, number>();
  /** Spans taken out of messages by the screening and dead-lettered, by reason. */
  readonly spansRefused: Record<SpanRefusalReason, number> = { invalid_id: 0, future_time: 0, zero_time: 0 };
  /** What the screening's per-span bounds changed in the spans kept, all messages together. */
  readonly spansLimited = { truncatedValues: 0, droppedEvents: 0, droppedLinks: 0, droppedAttributes: 0, truncatedNames: 0 };
  /** The log records of the logs messages read (route-message.ts), by what became of them. */
  readonly logRecords: LogRecordTally = { events: 0, withoutSpan: 0, withoutEventName: 0 };
  readonly inputTopic: string;
  /** The topic of an OpenTelemetry Collector's logs (`kafka.logsTopic`), or null: read, and republished by trace. */
  readonly logsTopic: string | null;
  /** The topic whose messages are assembled: the repartition topic when one is configured, else the input topic. */
  readonly assembledTopic: string;
  readonly committer: OffsetCommitter;
  pausedFor: PauseReason | null = null;
  /** Milliseconds spent paused, all pauses together (the current one included once it ends). */
  pausedMs = 0;
  /**
   * A member of the group now: set on each join, cleared when the consumer
   * crashes (kafkajs then leaves the group and restarts the consumer, which
   * joins again once Kafka answers) or stops.
   */
  joined = false;
  /** The last crash's error while the consumer is not back in the group; null once it joined again. */
  crashError: string | null = null;
  /** Set when the consumer is given up (a crash neither kafkajs nor scheduleRestart restarts from): the role ends. */
  fatalError: string | null = null;

  private readonly consumer: Consumer;
  private readonly admin: Admin;
  /** Per topic that is never assembled (the input topic beside a repartition topic, the logs topic): what is done. */
  private readonly passThrough = new Map<string, SequentialProgress>();
  /** The next offset this member reads, per topic and partition it owns, as of the last message handled. */
  private readonly readPositions = new Map<string, Map<number, bigint>>();
  readonly brokerLag: BrokerLag;
  private assignment = new Map<string, Set<number>>();
  private counts = new Map<string, number>();
  private generation = 0;
  private stopping = false;
  /** A restart of the consumer after a crash kafkajs does not restart from (scheduleRestart). */
  private restartTimer: NodeJS.Timeout | null = null;
  /** Aborted by stop() or by the caller's signal: ends the waits between produce attempts. */
  private readonly stopSignal = new AbortController();
  private pausedSince = 0;
  private readonly clock: () => number;
  private readonly handoff: HandoffEntry[] = [];
  private readonly handoffCapacity: number;
  /** Wakes whoever waits on the handoff (poll for entries, batches for room or for their entries taken). */
  private handoffWaiters: (() => void)[] = [];

  constructor(private readonly options: ConsumerGroupRunnerOptions) {
    const { settings } = options;
    this.clock = options.clock ?? Date.now;
    this.handoffCapacity = options.handoffCapacity ?? 256;
    if (options.signal.aborted) this.stopSignal.abort();
    else options.signal.addEventListener("abort", () => this.stopSignal.abort(), { once: true });
    this.inputTopic = settings.topic;
    this.assembledTopic = settings.repartitionTopic ?? settings.topic;
    this.logsTopic = settings.logsTopic;
    for (const topic of this.topics) if (topic !== this.assembledTopic) this.passThrough.set(topic, new SequentialProgress());
    const sources = new Map<string, CommitSource>([[this.assembledTopic, options.progress], ...this.passThrough]);
    this.admin = options.kafka.admin();
    this.consumer = options.kafka.consumer({
      groupId: settings.groupId,
      sessionTimeout: settings.sessionTimeoutMs,
      heartbeatInterval: settings.heartbeatIntervalMs,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 500,
      metadataMaxAge: settings.metadataMaxAgeMs,
      ...fetchSizes(settings.maxMessageBytes, options.maxHeapBytes),
      // kafkajs's default retries (5), and no restart once stopping: a restart already under way when stop() ran
      // crashes again and would otherwise be scheduled anew, forever, after the consumer was disconnected — a
      // process stopped while Kafka was down never exited.
      retry: { retries: 5, restartOnFailure: async () => !this.stopping },
    });
    this.committer = new OffsetCommitter({
      sources,
      assigned: () => this.assignment,
      commit: (offsets) => this.consumer.commitOffsets(offsets),
    });
    this.brokerLag = new BrokerLag({
      admin: this.admin,
      groupId: settings.groupId,
      topics: () => this.topics,
      initialOffset: settings.initialOffset,
      readPositions: () => this.readPositions,
      assigned: () => this.assignment,
      clock: this.clock,
    });
  }

  get topics(): string[] {
    return [...new Set([this.inputTopic, this.assembledTopic, ...(this.logsTopic === null ? [] : [this.logsTopic])])];
  }

  get ready(): boolean {
    return this.joined && this.fatalError === null;
  }

  /** Why the consumer is not ready, null while it is. */
  get unreadyReason(): string | null {
    if (this.fatalError !== null) return this.fatalError;
    if (this.joined) return null;
    const group = `not a member of group ${this.options.settings.groupId}`;
    if (this.crashError !== null) return `${group}: the Kafka consumer crashed (${this.crashError}) and is restarting`;
    return this.stopping ? `${group}: stopping` : `${group} yet`;
  }

  /** Per partition of the topics read: high watermark, read position and commit, as of the last refresh (every commit). */
  partitionLag(): readonly PartitionLag[] {
    return this.brokerLag.snapshot();
  }

  async positions(): Promise<readonly PartitionPosition[]> {
    await this.brokerLag.refresh();
    return this.brokerLag.snapshot().map((lag) => ({ topic: lag.topic, partition: lag.partition, end: lag.highWatermark, read: lag.position, committed: lag.committed, owned: lag.owned }));
  }

  async lag(): Promise<number> {
    await this.brokerLag.refresh();
    return this.brokerLag.snapshot().reduce((total, lag) => total + (lag.owned ? unread(lag) : 0), 0);
  }

  /** Commits what is durable, then reads the broker's offsets again (lag keeps its series while paused, when it matters most). */
  async commit(): Promise<number> {
    const committed = await this.committer.commit();
    // Not the last commit, when stopping: nobody reads the lag after it, and with Kafka unreachable it only delays the stop.
    if (!this.stopSignal.signal.aborted) await this.brokerLag.refresh();
    return committed;
  }

  async poll(max: number, waitMs: number): Promise<SourceRecord[]> {
    if (this.handoff.length === 0 && waitMs > 0 && !this.stopping) await this.waitForHandoff(waitMs);
    const records: SourceRecord[] = [];
    while (records.length < max && this.handoff.length > 0) {
      const entry = this.handoff.shift()!;
      // A message read before a rebalance: its partition replays from the commit.
      if (entry.generation !== this.generation) continue;
      entry.taken = true;
      entry.onTaken();
      records.push(entry.record);
    }
    this.notifyHandoff();
    return records;
  }

  wake(): void {
    this.notifyHandoff();
  }

  pause(reason: PauseReason): void {
    if (this.pausedFor === null) {
      this.pausedSince = this.clock();
      this.counters.pauses += 1;
      this.consumer.pause(this.topics.map((topic) => ({ topic })));
    }
    this.pausedFor = reason;
  }

  resume(): void {
    if (this.pausedFor === null || this.stopping) return;
    this.pausedMs += this.clock() - this.pausedSince;
    this.pausedFor = null;
    this.consumer.resume(this.topics.map((topic) => ({ topic })));
  }

  /**
   * kafkajs retried the coordinator lookup and gave up (coordinator-wait-log.ts shows the retries as a wait): what keeps a broker
   * from making one, beyond a start that takes long, is a __consumer_offsets topic it cannot create.
   */
  private noCoordinatorHint(): string {
    return (
      ` (no broker became the coordinator of group ${this.options.settings.groupId}: the broker is still starting, or it cannot create its __consumer_offsets topic — ` +
      `offsets.topic.replication.factor is higher than the number of brokers running; check the broker's log, and set that factor to at most the number of brokers)`
    );
  }

  async start(): Promise<void> {
    await this.admin.connect();
    this.counts = await ensureTopics(this.admin, [...this.topics, this.options.settings.deadLetterTopic], this.options.log, this.topics);
    const { GROUP_JOIN, CRASH, STOP } = this.consumer.events;
    this.consumer.on(GROUP_JOIN, (event) => this.onGroupJoin(event.payload.memberAssignment));
    this.consumer.on(CRASH, (event) => {
      this.counters.crashes += 1;
      this.joined = false;
      const { error, restart } = event.payload;
      this.crashError = error.message;
      // A crash while stopping is the stop's doing (restartOnFailure above), not a reason to fail.
      if (this.stopping) return;
      if (restart) {
        this.options.log(`Kafka consumer crashed (restarting): ${error.message}`);
      } else if (isUnreachable(error)) {
        // kafkajs does not restart a consumer that found no group coordinator (it calls that not retriable), which is
        // what a broker that is down or restarting often ends in: restarted here, so the role rides out the outage.
        this.options.log(`Kafka consumer crashed (restarting in ${consumerRestartDelayMs / 1000} s): ${error.message}${error.name === "KafkaJSGroupCoordinatorNotFound" ? this.noCoordinatorHint() : ""}`);
        this.scheduleRestart();
      } else {
        this.fatalError = error.message;
        this.options.log(`Kafka consumer crashed: ${error.message}`);
      }
    });
    // kafkajs stops the consumer on a crash, before restarting it, and when it is disconnected.
    this.consumer.on(STOP, () => {
      this.joined = false;
    });
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: this.topics, fromBeginning: this.options.settings.initialOffset === "earliest" });
    await this.runConsumer();
    void this.brokerLag.refresh();
  }

  private runConsumer(): Promise<void> {
    return this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.settings.partitionsConsumedConcurrently,
      eachBatch: (payload) => this.eachBatch(payload),
    });
  }

  /** Connects and runs the consumer again after a crash kafkajs does not restart from; again later while Kafka is away. */
  private scheduleRestart(): void {
    if (this.stopping || this.restartTimer !== null) return;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopping) return;
      // A failed run() crashes (CRASH above, which schedules the next try); a failed connect() throws.
      void (async () => {
        await this.consumer.connect();
        if (!this.stopping) await this.runConsumer();
      })().catch((error: unknown) => {
        this.crashError = error instanceof Error ? error.message : String(error);
        this.scheduleRestart();
      });
    }, consumerRestartDelayMs);
  }

  /**
   * Stops reading and leaves the group, committing nothing: the driver
   * commits what is durable before (SourceDriver.stop). Called alone, this is
   * a crash as far as offsets go: everything not committed replays.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.stopSignal.abort();
    if (this.restartTimer !== null) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    this.notifyHandoff();
    await this.consumer.disconnect();
    await this.admin.disconnect();
  }

  private onGroupJoin(memberAssignment: Record<string, number[]>): void {
    // A restart that was under way when stop() ran may still join: it must not read on.
    if (this.stopping) {
      void this.consumer.disconnect().catch(() => {});
      return;
    }
    this.generation += 1;
    this.counters.rebalances += 1;
    // The crash was said on a line of its own: say its end too, or an operator reading the log cannot tell a
    // consumer that recovered from one still down (kafkajs logs no rejoin).
    if (this.crashError !== null) this.options.log(`Kafka consumer back in group ${this.options.settings.groupId} after its crash (${this.crashError}); reading again`);
    this.joined = true;
    this.crashError = null;
    this.assignment = new Map(Object.entries(memberAssignment).map(([topic, partitions]) => [topic, new Set(partitions)]));
    this.committer.forgetAll();
    for (const [topic, positions] of this.readPositions) {
      for (const partition of positions.keys()) if (!this.assignment.get(topic)?.has(partition)) positions.delete(partition);
    }
    // Partition counts change only when a topic is expanded; a rebalance follows that, so look again.
    partitionCounts(this.admin, this.topics).then(
      (counts) => {
        for (const [topic, count] of counts) this.counts.set(topic, count);
      },
      (error: unknown) => this.options.log(`could not refresh partition counts: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  private async eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    const generation = this.generation;
    let lastBeat = this.clock();
    const beat = async () => {
      if (this.clock() - lastBeat < this.options.settings.heartbeatIntervalMs) return;
      await heartbeat();
      lastBeat = this.clock();
    };
    const cutShort = () => !isRunning() || isStale() || this.stopping || generation !== this.generation;
    const markRead = (offset: string) => {
      resolveOffset(offset);
      let positions = this.readPositions.get(batch.topic);
      if (!positions) this.readPositions.set(batch.topic, (positions = new Map()));
      positions.set(batch.partition, BigInt(offset) + 1n);
    };
    const handedOver: HandoffEntry[] = [];
    for (const message of batch.messages) {
      if (cutShort() || this.pausedFor !== null) break;
      if (batch.topic !== this.assembledTopic) {
        // Only republished or dead-lettered, never assembled: done here, in order (SequentialProgress).
        const handled = await this.handle(batch.topic, batch.partition, message, beat, generation);
        if (handled === false) break;
        markRead(message.offset);
        await beat();
        continue;
      }
      while (this.handoff.length >= this.handoffCapacity && !cutShort()) {
        await this.waitForHandoff(this.options.settings.heartbeatIntervalMs);
        await beat();
      }
      if (cutShort()) break;
      const record = await this.handle(batch.topic, batch.partition, message, beat, generation);
      if (record === false) break;
      const entry: HandoffEntry = { record, generation, taken: false, onTaken: () => markRead(message.offset) };
      handedOver.push(entry);
      this.handoff.push(entry);
      this.notifyHandoff();
      await beat();
    }
    // The batch ends once the driver took what it routed (also while paused: it was read before the pause).
    while (handedOver.some((entry) => !entry.taken)) {
      if (cutShort()) {
        // Not resolved: fetched again (after a rebalance, from the commit).
        for (const entry of handedOver) {
          const index = this.handoff.indexOf(entry);
          if (index >= 0) this.handoff.splice(index, 1);
        }
        break;
      }
      await this.waitForHandoff(this.options.settings.heartbeatIntervalMs);
      await beat();
    }
  }

  private waitForHandoff(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.handoffWaiters = this.handoffWaiters.filter((waiter) => waiter !== wake);
        resolve();
      }, ms);
      timer.unref();
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      this.handoffWaiters.push(wake);
    });
  }

  private notifyHandoff(): void {
    const waiters = this.handoffWaiters;
    this.handoffWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Acts on one message; what to hand the driver once it is done (it may be resolved then), false when stopping or stale. */
  private async handle(topic: string, partition: number, message: KafkaMessage, beat: () => Promise<void>, generation: number): Promise<SourceRecord | false> {
    const position: BusPosition = { partition, offset: message.offset };
    const count = topic === this.assembledTopic ? this.counts.get(topic) : undefined;
    // Not the message's fault: thrown, so the batch is fetched again rather than the message dead-lettered.
    if (topic === this.assembledTopic && count === undefined) throw new Error(`the partition count of topic ${topic} is unknown`);
    let route: MessageRoute;
    try {
      route = this.route(topic, partition, message, count);
    } catch (error) {
      // Whatever the input, it must not stop the partition (a throw here would be retried on the same message forever).
      const reason = error instanceof Error ? error.message : String(error);
      route = { kind: "dead_letter", reason: "unreadable", detail: `reading the message failed: ${reason}` };
    }
    this.counters.messages += 1;
    this.counters.bytes += message.value?.length ?? 0;
    if (route.kind !== "dead_letter" && !(await this.deadLetterRefused(topic, partition, message, route.screened, beat))) return false;
    const logRecords = "logRecords" in route ? route.logRecords : undefined;
    if (logRecords !== undefined) {
      this.logRecords.events += logRecords.events;
      this.logRecords.withoutSpan += logRecords.withoutSpan;
      this.logRecords.withoutEventName += logRecords.withoutEventName;
    }
    switch (route.kind) {
      case "assemble": {
        if (generation !== this.generation) return false;
        this.counters.messagesAssembled += 1;
        this.counters.spansAssembled += route.spans.length;
        return { kind: "decoded", position, spans: route.spans, traceIds: [route.traceId], ...(route.logEvents === undefined ? {} : { logEvents: route.logEvents }) };
      }
      case "empty":
        this.counters.messagesEmpty += 1;
        return this.done(topic, position, generation);
      case "repartition": {
        const source = { topic, partition, offset: message.offset };
        const republished = await this.untilAcknowledged(() => this.options.repartitioner.republish(route.traces, route.spanCount, source), beat);
        if (republished === stopped) return false;
        if (republished.ok) {
          this.counters.messagesRepartitioned += 1;
          this.counters.tracesRepartitioned += route.traces.size;
          this.counters.spansRepartitioned += route.spanCount;
          return this.done(topic, position, generation);
        }
        // A trace the broker will never take (too large): the source message goes to the dead letters.
        return this.deadLetter(topic, partition, message, "oversized", `its traces could not be republished by trace id: ${republished.error.message}`, beat, generation);
      }
      case "repartition_log_events": {
        const source = { topic, partition, offset: message.offset };
        const republished = await this.untilAcknowledged(() => this.options.repartitioner.republishLogEvents(route.groups, source), beat);
        if (republished === stopped) return false;
        if (republished.ok) {
          this.counters.messagesRepartitioned += 1;
          return this.done(topic, position, generation);
        }
        return this.deadLetter(topic, partition, message, "oversized", `its log events could not be republished by trace id: ${republished.error.message}`, beat, generation);
      }
      case "dead_letter":
        return this.deadLetter(topic, partition, message, route.reason, route.detail, beat, generation);
    }
  }

  private route(topic: string, partition: number, message: KafkaMessage, count: number | undefined): MessageRoute {
    const started = performance.now();
    const route = routeMessage(
      { key: message.key, value: message.value, partition, headers: message.headers },
      {
        maxMessageBytes: this.options.settings.maxMessageBytes,
        partitionOf: count === undefined ? null : (traceId) => saramaPartition(traceId, count),
        checks: spanChecksAt(this.options.spanChecks, (this.options.spanClock ?? Date.now)()),
        logsTopic: topic === this.logsTopic,
      },
    );
    this.timings.decodeMs += performance.now() - started;
    return route;
  }

  private async deadLetter(topic: string, partition: number, message: KafkaMessage, reason: string, detail: string, beat: () => Promise<void>, generation: number): Promise<SourceRecord | false> {
    const letter = { sourceTopic: topic, partition, offset: message.offset, key: message.key, value: message.value, headers: message.headers, reason, detail };
    if (!(await this.sendLetter(letter, beat))) return false;
    this.counters.messagesDeadLettered += 1;
    return this.done(topic, { partition, offset: message.offset }, generation);
  }

  /**
   * Dead-letters the spans the screening took out of a message (each reason's as one OTLP protobuf request, under the
   * message's key and source position) and counts what it refused and cut; false when stopping.
   */
  private async deadLetterRefused(topic: string, partition: number, message: KafkaMessage, screened: Screening, beat: () => Promise<void>): Promise<boolean> {
    for (const refused of screened.refused) {
      const headers = { ...(message.headers ?? {}), [contentTypeHeader]: "application/x-protobuf" };
      const letter = { sourceTopic: topic, partition, offset: message.offset, key: message.key, value: Buffer.from(refused.value), headers, reason: refused.reason, detail: refused.detail };
      if (!(await this.sendLetter(letter, beat))) return false;
      this.spansRefused[refused.reason] += refused.spans;
    }
    for (const [item, count] of Object.entries(screened.limited) as [keyof Screening["limited"], number][]) this.spansLimited[item] += count;
    return true;
  }

  /** Writes one letter, until the broker acknowledges it, and counts it; false when stopping. */
  private async sendLetter(letter: DeadLetterRecord, beat: () => Promise<void>): Promise<boolean> {
    const sent = await this.untilAcknowledged(() => this.options.deadLetters.deadLetter(letter), beat);
    if (sent === stopped) return false;
    if (!sent.ok) {
      // The dead-letter topic refuses even a letter without its value: nothing safe is left to do with the partition.
      throw new Error(`cannot dead-letter ${letter.sourceTopic}/${letter.partition}/${letter.offset}: ${sent.error.message}`);
    }
    this.deadLettersByReason.set(String(letter.reason), (this.deadLettersByReason.get(String(letter.reason)) ?? 0) + 1);
    return true;
  }

  /** A message handled without assembling: on the assembled topic it reaches the progress tracker through the driver, in order with the others. */
  private done(topic: string, position: BusPosition, generation: number): SourceRecord | false {
    // A batch of a previous generation must not mark anything: its partition was forgotten and replays.
    if (generation !== this.generation) return false;
    this.passThrough.get(topic)?.done(position.partition, position.offset);
    return { kind: "decoded", position, spans: [], traceIds: [] };
  }

  private async untilAcknowledged(attempt: () => Promise<Result<void, PublishFailure>>, beat: () => Promise<void>): Promise<Attempt> {
    const result = await retry(attempt, untilAcknowledgedPolicy, {
      signal: this.stopSignal.signal,
      // The full backoff, no jitter: one member waits on its own partitions, there is no crowd to spread.
      random: () => 1,
      onRetry: () => {
        this.counters.produceRetries += 1;
      },
      // Heartbeat after each wait, so a long refusal does not cost the member its partitions.
      sleep: async (ms, signal) => {
        await unreferencedSleep(ms, signal);
        if (!signal?.aborted) await beat();
      },
    });
    // Without a budget, the helper gives up on a retriable failure only when stopping.
    if (!result.ok && result.error.retriable) return stopped;
    return result;
  }
}

/** A wait that does not keep the process alive and ends early when stopping. */
function unreferencedSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    timer.unref();
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
