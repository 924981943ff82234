/**
 * A platform engineer runs `ragscope evaluate` on the embedded store (bin/ragscope.js as subprocesses, a real
 * broker) and reads that folder as README says:
 * - at start it says which topics it created and with how many partitions (it said "the broker's default
 *   partition count", and the count bounds how many evaluators can read at once);
 * - while it runs, `ragscope report` on the folder is refused (exit 2), naming the evaluator with the folder as
 *   it was given (the holder's arguments were cut to their last path segment, so `--data-dir /srv/store` read
 *   `--data-dir store`), and saying how to read while evaluators write — a ClickHouse server — instead of
 *   pointing at the web UI of a `ragscope serve` that is not running;
 * - once it stopped, `ragscope dead-letters` says where the evaluator's dead letters are (its Kafka topic):
 *   it printed "0 dead letters" while the topic held the message the evaluator had just dead-lettered.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { createSilentKafkaClient } from "../../support/kafka-client.js";
import { startKafkaBroker, type KafkaBroker } from "../../support/kafka-broker.js";
import { produceMessages, uniqueTopicName, waitUntil } from "../../support/kafka-helpers.js";
import { killAllCollectorProcesses, startCollectorProcess, type CollectorProcess } from "./support/collector-processes.js";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../bin/ragscope.js");

function ragscope(...args: string[]) {
  const child = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_CONFIG: "" } });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe("the embedded data folder of a Kafka evaluator", () => {
  let broker: KafkaBroker;
  let dataDir: string;
  let evaluator: CollectorProcess;
  const topic = uniqueTopicName("embedded-folder");
  const deadLetterTopic = uniqueTopicName("embedded-folder-letters");

  before(async () => {
    broker = await startKafkaBroker();
    dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-evaluator-folder-"));
  });

  after(async () => {
    await killAllCollectorProcesses();
    await broker?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  test("report while it runs: exit 2, naming the evaluator with its folder as given and the way to read while it runs", async () => {
    // The folder first: the holder's command line is shown up to 200 characters.
    evaluator = await startCollectorProcess("evaluator", "evaluate", [
      "--data-dir", dataDir,
      "--kafka-brokers", broker.brokers.join(","),
      "--topic", topic,
      "--dead-letter-topic", deadLetterTopic,
      "--group-id", uniqueTopicName("embedded-folder-group"),
    ]);
    await waitUntil(() => evaluator.ready(), { description: "evaluate ready", timeoutMs: 60_000, intervalMs: 200 });
    // The topics it created, with their partition counts (the test broker's num.partitions is 1): what bounds the evaluators that can read at once.
    assert.ok(
      evaluator.output.some((text) => text.includes(`ragscope evaluate: created Kafka topics ${topic} (1 partition), ${deadLetterTopic} (1 partition) with the broker's default partition count (num.partitions); a consumer group reads a partition with one member at a time, so create ${topic} beforehand`)),
      evaluator.output.join("\n"),
    );
    const report = ragscope("report", "--data-dir", dataDir, "--out", path.join(dataDir, "never-written.html"));
    assert.equal(report.status, 2, report.stderr);
    const line = report.stderr.split("\n").find((text) => text.startsWith("ragscope report: the data folder"));
    assert.ok(line, report.stderr);
    assert.ok(line.includes(`is held by process ${evaluator.child.pid} (node ragscope.js evaluate `), line);
    assert.ok(line.includes(` --data-dir ${dataDir} `), `the holder's folder as it was given: ${line}`);
    assert.match(line, /…\); the embedded engine/, "a command line cut at 200 characters says it was cut");
    assert.match(line, /to read the store while evaluators write it, run them against a ClickHouse server \(--clickhouse-url or RAGSCOPE_CLICKHOUSE_URL\)/);
    assert.doesNotMatch(line, /While ragscope serve runs/, "no serve runs here: its web UI is no way on");
  });

  test("dead-letters once it stopped: the evaluator's letters are in its topic, and the command says so", async () => {
    await produceMessages(createSilentKafkaClient(broker.brokers), topic, [{ key: "0af7651916cd43dd8448eb211c80319c", value: Buffer.from("not an OTLP request") }]);
    await waitUntil(async () => ((await evaluator.sample("ragscope_messages_dead_lettered_total", { reason: "undecodable" })) ?? 0) >= 1, { description: "the message dead-lettered", timeoutMs: 30_000, intervalMs: 200 });
    assert.equal(await evaluator.kill("SIGTERM"), 0, evaluator.output.slice(-10).join("\n"));
    const listed = ragscope("dead-letters", "--data-dir", dataDir);
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /^0 dead letters in .*; the Kafka roles \(ragscope evaluate, collect\) keep theirs in their dead-letter topic \(RAGSCOPE_KAFKA_DEAD_LETTER_TOPIC, default otlp_spans_dead_letters\), not in the store$/m);
  });
});
