import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { serveCommand } from "../../../collector/wiring/cli/serve-command.js";
import { traceCite, traceContext, traceGenerate, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { defaultDemoDataset } from "../../../collector/wiring/cli/demo-command.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";
import { queryRows } from "../../support/temporary-store.js";

describe("ragscope serve", () => {
  let dataDir: string;
  let recorder: SpanRecorder;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-serve-"));
    recorder = startSpanRecorder();
  });
  after(async () => {
    await recorder.shutdown();
    await rm(dataDir, { recursive: true, force: true });
  });

  test("loads a dataset, receives a trace of an offline run, evaluates it against its case and stops cleanly", async () => {
    const lines: string[] = [];
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const running = serveCommand({ dataset: [defaultDemoDataset], dataDir, port: 0, metricsPort: 0, uiPort: 0 }, { environment: { RAGSCOPE_QUIET_PERIOD_MS: "100" } }, { log: (line) => lines.push(line), error: (line) => lines.push(line) }, stopped);
    const deadline = Date.now() + 20_000;
    while (!lines.some((line) => line.includes("/v1/traces")) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const url = /OTLP\/HTTP on (http:\/\/[\d.:]+)\/v1\/traces/.exec(lines.join("\n"))?.[1];
    assert.ok(url, lines.join("\n"));

    await traceRequest({ query: "纸质发票要付邮费吗？", runId: "serve-run", caseId: "rag_paper_invoice_fee_001", caseVersion: "v1" }, async () => {
      await traceRetrieve({ query: "纸质发票要付邮费吗？" }, () => [{ chunkId: "invoice_01", documentId: "invoice_policy", documentVersion: "v1", sectionId: "section_1", text: "纸质发票需另付邮费10元。" }]);
      await traceContext({}, () => ({ text: "纸质发票需另付邮费10元。", chunkIds: ["invoice_01"] }));
      await traceGenerate({ model: "m" }, () => ({ text: "纸质发票需另付邮费10元。" }));
      await traceCite(() => ["invoice_01"]);
      return "纸质发票需另付邮费10元。";
    });
    assert.equal(await postTraces(url, toOtlpProtobuf(recorder.spans())), 200);
    // Stopping evaluates what is open, so the result is stored once serve returns.
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop();
    assert.equal(await running, 0);

    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const metrics = await queryRows<{ metric: string; value: number | null }>(connection, "SELECT metric, value FROM {{database}}.metric_values FINAL WHERE run_id = 'serve-run' AND metric IN ('recall_at_k', 'citation_accuracy') ORDER BY metric");
      assert.deepEqual(metrics, [
        { metric: "citation_accuracy", value: 1 },
        { metric: "recall_at_k", value: 1 },
      ]);
    } finally {
      await connection.close();
    }
  });

  test("an invalid dataset stops it at start with the problem", async () => {
    const lines: string[] = [];
    const code = await serveCommand({ dataset: [path.join(dataDir, "missing.yaml")], dataDir }, {}, { log: (line) => lines.push(line), error: (line) => lines.push(line) }, Promise.resolve());
    assert.equal(code, 2, "bad input: the service could not start (README, exit codes)");
    assert.match(lines.join("\n"), /missing\.yaml: dataset file not found \(looked in .*missing\.yaml\); check the path/);
  });
});
