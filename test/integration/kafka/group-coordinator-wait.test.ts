/**
 * The first `ragscope evaluate` on a broker that has never served a consumer
 * group: the broker answers the first group coordinator lookup with
 * GROUP_COORDINATOR_NOT_AVAILABLE while it creates __consumer_offsets, kafkajs
 * retries, and the group joins by itself. kafkajs logs that answer at ERROR;
 * the evaluator shows it as the wait it is (an INFO line), and no ERROR line.
 * A coordinator that never comes (a one-broker cluster told to keep three
 * copies of __consumer_offsets cannot create it) is still reported as an
 * error, with what to check.
 *
 * Both brokers are this file's own: the shared test broker has made its
 * __consumer_offsets at start (test/support/kafka-broker.ts), so no group on it
 * waits for a coordinator.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startKafkaBroker, type KafkaBroker } from "../../support/kafka-broker.js";
import { uniqueTopicName, waitUntil } from "../../support/kafka-helpers.js";
import { killAllCollectorProcesses, startCollectorProcess, type CollectorProcess } from "./support/collector-processes.js";

/** The evaluator's stderr lines that are kafkajs entries (JSON), parsed. */
function kafkaEntries(evaluator: CollectorProcess): { level: string; namespace: string; message: string; error?: string }[] {
  return evaluator.output.filter((line) => line.startsWith("err {")).map((line) => JSON.parse(line.slice("err ".length)) as { level: string; namespace: string; message: string; error?: string });
}

const waitingLine = (entry: { level: string; message: string }) => entry.level === "INFO" && entry.message.startsWith("waiting for the group coordinator");

describe("`ragscope evaluate` waiting for a group coordinator", () => {
  let freshBroker: KafkaBroker;
  let brokerWithoutCoordinator: KafkaBroker;
  let folder: string;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-coordinator-wait-"));
    [freshBroker, brokerWithoutCoordinator] = await Promise.all([
      startKafkaBroker({ prepareGroupCoordinator: false }),
      startKafkaBroker({ prepareGroupCoordinator: false, properties: { "offsets.topic.replication.factor": 3 } }),
    ]);
  });
  /** `ragscope evaluate` on a topic and group of its own, as the first consumer group the broker serves. */
  const startEvaluator = async (broker: KafkaBroker, name: string) => {
    const topic = uniqueTopicName(name);
    const group = `${topic}-group`;
    const flags = ["--kafka-brokers", broker.brokers.join(","), "--topic", topic, "--dead-letter-topic", `${topic}-dead`, "--group-id", group, "--data-dir", path.join(folder, name)];
    return { evaluator: await startCollectorProcess("evaluator", "evaluate", flags), group };
  };

  after(async () => {
    await killAllCollectorProcesses();
    await Promise.all([freshBroker?.stop(), brokerWithoutCoordinator?.stop()]);
    await rm(folder, { recursive: true, force: true });
  });

  test("a fresh broker: one INFO line says it waits for the coordinator, the group joins, and no ERROR line is printed", async () => {
    const { evaluator } = await startEvaluator(freshBroker, "coordinator-wait");
    await waitUntil(async () => (await evaluator.ready()) || undefined, { description: "the evaluator to join its group", timeoutMs: 60_000, intervalMs: 200 });
    assert.equal(await evaluator.kill("SIGTERM"), 0, evaluator.output.join("\n"));
    // Stopped: every line it wrote is read.
    const entries = kafkaEntries(evaluator);
    const waiting = entries.filter(waitingLine);
    assert.equal(waiting.length, 1, evaluator.output.join("\n"));
    assert.equal(waiting[0]!.error, "The group coordinator is not available", "the broker's answer is kept in the line");
    assert.deepEqual(
      entries.filter((entry) => entry.level === "ERROR"),
      [],
      evaluator.output.join("\n"),
    );
    assert.ok(!evaluator.output.some((line) => /crashed/.test(line)), evaluator.output.join("\n"));
  });

  test("a coordinator that never comes is still an error: kafkajs's crash at ERROR, and the role's line with what to check", async () => {
    const { evaluator, group } = await startEvaluator(brokerWithoutCoordinator, "coordinator-never");
    // kafkajs gives up after its retries (seconds); bounded well above that.
    const crash = await waitUntil(() => evaluator.output.find((line) => line.startsWith("err ragscope evaluate: Kafka consumer crashed")), { description: "the consumer's crash line", timeoutMs: 90_000, intervalMs: 200 });
    assert.match(
      crash,
      new RegExp(`Failed to find group coordinator \\(no broker became the coordinator of group ${group}: the broker is still starting, or it cannot create its __consumer_offsets topic — offsets\\.topic\\.replication\\.factor is higher than the number of brokers running; check the broker's log`),
    );
    assert.equal(await evaluator.ready(), false, "a member without a group is not ready");
    assert.equal(await evaluator.kill("SIGTERM"), 0, evaluator.output.join("\n"));
    const entries = kafkaEntries(evaluator);
    assert.ok(
      entries.some((entry) => entry.level === "ERROR" && entry.namespace === "Consumer" && /KafkaJSGroupCoordinatorNotFound/.test(entry.message)),
      evaluator.output.join("\n"),
    );
    assert.ok(entries.some(waitingLine), "its retries read as the wait they were");
  });
});
