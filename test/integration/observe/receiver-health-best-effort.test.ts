/**
 * `ragscope receive` is stateless: with RAGSCOPE_CLICKHOUSE_URL set (the
 * Kubernetes config map gives it to every role) it starts without asking the
 * server anything — it ran CREATE DATABASE at start, so a receiver without the
 * password, or started before ClickHouse, crash-looped — and its health
 * snapshots are best-effort: a failed write is counted
 * (ragscope_health_snapshot_failures_total), said once, and retried with the
 * next snapshot, its counts carried over; never fatal.
 *
 * The role's start runs in-process as runRole runs it (role-commands.ts), with
 * a stand-in for the Kafka client (the receiver only needs the topic to exist
 * and a producer) and a ClickHouse HTTP endpoint served by the engine
 * (support/clickhouse-http-facade.ts) that can be stopped and started.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Kafka } from "kafkajs";
import { startRole } from "../../../collector/wiring/cli/role-commands.js";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { MetricsRegistry } from "../../../collector/wiring/observe/metrics-registry.js";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { startClickHouseHttpFacade, type ClickHouseHttpFacade } from "../../support/clickhouse-http-facade.js";
import { waitUntil } from "../../support/kafka-helpers.js";

/** What startKafkaReceiver asks of kafkajs: an admin that finds the topic, and a producer that connects. */
function standInKafka(topic: string): Kafka {
  const admin = {
    connect: async () => {},
    disconnect: async () => {},
    listTopics: async () => [topic],
    createTopics: async () => true,
    fetchTopicMetadata: async () => ({ topics: [{ name: topic, partitions: [{ partitionId: 0, leader: 0, replicas: [0], isr: [0], partitionErrorCode: 0 }] }] }),
  };
  const producer = {
    events: { CONNECT: "producer.connect", DISCONNECT: "producer.disconnect" },
    on: () => () => {},
    connect: async () => {},
    disconnect: async () => {},
    send: async () => [],
  };
  return { admin: () => admin, producer: () => producer } as unknown as Kafka;
}

describe("the receiver's health snapshots are best-effort", () => {
  let folder: string;
  let facade: ClickHouseHttpFacade;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-receiver-health-"));
    facade = await startClickHouseHttpFacade({ dataPath: path.join(folder, "server") });
  });
  after(async () => {
    await facade?.close();
    await rm(folder, { recursive: true, force: true });
  });

  test("starts without asking the server anything, runs through a database that is missing and a server that is down, and writes again once it is back", async () => {
    const database = `receiver_${randomBytes(5).toString("hex")}`;
    const settings = loadSettings({
      fixed: { "receiver.port": 0, "observe.port": 0, "clickhouse.url": facade.url, "clickhouse.database": database, "observe.healthSnapshotMs": 100 },
    });
    assert.ok(settings.ok, settings.ok ? "" : settings.error.join("\n"));
    const registry = new MetricsRegistry();
    const log: string[] = [];
    const role = await startRole.receive(settings.value, { kafka: standInKafka(settings.value.kafka.topic), registry, log: (line) => log.push(line) });
    try {
      assert.equal(facade.requests.total, 0, "no CREATE DATABASE, no ping at start");
      const failures = () => registry.sum("ragscope_health_snapshot_failures_total", { role: "receiver" });

      // The database does not exist yet (no evaluator migrated it): snapshots fail, are counted, the role runs on.
      await waitUntil(() => (failures() >= 2 ? true : undefined), { description: "failed snapshots counted", timeoutMs: 10_000, intervalMs: 20 });
      // The server goes away: still counted, still running.
      await facade.stop();
      const beforeOutage = failures();
      await waitUntil(() => (failures() >= beforeOutage + 2 ? true : undefined), { description: "snapshots failing while the server is down", timeoutMs: 10_000, intervalMs: 20 });
      assert.equal(log.filter((line) => line.startsWith("health snapshot not written")).length, 1, `said once until writes succeed:\n${log.join("\n")}`);
      assert.match(log.find((line) => line.startsWith("health snapshot not written"))!, /ClickHouse server http:\/\/127\.0\.0\.1:\d+, database receiver_\w+ .*runs on without it.*ragscope_health_snapshot_failures_total/);

      // Back, and migrated by an evaluator: the next snapshot is written.
      await facade.start();
      const evaluator = await openClickHouse({ url: facade.url, username: "default", password: "", database, dataPath: "/unused" });
      try {
        await runMigrations(evaluator);
        await waitUntil(
          async () => {
            const result = await evaluator.client.query({ query: `SELECT count() AS rows FROM ${database}.collector_health WHERE role = 'receiver'`, format: "JSONEachRow" });
            const [row] = await result.json<{ rows: string | number }>();
            return Number(row?.rows ?? 0) > 0 ? true : undefined;
          },
          { description: "a receiver snapshot written", timeoutMs: 10_000, intervalMs: 50 },
        );
      } finally {
        await evaluator.close();
      }
      await waitUntil(() => (log.some((line) => /^health snapshots are written to .* again, after \d+ failed$/.test(line)) ? true : undefined), { description: "recovery said", timeoutMs: 5_000, intervalMs: 20 });
    } finally {
      await role.close();
    }
  });

  test("a stop while the server is down ends promptly: the last snapshot fails and is counted, it does not throw", async () => {
    await facade.stop();
    const settings = loadSettings({ fixed: { "receiver.port": 0, "clickhouse.url": facade.url, "observe.healthSnapshotMs": 60_000 } });
    assert.ok(settings.ok);
    const registry = new MetricsRegistry();
    const role = await startRole.receive(settings.value, { kafka: standInKafka(settings.value.kafka.topic), registry, log: () => {} });
    const started = Date.now();
    await role.close();
    assert.ok(Date.now() - started < 5_000, `closed in ${Date.now() - started} ms`);
    assert.equal(registry.sum("ragscope_health_snapshot_failures_total", { role: "receiver" }), 1);
    await facade.start();
  });
});
