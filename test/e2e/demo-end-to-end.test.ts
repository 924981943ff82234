/**
 * End to end on the embedded default: the example RAG service (a separate
 * process, instrumented with the SDK) over the bundled dataset → OTLP/HTTP →
 * receiver → in-process bus → assembly → rebuild → evaluation → chDB.
 * The stored Case Results and metric values are compared with values worked
 * out by hand from the corpus (examples/README.md shows the BM25 arithmetic).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { writeFile } from "node:fs/promises";
import { defaultDemoDataset, runDemo, type DemoOutcome } from "../../collector/wiring/cli/demo-command.js";
import { gateCommand, GateExit } from "../../collector/wiring/cli/gate-command.js";
import { openClickHouse, type ClickHouseConnection } from "../../store/clickhouse/clickhouse-connection.js";
import { queryRows } from "../support/temporary-store.js";

const RUN_ID = "e2e-demo-run";
const silent = { log: () => {}, error: (line: string) => process.stderr.write(`${line}\n`) };

describe("the demo, end to end on the embedded default", () => {
  let dataDir: string;
  let first: DemoOutcome | null;
  let second: DemoOutcome | null;
  let connection: ClickHouseConnection;
  const metricsOf = new Map<string, Map<string, number | null>>();
  const resultOf = new Map<string, { payload: string; quality_status: string }>();

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-e2e-"));
    first = await runDemo({ dataset: defaultDemoDataset, dataDir, runId: RUN_ID, timeoutMs: 60_000 }, {}, silent);
    second = await runDemo({ dataset: defaultDemoDataset, dataDir, runId: RUN_ID, timeoutMs: 60_000 }, {}, silent);
    connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    for (const row of await queryRows<{ case_id: string; metric: string; value: number | null }>(
      connection,
      // A metric with a value has a row; one that did not apply is listed on its Evaluation Result (migration 0008).
      "SELECT case_id, metric, value FROM {{database}}.metric_values FINAL WHERE run_id = {run:String} AND value IS NOT NULL " +
        "UNION ALL SELECT case_id, metric, NULL AS value FROM {{database}}.evaluation_results FINAL ARRAY JOIN not_applicable_metrics AS metric WHERE run_id = {run:String}",
      { run: RUN_ID },
    )) {
      const metrics = metricsOf.get(row.case_id) ?? new Map();
      metrics.set(row.metric, row.value);
      metricsOf.set(row.case_id, metrics);
    }
    for (const row of await queryRows<{ case_id: string; payload: string; quality_status: string }>(connection, "SELECT case_id, payload, quality_status FROM {{database}}.case_results FINAL WHERE run_id = {run:String}", { run: RUN_ID })) {
      resultOf.set(row.case_id, row);
    }
  });

  after(async () => {
    await connection?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const metric = (caseId: string, name: string) => {
    const value = metricsOf.get(caseId)?.get(name);
    assert.notEqual(value, undefined, `${caseId}: no stored value for ${name}`);
    return value;
  };
  const close = (actual: number | null | undefined, expected: number) => assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) < 1e-9, `expected ${expected}, got ${actual}`);
  const observation = (caseId: string) => {
    const row = resultOf.get(caseId);
    assert.ok(row, `no Case Result stored for ${caseId}`);
    return JSON.parse(row.payload) as { output: string; rag_observation: { retrieved_chunks: { rank: number; chunk_id: string }[]; context_chunks: { chunk_id: string }[]; dropped_chunks: { chunk_id: string }[]; citations: string[]; partial_trace: boolean } };
  };

  test("every case of the dataset was evaluated once, and running the demo again did not double-count", async () => {
    assert.ok(first && second, "both demo runs completed");
    assert.equal(first.summary.cases, 26);
    assert.equal(second.summary.cases, 26);
    assert.equal(resultOf.size, 26);
    const [raw] = await queryRows<{ total: string }>(connection, "SELECT count() AS total FROM {{database}}.case_results WHERE run_id = {run:String}", { run: RUN_ID });
    assert.ok(Number(raw!.total) >= 26, "raw rows may hold both runs; FINAL collapses them");
    const [perMetric] = await queryRows<{ most: string }>(connection, "SELECT max(c) AS most FROM (SELECT count() AS c FROM {{database}}.metric_values FINAL WHERE run_id = {run:String} GROUP BY case_result_id, evaluator_id, metric)", { run: RUN_ID });
    assert.equal(Number(perMetric!.most), 1, "no metric value is counted twice");
    for (const caseId of resultOf.keys()) assert.equal(observation(caseId).rag_observation.partial_trace, false, `${caseId} was complete`);
  });

  test("the seed's own case: recall_at_k 1.0, mrr 0.5; context recall and citation accuracy failed", () => {
    const caseId = "rag_refund_member_points_001";
    const result = observation(caseId);
    assert.deepEqual(result.rag_observation.retrieved_chunks.map((chunk) => chunk.chunk_id), ["refund_general_01", "refund_member_points_02", "refund_member_points_01", "refund_member_points_v1_01", "refund_member_points_v1_02"]);
    assert.deepEqual(result.rag_observation.context_chunks.map((chunk) => chunk.chunk_id), ["refund_general_01"]);
    assert.ok(result.rag_observation.dropped_chunks.some((chunk) => chunk.chunk_id === "refund_member_points_02"), "the evidence was retrieved but cut");
    assert.deepEqual(result.rag_observation.citations, ["refund_general_01"]);
    assert.equal(result.output, "积分不会受影响，优惠券也会原路退回");
    assert.equal(metric(caseId, "recall_at_k"), 1);
    assert.equal(metric(caseId, "mrr"), 0.5);
    assert.equal(metric(caseId, "hit_at_1"), 0);
    // Evidence found once, at rank 2 (refund_member_points_v1_02 at rank 5 holds the same section again and counts once).
    close(metric(caseId, "precision_at_5"), 1 / 5);
    close(metric(caseId, "ndcg_at_5"), 1 / Math.log2(3));
    assert.equal(metric(caseId, "context_recall"), 0);
    assert.equal(metric(caseId, "context_precision"), 0);
    assert.equal(metric(caseId, "citation_accuracy"), 0);
    assert.equal(metric(caseId, "citation_validity"), 1);
    assert.equal(resultOf.get(caseId)!.quality_status, "failed");
  });

  test("the summary carries the full rule library and a root cause per failed case", async () => {
    const names = new Set(first!.summary.metrics.map((metric) => metric.metric));
    for (const name of ["recall_at_k", "ndcg_at_10", "map", "context_recall", "evidence_density", "context_redundancy", "token_f1", "cmrc_f1", "cmrc_exact_match", "rouge_l", "bleu", "completeness", "number_agreement", "abstention_correct", "citation_precision", "citation_expired_rate", "expired_chunk_rate", "permission_violation_rate", "latency_ms"]) {
      assert.ok(names.has(name), `summary lacks ${name}`);
    }
    const rootCauses = await queryRows<{ case_id: string; reason: string }>(connection, "SELECT case_id, reason FROM {{database}}.evaluation_results FINAL WHERE run_id = {run:String} AND evaluator_id = 'root_cause'", { run: RUN_ID });
    const failed = [...resultOf].filter(([, row]) => row.quality_status === "failed").map(([caseId]) => caseId).sort();
    assert.deepEqual(rootCauses.map((row) => row.case_id).sort(), failed, "exactly one root cause per failed case");
    assert.match(rootCauses.find((row) => row.case_id === "rag_refund_member_points_001")!.reason, /^CONTEXT_TRUNCATED:/);
    assert.match(rootCauses.find((row) => row.case_id === "rag_price_match_unanswerable_en_001")!.reason, /^SHOULD_ABSTAIN:/);
  });

  test("the release gate reads the stored run: rules met but veto cases failed block (1), a failed rule blocks (1), a bad gate file is 2", async () => {
    const lines: string[] = [];
    const capture = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const passing = path.join(dataDir, "passing-gates.yaml");
    await writeFile(passing, 'retrieval:\n  recall_at_5: ">= 0.9"\nperformance:\n  error_rate: "<= 0.01"\n');
    // Every rule of this file is met, but the demo's P0 cases that failed veto the release whatever the rules say
    // (seed 004 §十三), as `ragscope eval` decides the same run.
    assert.equal(await gateCommand({ run: RUN_ID, gates: passing, dataDir }, {}, capture), GateExit.failed, lines.join("\n"));
    const report = lines.join("\n");
    assert.match(report, /PASS\s+retrieval\.recall_at_5/);
    assert.match(report, /PASS\s+performance\.error_rate/);
    assert.match(report, /Veto cases not passed \(block whatever the averages say\): rag_finance_approval_customer_001, rag_refund_injection_001/);
    assert.match(report, /Decision: BLOCKED/);
    // The case verdicts are shown apart: unjudged cases are not counted as passes.
    assert.match(report, /Case verdicts: \d+ passed \(judged\), \d+ failed, \d+ need review, \d+ unjudged, \d+ not evaluated/);
    const strict = path.join(dataDir, "strict-gates.yaml");
    await writeFile(strict, 'generation:\n  citation_accuracy: ">= 0.95"\n');
    lines.length = 0;
    assert.equal(await gateCommand({ run: RUN_ID, gates: strict, dataDir }, {}, capture), GateExit.failed);
    assert.match(lines.join("\n"), /FAIL\s+generation\.citation_accuracy/);
    const broken = path.join(dataDir, "broken-gates.yaml");
    await writeFile(broken, 'retrieval:\n  recall_at_5: "at least 0.9"\n');
    lines.length = 0;
    assert.equal(await gateCommand({ run: RUN_ID, gates: broken, dataDir }, {}, capture), GateExit.unusable);
    assert.match(lines.join("\n"), /retrieval\.recall_at_5: must be a threshold/);
    assert.equal(await gateCommand({ run: "no-such-run", gates: passing, dataDir }, {}, capture), GateExit.unusable);
  });

  test("an expired document version ranked first and cited", () => {
    const caseId = "rag_shipping_free_threshold_001";
    const result = observation(caseId);
    assert.deepEqual(result.rag_observation.retrieved_chunks.slice(0, 2).map((chunk) => chunk.chunk_id), ["shipping_fee_v1_01", "shipping_fee_01"]);
    assert.deepEqual(result.rag_observation.citations, ["shipping_fee_v1_01"]);
    // The gold evidence is version v2: the expired v1 chunk of the same section does not count.
    assert.equal(metric(caseId, "hit_at_1"), 0);
    assert.equal(metric(caseId, "mrr"), 0.5);
    assert.equal(metric(caseId, "recall_at_k"), 1);
    assert.equal(metric(caseId, "context_recall"), 1);
    assert.equal(metric(caseId, "context_precision"), 0.5);
    assert.equal(metric(caseId, "citation_accuracy"), 0);
    assert.equal(resultOf.get(caseId)!.quality_status, "failed");
  });

  test("a wrong citation: the answer comes from invoice_01 but cites invoice_02", () => {
    const caseId = "rag_paper_invoice_fee_001";
    assert.deepEqual(observation(caseId).rag_observation.citations, ["invoice_02"]);
    assert.equal(metric(caseId, "mrr"), 1);
    assert.equal(metric(caseId, "precision_at_1"), 1);
    assert.equal(metric(caseId, "context_recall"), 1);
    assert.equal(metric(caseId, "context_precision"), 0.5);
    assert.equal(metric(caseId, "citation_accuracy"), 0);
    assert.equal(metric(caseId, "citation_validity"), 1);
  });

  test("a hallucinated answer with perfect retrieval and citation", () => {
    const caseId = "rag_warranty_electronics_en_001";
    const result = observation(caseId);
    assert.equal(result.output, "All electronics come with a two-year warranty.");
    assert.deepEqual(result.rag_observation.citations, ["warranty_en_01"]);
    assert.equal(metric(caseId, "recall_at_k"), 1);
    assert.equal(metric(caseId, "mrr"), 1);
    assert.equal(metric(caseId, "context_recall"), 1);
    assert.equal(metric(caseId, "citation_accuracy"), 1);
  });

  test("a case that passes every rule metric", () => {
    const caseId = "rag_delete_account_data_en_001";
    assert.deepEqual(observation(caseId).rag_observation.citations, ["privacy_en_02"]);
    for (const name of ["recall_at_k", "mrr", "hit_at_1", "ndcg_at_10", "context_recall", "context_precision", "citation_accuracy", "citation_validity"]) assert.equal(metric(caseId, name), 1, name);
  });

  test("an unanswerable question the pipeline declined: retrieval and citation metrics are not applicable", () => {
    const caseId = "rag_crypto_payment_unanswerable_001";
    assert.equal(observation(caseId).output, "抱歉，现有资料不足以回答这个问题。");
    assert.equal(metric(caseId, "recall_at_k"), null);
    assert.equal(metric(caseId, "citation_accuracy"), null);
    assert.ok((metric(caseId, "latency_ms") ?? -1) >= 0, "latency is still recorded");
  });
});
