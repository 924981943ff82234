/**
 * `ragscope serve` writes its health snapshots from the counters /metrics
 * reads: spans the receiver refused (503, in-process queue full) appear as
 * dropped spans on the Collector health dashboard, and the slowest store
 * write is a measurement, not a constant. The dashboard's own SQL runs on the
 * engine against the data folder serve wrote, as Grafana would run it.
 */
import { ClickHouseDashboardQueries } from "../../../store/clickhouse/clickhouse-dashboard-queries.js";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
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
    const lines: string[] = [];
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    // One message fits in the in-process queue: a request carrying two traces (two messages) never fits and is refused (413).
    const environment = { RAGSCOPE_QUIET_PERIOD_MS: "100", RAGSCOPE_MAX_QUEUED_MESSAGES: "1", RAGSCOPE_HEALTH_SNAPSHOT_MS: "0" };
    const running = serveCommand({ dataset: [], dataDir, port: 0, metricsPort: 0 }, { environment }, { log: (line) => lines.push(line), error: (line) => lines.push(line) }, stopped);
    const deadline = Date.now() + 20_000;
    while (!lines.some((line) => line.includes("/metrics")) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const url = /OTLP\/HTTP on (http:\/\/[\d.:]+)\/v1\/traces/.exec(lines.join("\n"))?.[1];
    const metricsUrl = /\/metrics, \/healthz and \/readyz on (http:\/\/[\d.:]+)/.exec(lines.join("\n"))?.[1];
    assert.ok(url && metricsUrl, lines.join("\n"));

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

    const dashboard = (await readDashboards(undefined, ["collector-health.json"]))[0]!;
    const panel = (title: string): ReportPanel => {
      const found = dashboard.rows.flatMap((row) => row.panels).find((candidate) => candidate.title === title);
      assert.ok(found, `no panel ${title}`);
      return found;
    };
    const endMs = Date.now() + 1_000;
    const context = { fromMs: startedMs - 60_000, toMs: endMs, intervalMs: panelIntervalMs(startedMs - 60_000, endMs, 60) };
    const connection: ClickHouseConnection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const run = async (target: ReportPanel) => Promise.all(target.targets.map((each) => runQuery(new ClickHouseDashboardQueries(connection), each.refId, executableSql(each.rawSql, connection.database, {}, context))));
      const overRange = await run(panel("Over the range"));
      assert.deepEqual(column(overRange, "Dropped spans"), [refused.length]);
      assert.deepEqual(column(overRange, "Dead letters"), [0]);
      const slowest = column(overRange, "Slowest sink write")[0];
      assert.ok(typeof slowest === "number" && slowest > 0, `the slowest store write is measured: ${slowest}`);

      const losses = await run(panel("Dead letters, drops and partial traces per second"));
      const series = column(losses, "series");
      const values = column(losses, "Value");
      const droppedPerSecond = values.filter((_, index) => series[index] === "spans_dropped").reduce<number>((total, value) => total + Number(value), 0);
      assert.ok(droppedPerSecond > 0, `the drops series shows the refused spans: ${JSON.stringify({ series, values })}`);
    } finally {
      await connection.close();
    }
  });
});
