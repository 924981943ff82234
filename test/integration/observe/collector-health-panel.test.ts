/**
 * `ragscope serve` writes its health snapshots from the counters /metrics
 * reads: spans the receiver refused (503, in-process queue full) appear as
 * dropped spans on the Collector health dashboard, and the slowest store
 * write is a measurement, not a constant; OTLP/gRPC calls accepted and
 * refused, traces that carry no RAG request, and what became of log events (GenAI messages sent as log records),
 * have panels of their own.
 * The dashboard's own SQL runs on the engine against the data folder serve
 * wrote, as Grafana would run it.
 */
import grpc from "@grpc/grpc-js";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { syntheticRequestBody, syntheticSpan } from "../../support/synthetic-otlp-requests.js";
import { ClickHouseDashboardQueries } from "../../../store/clickhouse/clickhouse-dashboard-queries.js";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { serveCommand } from "../../../collector/wiring/cli/serve-command.js";
import { readDashboards, type ReportPanel } from "../../../report/dashboard-files.js";
import { panelIntervalMs } from "../../../report/panel-interval.js";
import { executableSql, runQuery, type Frame } from "../../../report/panel-data.js";
import { openClickHouse, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { traceGenerate, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";
import { shifted, shiftToStartAt, type Json } from "../../support/shift-recorded-times.js";

async function oneRequest(question: string): Promise<void> {
  await traceRequest({ query: question, runId: "health-run" }, async () => {
    await traceRetrieve({ query: question }, () => [{ chunkId: "chunk_01", documentId: "policy", documentVersion: "v1", sectionId: "section_1", text: "纸质发票需另付邮费10元。" }]);
    await traceGenerate({ model: "m" }, () => ({ text: "纸质发票需另付邮费10元。" }));
    return "纸质发票需另付邮费10元。";
  });
}

function column(frames: Frame[], name: string): (number | string | null)[] {
  const field = frames.flatMap((frame) => frame.fields).find((candidate) => candidate.name === name);
  assert.ok(field, `no column ${name} in ${JSON.stringify(frames.map((frame) => frame.fields.map((each) => each.name)))}`);
  return field.values;
}

/** The Collector health dashboard's panels, run by title on the store serve wrote, over the range since `startedMs`. */
async function collectorHealthPanels(dataPath: string, startedMs: number): Promise<{ run(title: string): Promise<Frame[]>; intervalMs: number; close(): Promise<void> }> {
  const dashboard = (await readDashboards(undefined, ["collector-health.json"]))[0]!;
  const endMs = Date.now() + 1_000;
  const context = { fromMs: startedMs - 60_000, toMs: endMs, intervalMs: panelIntervalMs(startedMs - 60_000, endMs, 60) };
  const connection: ClickHouseConnection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath });
  return {
    intervalMs: context.intervalMs,
    async run(title) {
      const panel: ReportPanel | undefined = dashboard.rows.flatMap((row) => row.panels).find((candidate) => candidate.title === title);
      assert.ok(panel, `no panel ${title}`);
      return Promise.all(panel.targets.map((each) => runQuery(new ClickHouseDashboardQueries(connection), each.refId, executableSql(each.rawSql, connection.database, {}, context))));
    },
    close: () => connection.close(),
  };
}

/** `ragscope serve` (its command, in this process) on `dataDir`, once it printed its addresses; `stop` ends it, `running` its exit code. */
async function startServe(dataDir: string, environment: Record<string, string>): Promise<{ url: string; grpcUrl: string; metricsUrl: string; stop: () => void; running: Promise<number> }> {
  const lines: string[] = [];
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const running = serveCommand({ dataset: [], dataDir, port: 0, metricsPort: 0, uiPort: 0 }, { environment }, { log: (line) => lines.push(line), error: (line) => lines.push(line) }, stopped);
  const deadline = Date.now() + 20_000;
  while (!lines.some((line) => line.includes("/metrics")) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const url = /OTLP\/HTTP on (http:\/\/[\d.:]+)\/v1\/traces/.exec(lines.join("\n"))?.[1];
  const grpcUrl = /OTLP\/gRPC on (http:\/\/[\d.:]+)/.exec(lines.join("\n"))?.[1];
  const metricsUrl = /\/metrics, \/healthz and \/readyz on (http:\/\/[\d.:]+)/.exec(lines.join("\n"))?.[1];
  assert.ok(url && grpcUrl && metricsUrl, lines.join("\n"));
  return { url, grpcUrl, metricsUrl, stop, running };
}

describe("collector health snapshots on the dashboard", () => {
  let dataDir: string;
  let recorder: SpanRecorder;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-health-"));
    recorder = startSpanRecorder();
  });
  after(async () => {
    await recorder.shutdown();
    await rm(dataDir, { recursive: true, force: true });
  });

  test("refused spans show as dropped spans; the slowest store write is measured", async () => {
    const startedMs = Date.now();
    // One message fits in the in-process queue: a request carrying two traces (two messages) never fits and is refused (413).
    const { url, metricsUrl, stop, running } = await startServe(dataDir, { RAGSCOPE_QUIET_PERIOD_MS: "100", RAGSCOPE_MAX_QUEUED_MESSAGES: "1", RAGSCOPE_HEALTH_SNAPSHOT_MS: "0" });

    await oneRequest("纸质发票要付邮费吗？");
    await oneRequest("电子发票怎么开？");
    const refused = recorder.spans();
    recorder.reset();
    assert.equal(await postTraces(url, toOtlpProtobuf(refused)), 413);
    await oneRequest("发票可以重开吗？");
    const accepted = recorder.spans();
    assert.equal(await postTraces(url, toOtlpProtobuf(accepted)), 200);

    const scraped = await (await fetch(`${metricsUrl}/metrics`)).text();
    assert.match(scraped, new RegExp(`^ragscope_spans_dropped_total ${refused.length}$`, "m"));
    stop();
    assert.equal(await running, 0);

    const panels = await collectorHealthPanels(dataDir, startedMs);
    try {
      const overRange = await panels.run("Over the range");
      assert.deepEqual(column(overRange, "Dropped spans"), [refused.length]);
      assert.deepEqual(column(overRange, "Dead letters"), [0]);
      const slowest = column(overRange, "Slowest sink write")[0];
      assert.ok(typeof slowest === "number" && slowest > 0, `the slowest store write is measured: ${slowest}`);

      const losses = await panels.run("Dead letters, drops and partial traces per second");
      const series = column(losses, "series");
      const values = column(losses, "Value");
      const droppedPerSecond = values.filter((_, index) => series[index] === "spans_dropped").reduce<number>((total, value) => total + Number(value), 0);
      assert.ok(droppedPerSecond > 0, `the drops series shows the refused spans: ${JSON.stringify({ series, values })}`);
    } finally {
      await panels.close();
    }
  });

  test("OTLP/gRPC calls accepted and refused, and traces without a RAG request, each on its panel", async () => {
    const startedMs = Date.now();
    const folder = path.join(dataDir, "grpc-and-no-request");
    const { grpcUrl, metricsUrl, stop, running } = await startServe(folder, { RAGSCOPE_QUIET_PERIOD_MS: "100", RAGSCOPE_HEALTH_SNAPSHOT_MS: "0" });

    // A service's plain HTTP span, no RAG stage: accepted over gRPC, then counted as a trace without a request.
    const plainSpan = { ...syntheticSpan(7, 1, []), parentSpanId: "", name: "GET /healthz" };
    const client = new grpc.Client(new URL(grpcUrl).host, grpc.credentials.createInsecure());
    const call = (body: Buffer) =>
      new Promise<number>((resolve) => {
        client.makeUnaryRequest("/opentelemetry.proto.collector.trace.v1.TraceService/Export", (bytes: Buffer) => bytes, (bytes: Buffer) => bytes, body, new grpc.Metadata(), (error) => resolve(error ? error.code : grpc.status.OK));
      });
    try {
      assert.equal(await call(Buffer.from(syntheticRequestBody([plainSpan], "plain-service"))), grpc.status.OK);
      assert.equal(await call(Buffer.from("not an ExportTraceServiceRequest \u0000\u00ff\u00ff", "latin1")), grpc.status.INVALID_ARGUMENT);
    } finally {
      client.close();
    }
    const withoutRequest = async () => readSample(await (await fetch(`${metricsUrl}/metrics`)).text(), "ragscope_traces_without_request_total", { reason: "no_rag_stage" }) ?? 0;
    for (let attempt = 0; attempt < 200 && (await withoutRequest()) < 1; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(await withoutRequest(), 1, "the plain span is a trace without a request (no_rag_stage)");
    stop();
    assert.equal(await running, 0);

    const panels = await collectorHealthPanels(folder, startedMs);
    try {
      /** A rate panel's series, back to counts: each bucket's value is its sum over the bucket's seconds. */
      const totals = async (title: string) => {
        const frames = await panels.run(title);
        const series = column(frames, "series");
        const values = column(frames, "Value");
        const counts: Record<string, number> = {};
        series.forEach((name, index) => (counts[String(name)] = (counts[String(name)] ?? 0) + Math.round((Number(values[index]) * panels.intervalMs) / 1000)));
        return counts;
      };
      assert.deepEqual(await totals("OTLP/gRPC requests per second"), { grpc_requests_accepted: 1, grpc_requests_refused: 1 });
      assert.deepEqual(await totals("Traces without a RAG request per second"), { traces_without_request: 1 });
    } finally {
      await panels.close();
    }
  });

  test("log events joined, waiting for spans that never came, and log records left out, on their panel", async () => {
    const startedMs = Date.now();
    const folder = path.join(dataDir, "log-events");
    const { url, metricsUrl, stop, running } = await startServe(folder, { RAGSCOPE_QUIET_PERIOD_MS: "100", RAGSCOPE_TRACE_TIMEOUT_MS: "500", RAGSCOPE_HEALTH_SNAPSHOT_MS: "0" });

    // openai-v2's older event path, recorded: a chat span, and its three records (system, user, choice) beside it.
    const recording = (file: string) => readFile(fileURLToPath(new URL(`../../data/otel-genai-log-events/${file}`, import.meta.url)), "utf8");
    const traces = JSON.parse(await recording("openai-v2-legacy.traces.otlp.json")) as Json;
    const logsText = await recording("openai-v2-legacy.logs.otlp.json");
    const shift = shiftToStartAt(traces, Date.now() - 60_000);
    // The same three records for a trace whose spans never come, and a log line outside any span.
    const unsampled = JSON.parse(logsText.replaceAll("00001010000000000000000000000001", "00001010000000000000000000000009")) as { resourceLogs: { scopeLogs: { logRecords: Json[] }[] }[] };
    unsampled.resourceLogs[0]!.scopeLogs[0]!.logRecords.push({ timeUnixNano: String(BigInt(Date.now()) * 1_000_000n), body: { stringValue: "service ready" } });
    for (const [signal, body] of [["logs", JSON.parse(logsText) as Json], ["logs", unsampled as unknown as Json], ["traces", traces]] as const) {
      const response = await fetch(`${url}/v1/${signal}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(shifted(body, shift)) });
      assert.equal(response.status, 200, await response.text());
    }
    const outcome = async (name: string) => readSample(await (await fetch(`${metricsUrl}/metrics`)).text(), "ragscope_log_events_total", { outcome: name }) ?? 0;
    for (let attempt = 0; attempt < 200 && ((await outcome("joined")) < 3 || (await outcome("trace_without_spans")) < 3); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    assert.equal(await running, 0);

    const panels = await collectorHealthPanels(folder, startedMs);
    try {
      const frames = await panels.run("Log events per second");
      const series = column(frames, "series");
      const values = column(frames, "Value");
      const counts: Record<string, number> = {};
      series.forEach((name, index) => (counts[String(name)] = (counts[String(name)] ?? 0) + Math.round((Number(values[index]) * panels.intervalMs) / 1000)));
      assert.deepEqual(
        Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0)),
        { log_events_joined: 3, log_events_trace_without_spans: 3, log_records_left_out: 1 },
      );
    } finally {
      await panels.close();
    }
  });
});
