/**
 * Online verdicts never call an ungrounded answer passed, end to end: SDK
 * spans → OTLP/HTTP → the receiver of `ragscope serve` (the embedded default,
 * judge off as `serve` defaults) → assembly → rebuild → evaluation → chDB,
 * read back from the store.
 *
 * Twenty answers are fabricated: every claim names a city, a year and a
 * designer the context does not contain. Two answers repeat their context.
 * Without a judge, nothing able to judge online traffic runs, so
 * - a fabricated answer has a heuristic signal against it (claims without
 *   overlap in the context): quality_status review_required ("needs
 *   review"), the overlap measure stored as a measurement with
 *   review_required = 1 — never passed;
 * - a faithful answer has no signal either way: unjudged — never passed;
 * - task success counts judged passes only: 0 of the 20 requests with a
 *   (pending) verdict, the faithful ones left out.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { serveCommand } from "../../collector/wiring/cli/serve-command.js";
import { openClickHouse, type ClickHouseConnection } from "../../store/clickhouse/clickhouse-connection.js";
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import { summarizeTaskSuccess } from "../../evaluators/aggregate/task-success.js";
import { NAMED_AGGREGATES } from "../../dashboards/source/aggregate-metrics.js";
import { traceContext, traceGenerate, traceRequest, traceRetrieve } from "../../instrumentation/index.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../support/recorded-spans.js";
import { queryRows } from "../support/temporary-store.js";
import { qualifyTables } from "../../report/qualify-tables.js";

const FABRICATED = 20;
const CITIES = ["Lyon", "Porto", "Ghent", "Turin", "Bergen"];

function contextOf(index: number): string {
  return `Museum number ${index} opened in ${CITIES[index % CITIES.length]} in ${1850 + index}. Its collection holds ${100 + index} paintings.`;
}

function fabricatedAnswerOf(index: number): string {
  return `Museum number ${index} opened in Vienna in ${1950 + index}. It was designed by Rem Koolhaas.`;
}

async function tracedRequest(query: string, context: string, answer: string): Promise<void> {
  await traceRequest({ query }, async () => {
    await traceRetrieve({ query }, () => [{ chunkId: "museum_chunk", documentId: "museums", text: context }]);
    await traceContext({}, () => ({ text: context, chunkIds: ["museum_chunk"] }));
    await traceGenerate({ model: "m" }, () => ({ text: answer }));
    return answer;
  });
}

describe("online verdicts with the judge off (ragscope serve's default)", () => {
  let dataDir: string;
  let recorder: SpanRecorder;
  let connection: ClickHouseConnection;
  const statusOf = new Map<string, string>();
  const payloads: string[] = [];

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-online-verdicts-"));
    recorder = startSpanRecorder();
    const lines: string[] = [];
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const running = serveCommand({ dataset: [], dataDir, port: 0, metricsPort: 0, uiPort: 0 }, { environment: { RAGSCOPE_QUIET_PERIOD_MS: "100" } }, { log: (line) => lines.push(line), error: (line) => lines.push(line) }, stopped);
    // Wait for the receiver's address line (start-up, not a timing assertion).
    while (!lines.some((line) => line.includes("/v1/traces"))) {
      if (lines.some((line) => /error|invalid/i.test(line))) throw new Error(lines.join("\n"));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const url = /OTLP\/HTTP on (http:\/\/[\d.:]+)\/v1\/traces/.exec(lines.join("\n"))?.[1];
    assert.ok(url, lines.join("\n"));
    assert.match(lines.join("\n"), /online evaluation: judge disabled/);

    for (let index = 0; index < FABRICATED; index += 1) await tracedRequest(`fabricated ${index}: when did museum ${index} open?`, contextOf(index), fabricatedAnswerOf(index));
    for (const index of [100, 101]) await tracedRequest(`faithful ${index}: when did museum ${index} open?`, contextOf(index), contextOf(index));
    assert.equal(await postTraces(url, toOtlpProtobuf(recorder.spans())), 200);
    // Stopping evaluates every open trace before serve returns.
    stop();
    assert.equal(await running, 0, lines.join("\n"));

    connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    for (const row of await queryRows<{ payload: string; quality_status: string }>(connection, "SELECT payload, quality_status FROM {{database}}.case_results FINAL")) {
      const query = (JSON.parse(row.payload) as { rag_observation: { query: string } }).rag_observation.query;
      statusOf.set(query.split(":")[0]!, row.quality_status);
      payloads.push(row.payload);
    }
  });

  after(async () => {
    await recorder?.shutdown();
    await connection?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test("every trace was stored", () => {
    assert.equal(statusOf.size, FABRICATED + 2, [...statusOf.keys()].join(", "));
  });

  test("no fabricated answer is passed: each needs review (quality_status review_required)", () => {
    for (let index = 0; index < FABRICATED; index += 1) assert.equal(statusOf.get(`fabricated ${index}`), "review_required", `fabricated ${index}`);
  });

  test("a faithful answer with nothing able to judge it is unjudged, not passed", () => {
    assert.equal(statusOf.get("faithful 100"), "unjudged");
    assert.equal(statusOf.get("faithful 101"), "unjudged");
  });

  test("the overlap measure is stored as a measurement with a review flag, never as a pass", async () => {
    const rows = await queryRows<{ outcome: string; review_required: number; flagged: number; value: number | null }>(
      connection,
      `SELECT evaluation.outcome AS outcome, evaluation.review_required AS review_required, count() AS flagged, any(metric.value) AS value
       FROM (SELECT case_result_id, outcome, review_required FROM {{database}}.evaluation_results FINAL WHERE evaluator_id = 'online.groundedness') AS evaluation
       INNER JOIN (SELECT case_result_id, value FROM {{database}}.metric_values FINAL WHERE metric = 'heuristic_groundedness') AS metric USING case_result_id
       GROUP BY outcome, review_required ORDER BY review_required`,
    );
    assert.deepEqual(
      rows.map((row) => ({ ...row, review_required: Number(row.review_required), flagged: Number(row.flagged) })),
      [
        { outcome: "measured", review_required: 0, flagged: 2, value: 1 },
        { outcome: "measured", review_required: 1, flagged: FABRICATED, value: 0 },
      ],
    );
    const passed = await queryRows<{ passed: number }>(connection, "SELECT count() AS passed FROM {{database}}.case_results FINAL WHERE quality_status = 'passed'");
    assert.equal(Number(passed[0]!.passed), 0);
  });

  test("task success counts judged passes only: 0 % of 20 with a verdict, in the aggregate and on the dashboard", async () => {
    const summary = summarizeTaskSuccess(payloads.map((payload) => caseResultSchema.parse(JSON.parse(payload))));
    assert.equal(summary.succeeded, 0);
    assert.equal(summary.judged, FABRICATED);
    assert.equal(summary.reviewRequired, FABRICATED);
    assert.equal(summary.unjudged, 2);
    assert.deepEqual(summary.rate, { applicable: true, value: 0 });

    // The dashboards' and alerts' definition of the same number, on the same rows.
    const taskSuccess = NAMED_AGGREGATES.find((aggregate) => aggregate.name === "task_success_rate")!;
    const needsReview = NAMED_AGGREGATES.find((aggregate) => aggregate.name === "review_required_rate")!;
    const unjudged = NAMED_AGGREGATES.find((aggregate) => aggregate.name === "unjudged_rate")!;
    const [row] = await queryRows<{ success: number; samples: number; review: number; unjudged: number }>(
      connection,
      // The definitions read human_labels too (reviewed verdicts): qualified as the report and the UI qualify them.
      qualifyTables(`SELECT ${taskSuccess.value} AS success, ${taskSuccess.samples} AS samples, ${needsReview.value} AS review, ${unjudged.value} AS unjudged FROM case_results FINAL`, connection.database),
    );
    assert.equal(Number(row!.success), 0);
    assert.equal(Number(row!.samples), FABRICATED);
    assert.equal(Number(row!.review), FABRICATED / (FABRICATED + 2));
    assert.equal(Number(row!.unjudged), 2 / (FABRICATED + 2));
  });
});
