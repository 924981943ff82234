/**
 * The production path with real processes against a real Kafka broker:
 * `ragscope receive` (OTLP/HTTP → Kafka, keyed by trace id) and two
 * `ragscope evaluate` processes in one consumer group over a topic of three
 * partitions, writing through ClickHouse server mode to one store.
 *
 * The store is the ClickHouse engine (chDB) behind a ClickHouse HTTP endpoint
 * in this test process (support/clickhouse-http-facade.ts): chDB binds one
 * data folder per process, and "exactly once in effect" must be judged in ONE
 * ReplacingMergeTree that both evaluators write to.
 *
 * 10,000 recorded SDK traces, five spans each; trace i records
 * output_tokens = i, so the sum over the stored metric is n(n+1)/2 exactly
 * when no trace is lost and no metric is counted twice.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import type { Kafka } from "kafkajs";
import { openClickHouse, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { createTestKafkaClient } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { committedAtEnd, createUniqueTopic, uniqueTopicName, waitForCommitsAtEnd, waitUntil } from "../../support/kafka-helpers.js";
import { startClickHouseHttpFacade, type ClickHouseHttpFacade } from "../../support/clickhouse-http-facade.js";
import { killAllCollectorProcesses, startCollectorProcess, type CollectorProcess } from "./support/collector-processes.js";
import { startMeteredPosting } from "./support/metered-posting.js";
import { countCaseResults, readStoredResults, storedTraceIds, type StoredResults } from "./support/stored-results.js";
import { expectedOutputTokens, recordTraces, requestBodies, spansPerTrace, type RecordedTrace } from "./support/synthetic-traces.js";

const traceCount = 10_000;
const tracesPerRequest = 100;

describe("two evaluator processes in one consumer group", () => {
  let cluster: KafkaForTests;
  let kafka: Kafka;
  let facade: ClickHouseHttpFacade;
  let dataPath: string;
  let traces: RecordedTrace[];
  let bodies: Uint8Array[];

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
    dataPath = await mkdtemp(path.join(os.tmpdir(), "ragscope-kafka-group-"));
    facade = await startClickHouseHttpFacade({ dataPath });
    traces = await recordTraces(traceCount);
    assert.equal(traces.length, traceCount);
    assert.ok(traces.every((trace) => trace.spans.length === spansPerTrace));
    bodies = requestBodies(traces, tracesPerRequest);
  });

  after(async () => {
    await facade?.close();
    await rm(dataPath, { recursive: true, force: true });
    await cluster?.stop();
  });

  interface ScenarioOutcome {
    stored: StoredResults;
    traceIds: Set<string>;
    consumedByEvaluator: number[];
    killedBySignal: (NodeJS.Signals | null)[];
    /** Per kill: messages the victim had read and not committed when it was killed (its successor replays them). */
    interruptedMessages: number[];
    /** Per kill: the process killed. */
    victims: string[];
    /** Per kill: requests posted when it came. */
    postedAtKill: number[];
  }

  /**
   * Messages an evaluator has read but not committed, from its /metrics: per
   * partition the commit lag (high watermark − committed) minus the consumer
   * lag (high watermark − read position) is what it read beyond the commit;
   * partitions it does not read count 0 (their position is the commit).
   */
  async function readButUncommitted(evaluator: CollectorProcess): Promise<number> {
    const text = await evaluator.metrics();
    const perPartition = (metric: string) =>
      new Map([...text.matchAll(new RegExp(`^${metric}\\{([^}]*)\\} (\\S+)$`, "gm"))].map((match) => [match[1]!, Number(match[2])]));
    const commitLag = perPartition("ragscope_kafka_commit_lag");
    const consumerLag = perPartition("ragscope_kafka_consumer_lag");
    let total = 0;
    for (const [labels, lag] of commitLag) if (Number.isFinite(lag)) total += lag - (consumerLag.get(labels) ?? lag);
    return total;
  }

  /** Bodies held back from the load after the last kill, posted one at a time only if a kill finds no work in flight. */
  const reserveBodies = 5;
  /** How long one kill may wait for an evaluator that holds work it read and did not commit. */
  const killWaitMs = 120_000;

  /**
   * Runs the load; `killAt` lists fractions of the posted requests at which the
   * evaluator holding the most work read and not committed is SIGKILLed and
   * restarted.
   *
   * The load is metered by the kills: posting past the next kill's fraction
   * waits until the previous victim's successor has started, so requests are
   * flowing whenever a kill looks for work, however slowly the machine restarts
   * a process (unmetered, a slow restart let posting end and the group drain
   * before the last kill, which then had nothing to interrupt).
   */
  async function runScenario(prefix: string, killAt: number[]): Promise<ScenarioOutcome> {
    const restarts: Promise<void>[] = [];
    const topic = await createUniqueTopic(kafka, { prefix, partitions: 3 });
    const groupId = uniqueTopicName(`${prefix}-group`);
    const database = `${prefix}_${randomBytes(4).toString("hex")}`;
    const evaluatorFlags = [
      "--kafka-brokers", cluster.brokers,
      "--topic", topic,
      "--dead-letter-topic", `${topic}-dead-letters`,
      "--group-id", groupId,
      "--clickhouse-url", facade.url,
      "--clickhouse-database", database,
      "--quiet-period-ms", "300",
      "--session-timeout-ms", "6000",
      "--heartbeat-interval-ms", "1000",
      "--commit-interval-ms", "500",
    ];
    const receiver = await startCollectorProcess("receiver", "receive", ["--kafka-brokers", cluster.brokers, "--topic", topic, "--port", "0"]);
    const evaluators: CollectorProcess[] = await Promise.all([startCollectorProcess("evaluator-1", "evaluate", evaluatorFlags), startCollectorProcess("evaluator-2", "evaluate", evaluatorFlags)]);
    const killedBySignal: (NodeJS.Signals | null)[] = [];
    const interruptedMessages: number[] = [];
    const victims: string[] = [];
    const postedAtKill: number[] = [];
    const connection: ClickHouseConnection = await openClickHouse({ url: facade.url, username: "default", password: "", database, dataPath: "/unused" });
    // Kill k happens once `killPoints[k]` requests are posted; the load it meets runs to the next kill point (for the
    // last kill, to the end less the reserve).
    const killPoints = [...killAt].sort((left, right) => left - right).map((fraction) => Math.ceil(fraction * bodies.length));
    const loadEnds = killPoints.map((killPoint, kill) => Math.max(killPoint, killPoints[kill + 1] ?? bodies.length - reserveBodies));
    const posting = startMeteredPosting(receiver.receiverUrl!, bodies, killPoints[0] ?? bodies.length);

    /**
     * Waits (bounded) until some evaluator holds work it read and did not commit, and names the one holding the most.
     * Which member holds work depends on the group's assignment at that moment (a restarted member reads nothing
     * until the rebalance that the dead member's session timeout ends), so the victim is the busiest member, not a
     * fixed one. Should the group read and commit everything allowed between two looks, one more request is allowed.
     */
    async function busiestEvaluator(kill: number): Promise<{ slot: number; interrupted: number }> {
      const deadline = Date.now() + killWaitMs;
      let held: number[] = [];
      for (;;) {
        const failure = posting.error();
        if (failure !== null) throw new Error(`kill ${kill}: posting failed: ${failure.message}`);
        held = await Promise.all(evaluators.map((evaluator) => readButUncommitted(evaluator)));
        const most = Math.max(...held);
        if (most > 0) return { slot: held.indexOf(most), interrupted: most };
        if (posting.posted() === posting.limit() && (await committedAtEnd(kafka, groupId, topic))) {
          if (posting.limit() === bodies.length) {
            throw new Error(`kill ${kill}: all ${bodies.length} requests were posted and committed and no evaluator was seen holding work it read and had not committed (read and uncommitted per evaluator: ${held.join(", ")}); raise reserveBodies`);
          }
          posting.allowUpTo(posting.limit() + 1);
        }
        if (Date.now() >= deadline) {
          throw new Error(
            `kill ${kill}: no evaluator held work it read and had not committed within ${killWaitMs / 1000} s (${posting.posted()} of ${bodies.length} requests posted; read and uncommitted per evaluator: ${held.join(", ")}); see the evaluators' output`,
          );
        }
        await delay(100);
      }
    }

    try {
      for (const [kill, killPoint] of killPoints.entries()) {
        // The previous successor has started: the load may run on to the next kill point.
        posting.allowUpTo(loadEnds[kill]!);
        await waitUntil(() => posting.error() ?? posting.posted() >= killPoint, { description: `${killPoint} requests posted before kill ${kill + 1}`, timeoutMs: killWaitMs, intervalMs: 50 });
        const { slot, interrupted } = await busiestEvaluator(kill + 1);
        const victim = evaluators[slot]!;
        interruptedMessages.push(interrupted);
        victims.push(victim.name);
        postedAtKill.push(posting.posted());
        await victim.kill("SIGKILL");
        killedBySignal.push(victim.child.signalCode);
        const restart = startCollectorProcess(`${victim.name}-restarted`, "evaluate", evaluatorFlags).then((started) => {
          evaluators[slot] = started;
        });
        restarts.push(restart);
        await restart;
      }
      posting.allowUpTo(bodies.length);
      await posting.finished;
      await waitUntil(async () => (await countCaseResults(connection)) >= traceCount, { description: `${traceCount} case results`, timeoutMs: 240_000, intervalMs: 500 });
      // Every partition committed to its end: every trace is durable, nothing is still open.
      await waitForCommitsAtEnd(kafka, groupId, topic, 60_000);
      const consumedByEvaluator: number[] = [];
      for (const evaluator of evaluators) consumedByEvaluator.push((await evaluator.sample("ragscope_traces_written_total")) ?? 0);
      return { stored: await readStoredResults(connection), traceIds: await storedTraceIds(connection), consumedByEvaluator, killedBySignal, interruptedMessages, victims, postedAtKill };
    } finally {
      await Promise.allSettled(restarts);
      await Promise.all([receiver, ...evaluators].map((process) => process.kill("SIGTERM")));
      await killAllCollectorProcesses();
      await connection.client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
      await connection.close();
    }
  }

  function assertExactlyOnceInEffect(outcome: ScenarioOutcome): void {
    const { stored } = outcome;
    assert.equal(stored.caseResults, traceCount, "one Case Result per trace");
    assert.equal(stored.distinctTraceIds, traceCount);
    assert.deepEqual(outcome.traceIds, new Set(traces.map((trace) => trace.traceId)), "every recorded trace, and no other");
    assert.equal(stored.partialTraces, 0, "every trace was assembled whole");
    assert.equal(stored.outputTokens.count, traceCount);
    assert.equal(stored.outputTokens.sum, expectedOutputTokens(traceCount), "no output_tokens value lost or counted twice");
    assert.equal(stored.duplicatedMetricKeys, 0, "FINAL returns each metric of each case once");
  }

  test("10,000 traces over 3 partitions: 10,000 Case Results, no metric counted twice, both evaluators worked", async () => {
    const outcome = await runScenario("group", []);
    assertExactlyOnceInEffect(outcome);
    assert.equal(outcome.consumedByEvaluator.length, 2);
    for (const written of outcome.consumedByEvaluator) assert.ok(written > 0, `each evaluator wrote results (${outcome.consumedByEvaluator.join(", ")})`);
    console.log(`group: ${JSON.stringify(outcome.stored)}; written per evaluator ${outcome.consumedByEvaluator.join(", ")}`);
  });

  test("an evaluator SIGKILLed at 20 %, 50 % and 80 % of the posted requests and restarted, each time with work read and not committed: still exactly 10,000", async () => {
    const outcome = await runScenario("crash", [0.2, 0.5, 0.8]);
    assert.deepEqual(outcome.killedBySignal, ["SIGKILL", "SIGKILL", "SIGKILL"]);
    // Each kill interrupted work: the victim had read messages it had not committed, which its successor replays.
    assert.equal(outcome.interruptedMessages.length, 3);
    for (const [index, interrupted] of outcome.interruptedMessages.entries()) assert.ok(interrupted > 0, `kill ${index + 1} interrupted no work (${outcome.interruptedMessages.join(", ")})`);
    assertExactlyOnceInEffect(outcome);
    // Replays write some rows again (background merges may already have collapsed part of them); FINAL collapses the rest.
    console.log(`crash: ${JSON.stringify(outcome.stored)}; killed ${outcome.victims.join(", ")} after ${outcome.postedAtKill.join(", ")} of ${bodies.length} requests; read and uncommitted at each kill: ${outcome.interruptedMessages.join(", ")}; metric rows written again by replays and collapsed: ${outcome.stored.metricValueRows - outcome.stored.metricValuesFinal}`);
  });
});
