import { mkdtempSync } from "node:fs";
import { ensureKafkaForTests } from "../test/support/kafka-for-tests.ts";
import { createTestKafkaClient } from "../test/support/kafka-client.ts";
import { createUniqueTopic, uniqueTopicName, waitUntil } from "../test/support/kafka-helpers.ts";
import { startClickHouseHttpFacade } from "../test/integration/kafka/support/clickhouse-http-facade.ts";
import { recordTraces, requestBodies, expectedOutputTokens } from "../test/integration/kafka/support/synthetic-traces.ts";
import { startCollectorProcess, postBodies } from "../test/integration/kafka/support/collector-processes.ts";
import { openClickHouse } from "../collector/sink/clickhouse-connection.ts";

const N = Number(process.argv[2] ?? 2000);
const t0 = Date.now();
const cluster = await ensureKafkaForTests();
console.log("broker", Date.now() - t0);
const kafka = createTestKafkaClient(cluster.brokers.split(","));
const topic = await createUniqueTopic(kafka, { prefix: "spans", partitions: 3 });
const facade = await startClickHouseHttpFacade({ dataPath: mkdtempSync("/tmp/facade-") });
const database = "smoke_" + Date.now();
const common = ["--kafka-brokers", cluster.brokers, "--topic", topic, "--dead-letter-topic", topic + "-dlq"];
const evalFlags = [...common, "--group-id", uniqueTopicName("g"), "--clickhouse-url", facade.url, "--clickhouse-database", database, "--quiet-period-ms", "300", "--session-timeout-ms", "10000", "--heartbeat-interval-ms", "1000", "--commit-interval-ms", "500"];
const [e1, e2, r] = await Promise.all([
  startCollectorProcess("e1", "evaluate", evalFlags),
  startCollectorProcess("e2", "evaluate", evalFlags),
  startCollectorProcess("r", "receive", ["--kafka-brokers", cluster.brokers, "--topic", topic, "--port", "0"]),
]);
console.log("processes", Date.now() - t0);
const traces = await recordTraces(N);
const bodies = requestBodies(traces, 100);
console.log("recorded", Date.now() - t0);
const tp = Date.now();
await postBodies(r.receiverUrl!, bodies);
console.log("posted", Date.now() - tp);
const conn = await openClickHouse({ url: facade.url, username: "default", password: "", database, dataPath: "/unused" });
const count = async () => Number((await (await conn.client.query({ query: `SELECT count() AS n FROM ${database}.case_results FINAL`, format: "JSONEachRow" })).json<{n:string}>())[0]!.n);
await waitUntil(async () => (await count()) >= N, { description: "all", timeoutMs: 300_000, intervalMs: 500 });
console.log("all evaluated", Date.now() - tp);
const sums = await (await conn.client.query({ query: `SELECT count() AS n, sum(value) AS s FROM ${database}.metric_values FINAL WHERE metric = 'output_tokens'`, format: "JSONEachRow" })).json();
console.log(sums, expectedOutputTokens(N));
for (const p of [e1, e2]) console.log(p.name, (await p.metrics()).split("\n").filter(l => /^ragscope_(traces|spans|kafka_messages|kafka_consumer_lag|kafka_rebal)/.test(l)).join("\n"));
await Promise.all([e1.kill("SIGTERM"), e2.kill("SIGTERM"), r.kill("SIGTERM")]);
console.log(e1.output.slice(-5).join("\n"));
await conn.close(); await facade.close(); await cluster.stop();
