/**
 * An operator sees on `ragscope serve`'s /metrics how the store sits on disk,
 * table by table: the built CLI as a child process reading the store's parts
 * every 200 ms (RAGSCOPE_STORE_PARTS_INTERVAL_MS), SDK spans of three
 * requests sent over OTLP/HTTP, /metrics scraped until the three Case Results
 * are in case_results' rows. Then every table the store has is listed (an
 * empty one with 0 rows and no parts), the written tables hold rows in at
 * least one part on disk, and the engine's part limits are there to alert
 * against; serve's health snapshots carry the fullest partition and the
 * limit into collector_health (the Collector health board's Store row and
 * the pipeline alert read them). Started again with the reading turned off
 * (0), serve shows no store series rather than zeros.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { queryRows } from "../../support/temporary-store.js";
import { traceContext, traceGenerate, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";

const REQUESTS = 3;
const CONTEXT = "Employees have 10 days of annual leave per year.";

describe("ragscope serve's /metrics says how the store sits on disk", () => {
  let folder: string;
  let recorder: SpanRecorder;
  let serve: ServeWithUi | undefined;
  let text: string;

  const metricsUrlOf = (running: ServeWithUi) => /\/readyz on (http:\/\/[\d.:]+)/.exec(running.output())![1]!;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-serve-store-parts-"));
    recorder = startSpanRecorder("leave-bot");
    serve = await startServeWithUi(path.join(folder, "data"), { RAGSCOPE_QUIET_PERIOD_MS: "200", RAGSCOPE_STORE_PARTS_INTERVAL_MS: "200" });
    for (let index = 0; index < REQUESTS; index += 1) {
      const query = `question ${index}: how many days of annual leave?`;
      await traceRequest({ query }, async () => {
        await traceRetrieve({ query }, () => [{ chunkId: "leave_chunk", documentId: "handbook", text: CONTEXT }]);
        await traceContext({}, () => ({ text: CONTEXT, chunkIds: ["leave_chunk"] }));
        await traceGenerate({ model: "m" }, () => ({ text: CONTEXT }));
        return CONTEXT;
      });
    }
    assert.equal(await postTraces(serve.receiverUrl, toOtlpProtobuf(recorder.spans())), 200);
    const metricsUrl = metricsUrlOf(serve);
    const deadline = Date.now() + 60_000;
    text = await (await fetch(`${metricsUrl}/metrics`)).text();
    while (readSample(text, "ragscope_store_rows", { table: "case_results" }) !== REQUESTS && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      text = await (await fetch(`${metricsUrl}/metrics`)).text();
    }
    assert.equal(readSample(text, "ragscope_store_rows", { table: "case_results" }), REQUESTS, serve.output());
  });

  after(async () => {
    await serve?.stop();
    await recorder?.shutdown();
    await rm(folder, { recursive: true, force: true });
  });

  test("the written tables hold rows in parts on disk; an empty table shows 0; the engine's part limits are there", () => {
    for (const table of ["case_results", "evaluation_results", "trace_list", "trace_spans"]) {
      assert.ok(readSample(text, "ragscope_store_rows", { table })! >= REQUESTS, table);
      const active = readSample(text, "ragscope_store_active_parts", { table })!;
      const largest = readSample(text, "ragscope_store_largest_partition_parts", { table })!;
      assert.ok(active >= 1 && largest >= 1 && largest <= active, `${table}: ${active} parts, ${largest} in its fullest partition`);
      assert.ok(readSample(text, "ragscope_store_bytes_on_disk", { table })! > 0, table);
    }
    for (const name of ["ragscope_store_rows", "ragscope_store_active_parts", "ragscope_store_largest_partition_parts", "ragscope_store_bytes_on_disk"]) {
      assert.equal(readSample(text, name, { table: "human_labels" }), 0, `${name}: no review yet`);
    }
    const delay = readSample(text, "ragscope_store_parts_to_delay_insert")!;
    const refuse = readSample(text, "ragscope_store_parts_to_throw_insert")!;
    assert.ok(delay > 0 && delay < refuse, `${delay} < ${refuse}`);
  });

  test("the health snapshots carry the fullest partition and the engine's limit into the store, for the Collector health board and the pipeline alert", async () => {
    assert.equal(await serve?.stop(), 0);
    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: path.join(folder, "data") });
    try {
      const levels = await queryRows<{ metric: string; highest: number }>(
        connection,
        "SELECT metric, max(value) AS highest FROM {{database}}.collector_health FINAL WHERE kind = 'gauge' AND metric LIKE 'store_%' GROUP BY metric ORDER BY metric",
      );
      // Merges may have joined parts since the scrape: the snapshot's fullest partition is read again, so only its presence is compared.
      assert.deepEqual(levels.map((level) => level.metric), ["store_largest_partition_parts", "store_parts_to_delay_insert"]);
      assert.equal(levels[1]!.highest, readSample(text, "ragscope_store_parts_to_delay_insert"));
      assert.ok(levels[0]!.highest >= 1);
    } finally {
      await connection.close();
    }
  });

  test("with the reading turned off, no store series at all", async () => {
    await serve?.stop();
    serve = await startServeWithUi(path.join(folder, "data"), { RAGSCOPE_STORE_PARTS_INTERVAL_MS: "0" });
    const off = await (await fetch(`${metricsUrlOf(serve)}/metrics`)).text();
    assert.doesNotMatch(off, /^ragscope_store_/m);
    assert.match(off, /^ragscope_engine_memory_bytes /m, "the other gauges are there");
  });
});
