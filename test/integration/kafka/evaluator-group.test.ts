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
import { after, before, describe, test } from "node:test";
import type { Kafka } from "kafkajs";
import { openClickHouse, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { createTestKafkaClient } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { createUniqueTopic, uniqueTopicName, waitForCommitsAtEnd, waitUntil } from "../../support/kafka-helpers.js";
import { startClickHouseHttpFacade, type ClickHouseHttpFacade } from "../../support/clickhouse-http-facade.js";
import { killAllCollectorProcesses, postBodies, startCollectorProcess, type CollectorProcess } from "./support/collector-processes.js";
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

  /** Runs the load; `killAt` lists fractions of the posted requests at which an evaluator is SIGKILLed and restarted. */
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
    const connection: ClickHouseConnection = await openClickHouse({ url: facade.url, username: "default", password: "", database, dataPath: "/unused" });
    try {
      // Kills follow the posting: at each fraction of the requests posted, one evaluator (in turn) is killed
      // while the load goes on, and restarted; the next kill waits for that restart.
      const pendingKills = [...killAt].sort().map((fraction) => Math.ceil(fraction * bodies.length));
      let killing: Promise<void> = Promise.resolve();
      const killOne = async () => {
        const slot = killedBySignal.length % evaluators.length;
        const victim = evaluators[slot]!;
        // A freshly restarted member may not have read (or refreshed its lag) yet: wait, bounded,
        // until it holds work it read and did not commit, so the kill interrupts that work.
        let interrupted = await readButUncommitted(victim);
        for (const deadline = Date.now() + 30_000; interrupted <= 0 && Date.now() < deadline; ) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          interrupted = await readButUncommitted(victim);
        }
        interruptedMessages.push(interrupted);
        await victim.kill("SIGKILL");
        killedBySignal.push(victim.child.signalCode);
        const restart = startCollectorProcess(`${victim.name}-restarted`, "evaluate", evaluatorFlags).then((started) => {
          evaluators[slot] = started;
        });
        restarts.push(restart);
        await restart;
      };
      const posting = postBodies(receiver.receiverUrl!, bodies, 4, (posted) => {
        while (pendingKills.length > 0 && posted >= pendingKills[0]!) {
          pendingKills.shift();
          killing = killing.then(killOne);
        }
      });
      await posting;
      await killing;
      await posting;
      await Promise.all(restarts);
      await waitUntil(async () => (await countCaseResults(connection)) >= traceCount, { description: `${traceCount} case results`, timeoutMs: 240_000, intervalMs: 500 });
      // Every partition committed to its end: every trace is durable, nothing is still open.
      await waitForCommitsAtEnd(kafka, groupId, topic, 60_000);
      const consumedByEvaluator: number[] = [];
      for (const evaluator of evaluators) consumedByEvaluator.push((await evaluator.sample("ragscope_traces_written_total")) ?? 0);
      return { stored: await readStoredResults(connection), traceIds: await storedTraceIds(connection), consumedByEvaluator, killedBySignal, interruptedMessages };
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
    console.log(`crash: ${JSON.stringify(outcome.stored)}; read and uncommitted at each kill: ${outcome.interruptedMessages.join(", ")}; metric rows written again by replays and collapsed: ${outcome.stored.metricValueRows - outcome.stored.metricValuesFinal}`);
  });
});
