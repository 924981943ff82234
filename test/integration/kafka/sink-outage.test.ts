/**
 * ClickHouse down for 30 s in the middle of the load. The evaluator process
 * writes through ClickHouse server mode to an endpoint that is closed for
 * 30 s (connections refused, as with a server that went down) and then
 * listens again on the same port with the same data.
 *
 * Expected: while the sink is down the evaluator pauses reading (the backlog
 * waits in Kafka, not in memory), reports itself unready, and keeps its heap
 * under the configured bound; when the sink returns the backlog drains and
 * every trace is stored exactly once.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import type { Kafka } from "kafkajs";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { createTestKafkaClient } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { createUniqueTopic, uniqueTopicName, waitForCommitsAtEnd, waitUntil } from "../../support/kafka-helpers.js";
import { startClickHouseHttpFacade, type ClickHouseHttpFacade } from "../../support/clickhouse-http-facade.js";
import { killAllCollectorProcesses, postBodies, startCollectorProcess } from "./support/collector-processes.js";
import { countCaseResults, readStoredResults } from "./support/stored-results.js";
import { expectedOutputTokens, recordTraces, requestBodies } from "./support/synthetic-traces.js";

const traceCount = 4_000;
const outageMs = 30_000;
const maxHeapMb = 256;

describe("sink outage", () => {
  let cluster: KafkaForTests;
  let kafka: Kafka;
  let facade: ClickHouseHttpFacade;
  let dataPath: string;

  before(async () => {
    cluster = await ensureKafkaForTests();
    kafka = createTestKafkaClient(cluster.brokers.split(","));
    dataPath = await mkdtemp(path.join(os.tmpdir(), "ragscope-kafka-outage-"));
    facade = await startClickHouseHttpFacade({ dataPath });
  });

  after(async () => {
    await killAllCollectorProcesses();
    await facade?.close();
    await rm(dataPath, { recursive: true, force: true });
    await cluster?.stop();
  });

  test("ClickHouse down for 30 s: reading pauses, the heap stays under the bound, nothing is lost, the backlog drains", async () => {
    const traces = await recordTraces(traceCount);
    const bodies = requestBodies(traces, 100);
    const topic = await createUniqueTopic(kafka, { prefix: "outage", partitions: 3 });
    const groupId = uniqueTopicName("outage-group");
    const database = `outage_${randomBytes(4).toString("hex")}`;
    const receiver = await startCollectorProcess("receiver", "receive", ["--kafka-brokers", cluster.brokers, "--topic", topic, "--port", "0"]);
    const evaluator = await startCollectorProcess("evaluator", "evaluate", [
      "--kafka-brokers", cluster.brokers,
      "--topic", topic,
      "--dead-letter-topic", `${topic}-dead-letters`,
      "--group-id", groupId,
      "--clickhouse-url", facade.url,
      "--clickhouse-database", database,
      "--quiet-period-ms", "300",
      "--session-timeout-ms", "10000",
      "--heartbeat-interval-ms", "1000",
      "--commit-interval-ms", "500",
      "--max-heap-mb", String(maxHeapMb),
      "--max-buffered-spans", "20000",
    // The bound is given to V8 too (as an operator should, see the README): the garbage collector then
    // keeps the heap within it, and only live data that outgrew it could end the process.
    ], { RAGSCOPE_SINK_BATCH: "500", NODE_OPTIONS: `--max-old-space-size=${maxHeapMb}` });
    const connection = await openClickHouse({ url: facade.url, username: "default", password: "", database, dataPath: "/unused" });

    // Watch the evaluator's own metrics the whole time, as a Prometheus scraper would.
    const seen = { engineMemoryFromServer: false, maxHeapBytes: 0, maxBacklog: 0, maxLag: 0, scrapes: 0 };
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        try {
          const text = await evaluator.metrics();
          seen.scrapes += 1;
          seen.maxHeapBytes = Math.max(seen.maxHeapBytes, readSample(text, "ragscope_process_heap_used_bytes") ?? 0);
          if (readSample(text, "ragscope_engine_memory_bytes") !== null) seen.engineMemoryFromServer = true;
          seen.maxBacklog = Math.max(seen.maxBacklog, readSample(text, "ragscope_sink_backlog_traces") ?? 0);
          const lag = [0, 1, 2].reduce((total, partition) => total + (readSample(text, "ragscope_kafka_consumer_lag", { topic, partition: String(partition) }) ?? 0), 0);
          seen.maxLag = Math.max(seen.maxLag, lag);
        } catch {
          // A scrape that fails is retried; the process is checked at the end.
        }
        await delay(200);
      }
    })();

    try {
      const firstQuarter = Math.floor(bodies.length / 4);
      await postBodies(receiver.receiverUrl!, bodies.slice(0, firstQuarter));
      await waitUntil(async () => (await countCaseResults(connection)) > 0, { description: "the first results", timeoutMs: 60_000, intervalMs: 200 });

      // Pauses and unreadiness are asserted from the evaluator's counter and its answers during the outage,
      // not from the sampled gauge: a scrape every 200 ms on a loaded machine can miss a state that held.
      const pausesBefore = (await evaluator.sample("ragscope_consumer_pauses_total")) ?? 0;
      await facade.stop();
      const outageStarted = Date.now();
      // The rest of the load arrives while the sink is down, spread over most of the outage.
      const rest = bodies.slice(firstQuarter);
      const spacingMs = Math.floor((outageMs * 0.8) / rest.length);
      for (const body of rest) {
        await postBodies(receiver.receiverUrl!, [body], 1);
        await delay(spacingMs);
      }
      await delay(Math.max(0, outageMs - (Date.now() - outageStarted)));
      // A slow machine may reach the first failed write late: the outage lasts until the evaluator met it.
      await waitUntil(async () => ((await evaluator.sample("ragscope_consumer_pauses_total")) ?? 0) > pausesBefore, {
        description: "reading paused while the sink was down",
        timeoutMs: 60_000,
        intervalMs: 250,
      });
      assert.ok(((await evaluator.sample("ragscope_sink_backlog_traces")) ?? 0) > 0, "results waited for the sink while it was down");
      assert.equal(await evaluator.ready(), false, "/readyz said the evaluator was not ready while ClickHouse was down");
      assert.equal(facade.isRunning(), false);
      await facade.start();

      await waitUntil(async () => (await countCaseResults(connection)) >= traceCount, { description: `${traceCount} case results after the outage`, timeoutMs: 120_000, intervalMs: 500 });
      await waitForCommitsAtEnd(kafka, groupId, topic);
      await waitUntil(async () => (await evaluator.sample("ragscope_sink_backlog_traces")) === 0 && (await evaluator.ready()), { description: "an empty backlog and a ready evaluator", timeoutMs: 30_000 });
      watching = false;
      await watcher;

      const stored = await readStoredResults(connection);
      assert.equal(stored.caseResults, traceCount, "nothing lost");
      assert.equal(stored.outputTokens.sum, expectedOutputTokens(traceCount), "nothing counted twice");
      assert.equal(stored.duplicatedMetricKeys, 0);
      assert.equal(seen.engineMemoryFromServer, false, "a ClickHouse server's memory is not the evaluator's: no engine memory sample");
      assert.equal(evaluator.exited(), false, "the evaluator lived through the outage within its heap limit");
      assert.ok(seen.maxLag > 0, "the unread load waited in Kafka");
      assert.ok(seen.maxHeapBytes > 0 && seen.maxHeapBytes < maxHeapMb * 1024 * 1024, `heap peak ${(seen.maxHeapBytes / 1048576).toFixed(1)} MiB, bound ${maxHeapMb} MiB`);
      const writeFailures = (await evaluator.sample("ragscope_sink_write_failures_total")) ?? 0;
      assert.ok(writeFailures > 0, "the evaluator did meet the outage");
      console.log(`outage: heap peak ${(seen.maxHeapBytes / 1048576).toFixed(1)} MiB of ${maxHeapMb}; max backlog ${seen.maxBacklog} traces; max lag ${seen.maxLag} messages; ${writeFailures} failed writes; ${seen.scrapes} scrapes; stored ${JSON.stringify(stored)}`);
    } finally {
      watching = false;
      await watcher;
      await Promise.all([receiver.kill("SIGTERM"), evaluator.kill("SIGTERM")]);
      await connection.close();
    }
  });
});
