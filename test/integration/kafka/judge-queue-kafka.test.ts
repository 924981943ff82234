/**
 * The judge queue on a real Kafka broker (topic per test, consumer group
 * `ragscope-judges` semantics): offsets are committed only after the judge
 * results are durable; a member that dies before that loses nothing — another
 * member of the group judges the same requests; an unreadable message is
 * skipped without stopping the partition.
 *
 * Uses the cluster in KAFKA_BROKERS when test/run-tests.ts provides one; run on
 * its own, the file starts its own broker.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Kafka } from "kafkajs";
import { failure, success, type Result } from "../../../core/result.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { CachedJudge } from "../../../evaluators/judge/cached-judge.js";
import { runJudgeEvaluations } from "../../../evaluators/judge/judge-evaluations.js";
import { LruJudgeCache } from "../../../evaluators/judge/lru-judge-cache.js";
import type { CaseStore } from "../../../store/ports/case-store.js";
import { JudgeDispatcher } from "../../../collector/09-judge/judge-dispatcher.js";
import type { JudgedCase, JudgeResultSink } from "../../../store/ports/judge-result-sink.js";
import { JudgeWorker } from "../../../collector/09-judge/judge-worker.js";
import { KafkaJudgeQueue } from "../../../collector/09-judge/kafka-judge-queue.js";
import { TraceSampler } from "../../../collector/08-sample/trace-sampler.js";
import type { SinkFailure } from "../../../store/ports/result-sink.js";
import { createTestKafkaClient, createTestProducer } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { createUniqueTopic, groupProgress, uniqueTopicName, waitUntil } from "../../support/kafka-helpers.js";
import { onlineCaseResult } from "../../support/online-case-results.js";
import { ScriptedJudge } from "../../support/scripted-judge.js";

/** A result sink in memory (a real implementation of the interface) that can be made to fail. */
class MemoryJudgeResultSink implements JudgeResultSink {
  readonly stored = new Map<string, JudgedCase>();
  failing = false;
  writes = 0;

  async write(batch: readonly JudgedCase[]): Promise<Result<void, SinkFailure>> {
    this.writes += 1;
    if (this.failing) return failure({ retriable: true, message: "store unavailable" });
    for (const judged of batch) for (const result of judged.evaluationResults) this.stored.set(result.evaluation_result_id, judged);
    return success(undefined);
  }

  get caseResultIds(): string[] {
    return [...new Set([...this.stored.values()].map((judged) => judged.caseResult.case_result_id))].sort();
  }
}

const noCases: CaseStore = { get: async () => null, put: async () => ({ stored: new Set() }), listSplit: async () => [] };

function evaluations(count: number) {
  const registry = createDefaultRegistry();
  return Array.from({ length: count }, (_, index) =>
    evaluateCaseResult(
      registry,
      onlineCaseResult({
        traceId: `dd${String(index).padStart(30, "0")}`,
        query: `退货要几天？（订单 ${index + 1}）`,
        output: `订单 ${index + 1} 可在15天内退货。`,
        retrieved: [{ chunk_id: "returns_1", text: "商品签收后15天内可以退货。" }],
        contextChunkIds: ["returns_1"],
      }),
      null,
      "2026-07-08T10:00:00.000Z",
    ),
  );
}

function worker(sink: JudgeResultSink, judge: ScriptedJudge) {
  const cached = new CachedJudge(judge, new LruJudgeCache());
  return new JudgeWorker({
    run: (caseResult, evalCase, evaluatedAt) => runJudgeEvaluations(cached, caseResult, evalCase, evaluatedAt),
    cases: noCases,
    sink,
    concurrency: 2,
    sinkRetry: { initialDelayMs: 5, maxDelayMs: 10, maxAttempts: 1, deadlineMs: 100 },
    log: () => {},
  });
}

describe("judge queue on Kafka", () => {
  let cluster: KafkaForTests | undefined;
  let kafka: Kafka;

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
  });
  after(async () => {
    await cluster?.stop();
  });

  const queueOptions = (topic: string, groupId: string) => ({ kafka, topic, groupId, batchSize: 4, retryDelayMs: 50, maxRetryDelayMs: 200, sessionTimeoutMs: 10_000, heartbeatIntervalMs: 1_000, maxWaitTimeInMs: 200, log: () => {} });
  const committedTotal = async (groupId: string, topic: string) => (await groupProgress(kafka, groupId, topic)).map((entry) => [Number(entry.committed), Number(entry.end)] as const);

  test("a member that never made its results durable commits nothing; the next member judges everything", async () => {
    const topic = await createUniqueTopic(kafka, { prefix: "judge-requests", partitions: 2 });
    const groupId = uniqueTopicName("ragscope-judges");
    const traces = evaluations(6);

    const producerSide = new KafkaJudgeQueue(queueOptions(topic, groupId));
    const dispatcher = new JudgeDispatcher({ sampler: new TraceSampler({ rates: { defaultRate: 1, services: {}, routes: {}, tenants: {} } }), queue: producerSide, log: () => {} });
    await dispatcher.dispatch(traces);
    assert.equal(dispatcher.counters.enqueued, 6);
    await producerSide.close();

    // First member: its store is down. It judges, fails to write, acknowledges nothing, then dies.
    const downSink = new MemoryJudgeResultSink();
    downSink.failing = true;
    const firstJudge = new ScriptedJudge({ value: () => 0.95 });
    const first = new KafkaJudgeQueue(queueOptions(topic, groupId));
    await first.start(worker(downSink, firstJudge).handle);
    await waitUntil(() => downSink.writes >= 2, { description: "the first member to try writing", timeoutMs: 30_000 });
    assert.ok(first.counters.redeliveries >= 1);
    await first.close();
    for (const [committed] of await committedTotal(groupId, topic)) assert.ok(committed <= 0, `nothing committed, got ${committed}`);

    // Second member of the same group: everything is delivered to it and made durable.
    const sink = new MemoryJudgeResultSink();
    const judge = new ScriptedJudge({ value: () => 0.95 });
    const second = new KafkaJudgeQueue(queueOptions(topic, groupId));
    await second.start(worker(sink, judge).handle);
    try {
      const expected = traces.map((item) => item.caseResult.case_result_id).sort();
      await waitUntil(() => sink.caseResultIds.length === 6, { description: "all six traces judged by the second member", timeoutMs: 30_000 });
      assert.deepEqual(sink.caseResultIds, expected);
      await waitUntil(async () => (await committedTotal(groupId, topic)).every(([committed, end]) => committed === end), { description: "offsets committed to the end", timeoutMs: 15_000 });
      assert.equal(second.counters.acknowledged, 6);
    } finally {
      await second.close();
    }
  });

  test("an unreadable message is skipped and committed past; the partition goes on", async () => {
    const topic = await createUniqueTopic(kafka, { prefix: "judge-requests", partitions: 1 });
    const groupId = uniqueTopicName("ragscope-judges");
    const producer = createTestProducer(kafka);
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [{ key: "broken", value: "{not json" }] });
    await producer.disconnect();
    const queue = new KafkaJudgeQueue(queueOptions(topic, groupId));
    const [trace] = evaluations(1);
    assert.ok((await queue.enqueue([{ case_result_id: trace!.caseResult.case_result_id, case_result: trace!.caseResult, case_ref: null, sample_reason: "rate", enqueued_at: "2026-07-08T10:00:00.000Z" }])).ok);
    const sink = new MemoryJudgeResultSink();
    await queue.start(worker(sink, new ScriptedJudge()).handle);
    try {
      await waitUntil(() => sink.caseResultIds.length === 1, { description: "the readable request judged", timeoutMs: 30_000 });
      assert.equal(queue.counters.poisonMessages, 1);
      await waitUntil(async () => (await committedTotal(groupId, topic)).every(([committed, end]) => committed === end && end === 2), { description: "both offsets committed", timeoutMs: 15_000 });
    } finally {
      await queue.close();
    }
  });
});
