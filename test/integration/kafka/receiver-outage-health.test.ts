/**
 * A Kafka outage seen where a platform engineer looks: the Collector health
 * board and the pipeline alert rules, which read the snapshots the receiver
 * writes to ClickHouse. With the broker down, `ragscope receive` refuses
 * every OTLP request with 503 before reading it, so no span of it is counted
 * as dropped: before, such an outage left spans_dropped, the board and every
 * alert at zero. The snapshots now carry the requests — accepted, refused
 * (any reason), refused because Kafka could not take spans — HTTP and gRPC
 * counted alike, equal to ragscope_receiver_requests_total on /metrics; the
 * board's "Refused requests" and the "Receiver refusing requests" rule, run
 * on the engine as Grafana runs them, show the outage.
 *
 * The receiver is the built CLI against a real broker, given the ClickHouse
 * server by `--clickhouse-url` (before, an unknown option: only
 * RAGSCOPE_CLICKHOUSE_URL worked) — a ClickHouse HTTP endpoint served by the
 * engine (support/clickhouse-http-facade.ts), migrated as an evaluator would.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import grpc from "@grpc/grpc-js";
import { parse } from "yaml";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { readDashboards } from "../../../report/dashboard-files.js";
import { executableSql, runQuery } from "../../../report/panel-data.js";
import { PIPELINE_ALERT_RULES_FILE, projectRoot } from "../../../dashboards/source/generated-files.js";
import { openClickHouse, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseDashboardQueries } from "../../../store/clickhouse/clickhouse-dashboard-queries.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { startClickHouseHttpFacade, type ClickHouseHttpFacade } from "../../support/clickhouse-http-facade.js";
import { startKafkaBroker, type KafkaBroker } from "../../support/kafka-broker.js";
import { uniqueTopicName, waitUntil } from "../../support/kafka-helpers.js";
import { killAllCollectorProcesses, startCollectorProcess, type CollectorProcess } from "./support/collector-processes.js";
import { recordTraces, requestBodies } from "./support/synthetic-traces.js";
import { countSpans, decodeTraceRequest } from "../../../collector/00-otlp/index.js";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../bin/ragscope.js");

async function post(receiverUrl: string, body: Uint8Array): Promise<number> {
  const response = await fetch(`${receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body, signal: AbortSignal.timeout(60_000) });
  await response.arrayBuffer();
  return response.status;
}

/** A counter summed over its outcomes, as /metrics shows them. */
function allOutcomes(metrics: string, name: string): number {
  return metrics
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`))
    .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
}

/** One OTLP/gRPC Export call; its status code. */
async function exportOverGrpc(grpcUrl: string, body: Uint8Array): Promise<number> {
  const client = new grpc.Client(new URL(grpcUrl).host, grpc.credentials.createInsecure());
  try {
    return await new Promise<number>((resolve) => {
      client.makeUnaryRequest("/opentelemetry.proto.collector.trace.v1.TraceService/Export", (bytes: Buffer) => bytes, (bytes: Buffer) => bytes, Buffer.from(body), new grpc.Metadata(), (error) => resolve(error ? error.code : grpc.status.OK));
    });
  } finally {
    client.close();
  }
}

describe("a Kafka outage in the receiver's health snapshots", () => {
  let broker: KafkaBroker;
  let facade: ClickHouseHttpFacade;
  let folder: string;
  let connection: ClickHouseConnection;
  const database = `outage_${randomBytes(5).toString("hex")}`;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-outage-health-"));
    [broker, facade] = await Promise.all([startKafkaBroker(), startClickHouseHttpFacade({ dataPath: path.join(folder, "server") })]);
    connection = await openClickHouse({ url: facade.url, username: "default", password: "", database, dataPath: "/unused" });
    await runMigrations(connection);
  });

  after(async () => {
    await killAllCollectorProcesses();
    await connection?.close();
    await facade?.close();
    await broker?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  test("receive takes --clickhouse-url and its companions, as the other commands do, and lists them in --help", () => {
    const help = spawnSync(process.execPath, [cli, "receive", "--help"], { encoding: "utf8" });
    assert.equal(help.status, 0, help.stderr);
    for (const flag of ["--clickhouse-url <url>", "--clickhouse-user <name>", "--clickhouse-database <name>"]) assert.ok(help.stdout.includes(flag), `${flag} in:\n${help.stdout}`);
    // Not the embedded engine's folder: the receiver never opens a store.
    assert.ok(!help.stdout.includes("--data-dir"), help.stdout);
  });

  test("requests refused while Kafka is down, HTTP and gRPC, are in the snapshots, on the board and fire the alert rule", async () => {
    const topic = uniqueTopicName("outage-health");
    const startedMs = Date.now();
    const bodies = requestBodies(await recordTraces(2), 1);
    const receiver: CollectorProcess = await startCollectorProcess(
      "receiver",
      "receive",
      ["--kafka-brokers", broker.brokers.join(","), "--topic", topic, "--port", "0", "--clickhouse-url", facade.url, "--clickhouse-database", database],
      { RAGSCOPE_HEALTH_SNAPSHOT_MS: "200", RAGSCOPE_CLICKHOUSE_URL: "" },
    );
    const grpcUrl = receiver.output.map((line) => /OTLP\/gRPC on (http:\/\/\S+)/.exec(line)?.[1]).find((url) => url !== undefined);
    assert.ok(grpcUrl, receiver.output.join("\n"));
    assert.equal(await post(receiver.receiverUrl!, bodies[0]!), 200);

    await broker.stopProcess();
    // The first request waits for kafkajs. While it waits, its spans are received and not dropped yet: the drop
    // counter takes them once the request is answered. It used to be received − published, which counted them while
    // the request waited and fell back when it was published: a counter going down, read by the health snapshots'
    // deltas as more drops. One scrape tells the two apart: it shows the spans received and the request not yet
    // answered (no outcome counted for it).
    const decoded = decodeTraceRequest(bodies[1]!, "protobuf");
    assert.ok(decoded.ok);
    const [scrapeBefore, waitingSpans] = [await receiver.metrics(), countSpans(decoded.value)];
    const receivedBefore = readSample(scrapeBefore, "ragscope_spans_received_total", { role: "receiver" }) ?? 0;
    const answeredBefore = allOutcomes(scrapeBefore, "ragscope_receiver_requests_total");
    const waiting = post(receiver.receiverUrl!, bodies[1]!);
    const whileWaiting = await waitUntil(
      async () => {
        const scrape = await receiver.metrics();
        const received = readSample(scrape, "ragscope_spans_received_total", { role: "receiver" }) ?? 0;
        return received === receivedBefore + waitingSpans && allOutcomes(scrape, "ragscope_receiver_requests_total") === answeredBefore ? scrape : undefined;
      },
      { description: "a scrape while the request waits for Kafka: its spans received, the request not answered", timeoutMs: 30_000, intervalMs: 20 },
    );
    assert.equal(readSample(whileWaiting, "ragscope_spans_dropped_total", { role: "receiver" }), 0, "spans of a request still waiting for Kafka are not dropped");
    assert.equal(await waiting, 503);
    assert.equal(await receiver.sample("ragscope_spans_dropped_total", { role: "receiver" }), waitingSpans, "the refused request's spans are dropped once it is answered");
    // Once Kafka is known to be down, every request is refused at once, unread.
    await waitUntil(async () => ((await post(receiver.receiverUrl!, bodies[1]!)) === 503 && ((await receiver.sample("ragscope_receiver_requests_total", { outcome: "publishUnavailable" })) ?? 0) > 0 ? true : undefined), {
      description: "the receiver refusing requests at once (publishUnavailable)",
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    for (let request = 0; request < 5; request += 1) assert.equal(await post(receiver.receiverUrl!, bodies[1]!), 503);
    assert.equal(await exportOverGrpc(grpcUrl, bodies[1]!), grpc.status.UNAVAILABLE);

    const metrics = await receiver.metrics();
    const scraped = {
      accepted: readSample(metrics, "ragscope_receiver_requests_total", { outcome: "accepted" }) ?? 0,
      all: allOutcomes(metrics, "ragscope_receiver_requests_total"),
      unavailable: readSample(metrics, "ragscope_receiver_requests_total", { outcome: "publishUnavailable" }) ?? 0,
      grpcRefused: allOutcomes(metrics, "ragscope_receiver_grpc_requests_total") - (readSample(metrics, "ragscope_receiver_grpc_requests_total", { outcome: "accepted" }) ?? 0),
    };
    assert.equal(scraped.accepted, 1, JSON.stringify(scraped));
    assert.ok(scraped.unavailable >= 6, JSON.stringify(scraped));
    assert.equal(scraped.grpcRefused, 1);

    /** The receiver's snapshots summed per metric, as the board sums them. */
    const written = async (): Promise<Record<string, number>> => {
      const result = await connection.client.query({ query: `SELECT metric, sum(value) AS total FROM ${database}.collector_health FINAL WHERE role = 'receiver' AND kind = 'delta' GROUP BY metric`, format: "JSONEachRow" });
      return Object.fromEntries((await result.json<{ metric: string; total: number }>()).map((row) => [row.metric, Number(row.total)]));
    };
    const expected = { requests_accepted: 1, requests_refused: scraped.all - scraped.accepted, requests_refused_unavailable: scraped.unavailable, grpc_requests_refused: 1 };
    await waitUntil(
      async () => {
        const totals = await written();
        return Object.entries(expected).every(([metric, value]) => totals[metric] === value) ? true : undefined;
      },
      { description: `snapshots holding ${JSON.stringify(expected)}`, timeoutMs: 15_000, intervalMs: 100 },
    );
    // The refused requests were never read: their spans are in no count, and are not made up as dropped ones.
    assert.equal((await written()).spans_dropped, (await receiver.sample("ragscope_spans_dropped_total", { role: "receiver" })) ?? 0);

    const context = { fromMs: startedMs - 60_000, toMs: Date.now() + 1_000, intervalMs: 1_000 };
    const queries = new ClickHouseDashboardQueries(connection);

    const board = (await readDashboards(undefined, ["collector-health.json"]))[0]!;
    const overRange = board.rows.flatMap((row) => row.panels).find((panel) => panel.title === "Over the range")!;
    const figures = await Promise.all(overRange.targets.map((target) => runQuery(queries, target.refId, executableSql(target.rawSql, database, {}, context))));
    const refusedFigure = figures.flatMap((frame) => frame.fields).find((field) => field.name === "Refused requests");
    assert.deepEqual(refusedFigure?.values, [expected.requests_refused]);

    const document = parse(await readFile(path.join(projectRoot, PIPELINE_ALERT_RULES_FILE), "utf8")) as { groups: { rules: { uid: string; data: { refId: string; relativeTimeRange?: { from: number }; model: { rawSql?: string; expression?: string } }[] }[] }[] };
    const rule = document.groups.flatMap((group) => group.rules).find((candidate) => candidate.uid === "ragscope-pipeline-receiver-refusing");
    assert.ok(rule, "the receiver-refusing rule is provisioned");
    const query = rule.data.find((entry) => entry.refId === "A")!;
    const toMs = Date.now() + 1_000;
    const frame = await runQuery(queries, "A", executableSql(query.model.rawSql!, database, {}, { fromMs: toMs - query.relativeTimeRange!.from * 1000, toMs, intervalMs: 60_000 }));
    const value = Number(frame.fields.find((field) => field.name === "Value")!.values[0]);
    assert.equal(rule.data.find((entry) => entry.refId === "C")!.model.expression, "$B > 0");
    assert.equal(value, expected.requests_refused, "the rule fires with the refused requests");
  });
});
