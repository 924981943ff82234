/**
 * The receiver → bus → assembly → rebuild → evaluate → ClickHouse path with
 * real SDK spans: a trace sent whole, a trace split across requests in reverse
 * order, and a trace sent twice rebuild into the same Case Result, and the
 * duplicate is not counted twice. Many traces interleaved, their spans
 * shuffled by a seeded generator over many seeds, and a child span sent after
 * its trace was released each rebuild the Case Result the in-order input does.
 */
import { seededRandom } from "../../../core/seeded-random.js";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { startEmbeddedCollector, type EmbeddedCollector } from "../../../collector/wiring/run/embedded-collector.js";
import { traceCite, traceContext, traceGenerate, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { seedExample } from "../../support/case-results.js";
import { postTraces, startSpanRecorder, toOtlpJson, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";
import { queryRows } from "../../support/temporary-store.js";

/** `variant` sets the answer apart, so traces with a mixed-up span rebuild differently. */
async function seedPipelineRun(runId: string, variant = ""): Promise<void> {
  const { evalCase } = seedExample();
  await traceRequest({ query: evalCase.input, runId, caseId: evalCase.case_id, caseVersion: evalCase.case_version, datasetId: evalCase.dataset_id, datasetVersion: evalCase.dataset_version }, async () => {
    const retrieved = await traceRetrieve({ query: evalCase.input, topK: 5 }, () => [
      { chunkId: "refund_general_01", documentId: "refund_policy_general", sectionId: "section_1", text: "符合条件的商品可按退款规则处理", score: 0.91 },
      { chunkId: "refund_member_points_02", documentId: "refund_policy_member_points", sectionId: "section_2", text: "部分退款后，会员积分按实际保留金额重新计算", score: 0.87, effectiveFrom: "2026-07-01" },
    ]);
    const packed = await traceContext({ tokenBudget: 20 }, () => ({
      text: retrieved[0]!.text!,
      chunkIds: [retrieved[0]!.chunkId],
      droppedChunks: [{ chunkId: retrieved[1]!.chunkId, reason: "token_budget" }],
      tokenCount: 15,
      tokenBudget: 20,
    }));
    const answer = await traceGenerate({ model: "test-model", prompt: packed.text }, () => ({ text: `积分不会受影响，优惠券也会原路退回${variant}`, inputTokens: 40, outputTokens: 17, cost: 0.0004 }));
    await traceCite(() => ["refund_general_01"]);
    return answer.text;
  });
}


function shuffled<Item>(items: readonly Item[], random: () => number): Item[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

describe("trace reassembly through the embedded collector", () => {
  let recorder: SpanRecorder;
  let dataPath: string;
  before(async () => {
    recorder = startSpanRecorder();
    dataPath = await mkdtemp(path.join(os.tmpdir(), "ragscope-reassembly-"));
  });
  after(async () => {
    await recorder.shutdown();
    await rm(dataPath, { recursive: true, force: true });
  });

  async function withCollector<Value>(database: string, work: (collector: EmbeddedCollector) => Promise<Value>): Promise<Value> {
    const config = loadSettings({ fixed: { "receiver.port": 0, "assembler.quietPeriodMs": 150, "clickhouse.dataPath": dataPath, "clickhouse.database": database } });
    assert.ok(config.ok);
    const collector = await startEmbeddedCollector(config.value);
    try {
      await collector.store.cases.put([seedExample().evalCase]);
      return await work(collector);
    } finally {
      await collector.close();
    }
  }

  /** The visible values: a re-opened trace also writes NULL rows that hide values its first evaluation stored (result-rows.ts). */
  async function storedResult(collector: EmbeddedCollector) {
    assert.ok(await collector.waitUntilIdle(10_000), "collector did not become idle");
    const rows = await queryRows<{ payload: string }>(collector.store.connection, "SELECT payload FROM {{database}}.case_results FINAL");
    const metrics = await queryRows<{ metric: string; value: number | null }>(collector.store.connection, "SELECT metric, value FROM {{database}}.metric_values FINAL WHERE value IS NOT NULL ORDER BY metric, evaluator_id, trace_id");
    const [hiding] = await queryRows<{ rows: string }>(collector.store.connection, "SELECT count() AS rows FROM {{database}}.metric_values FINAL WHERE value IS NULL");
    return { results: rows.map((row) => JSON.parse(row.payload)), metrics, nullRows: Number(hiding!.rows) };
  }

  test("whole, split in reverse order, and duplicated: the same Case Result, stored once", async () => {
    recorder.reset();
    await seedPipelineRun("run_reassembly");
    const spans = recorder.spans();
    assert.equal(spans.length, 5);

    const whole = await withCollector("reassembly_whole", async (collector) => {
      assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(spans)), 200);
      return storedResult(collector);
    });
    const split = await withCollector("reassembly_split", async (collector) => {
      // Root first this time is the hard case: children arrive after the root, one request each, JSON and protobuf mixed.
      const reversed = [...spans].reverse();
      for (const [index, span] of reversed.entries()) {
        const status = index % 2 === 0 ? await postTraces(collector.receiverUrl, toOtlpJson([span]), "application/json") : await postTraces(collector.receiverUrl, toOtlpProtobuf([span]));
        assert.equal(status, 200);
      }
      return storedResult(collector);
    });
    const twice = await withCollector("reassembly_twice", async (collector) => {
      assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(spans)), 200);
      assert.ok(await collector.waitUntilIdle(10_000));
      assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(spans)), 200);
      return storedResult(collector);
    });

    assert.equal(whole.results.length, 1);
    const result = whole.results[0];
    assert.equal(result.case_id, "rag_refund_member_points_001");
    assert.equal(result.execution_status, "completed");
    assert.equal(result.quality_status, "failed");
    assert.deepEqual(result.rag_observation.retrieved_chunks.map((chunk: { chunk_id: string; rank: number }) => [chunk.rank, chunk.chunk_id]), [
      [1, "refund_general_01"],
      [2, "refund_member_points_02"],
    ]);
    assert.deepEqual(result.rag_observation.context_chunks, [{ chunk_id: "refund_general_01", position: 1, truncated: false }]);
    assert.deepEqual(result.rag_observation.dropped_chunks, [{ chunk_id: "refund_member_points_02", reason: "token_budget" }]);
    assert.deepEqual(result.rag_observation.citations, ["refund_general_01"]);
    assert.equal(result.output, "积分不会受影响，优惠券也会原路退回");
    assert.equal(result.rag_observation.generation.total_tokens, 57);

    assert.deepEqual(split.results, whole.results, "split and reordered input rebuilds the same Case Result");
    assert.deepEqual(twice.results, whole.results, "a duplicate delivery rebuilds the same Case Result");
    assert.deepEqual(split.metrics, whole.metrics);
    assert.deepEqual(twice.metrics, whole.metrics, "no metric counted twice");
    const metric = (name: string) => whole.metrics.find((row) => row.metric === name)?.value;
    assert.equal(metric("recall_at_k"), 1);
    assert.equal(metric("mrr"), 0.5);
    assert.equal(metric("context_recall"), 0);
    assert.equal(metric("citation_accuracy"), 0);
  });
  test("many traces interleaved, spans shuffled over many seeds, a child after its trace was released: each trace rebuilds its in-order Case Result", async () => {
    const TRACES = 6;
    const SEEDS = 8;
    recorder.reset();
    for (let index = 0; index < TRACES; index += 1) await seedPipelineRun(`run_interleaved_${index}`, `（${index}）`);
    const spans = recorder.spans();
    const traceIds = new Set(spans.map((span) => span.spanContext().traceId));
    assert.equal(traceIds.size, TRACES);
    assert.equal(spans.length, TRACES * 5);
    const byTrace = (results: { trace_id: string }[]) => new Map(results.map((result) => [result.trace_id, result]));

    const inOrder = await withCollector("interleaved_in_order", async (collector) => {
      for (const traceId of traceIds) {
        assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(spans.filter((span) => span.spanContext().traceId === traceId))), 200);
      }
      return storedResult(collector);
    });
    assert.equal(inOrder.results.length, TRACES);
    assert.equal(new Set(inOrder.results.map((result: { output: string }) => result.output)).size, TRACES, "every trace has its own answer");
    const reference = byTrace(inOrder.results);

    for (let seed = 1; seed <= SEEDS; seed += 1) {
      const random = seededRandom(seed);
      const order = shuffled(spans, random);
      const rebuilt = await withCollector(`interleaved_seed_${seed}`, async (collector) => {
        // Requests of one to three spans from any traces, JSON and protobuf mixed.
        for (let start = 0; start < order.length; ) {
          const size = 1 + Math.floor(random() * 3);
          const request = order.slice(start, start + size);
          start += size;
          const status = random() < 0.5 ? await postTraces(collector.receiverUrl, toOtlpJson(request), "application/json") : await postTraces(collector.receiverUrl, toOtlpProtobuf(request));
          assert.equal(status, 200, `seed ${seed}`);
        }
        return storedResult(collector);
      });
      assert.equal(rebuilt.results.length, TRACES, `seed ${seed}: one Case Result per trace`);
      assert.deepEqual(byTrace(rebuilt.results), reference, `seed ${seed}: each trace rebuilds its in-order Case Result`);
      assert.deepEqual(rebuilt.metrics, inOrder.metrics, `seed ${seed}`);
    }

    // A child that arrives after its trace was evaluated and released re-opens it.
    const lateTrace = [...traceIds][0]!;
    const late = spans.find((span) => span.spanContext().traceId === lateTrace && span.name.includes("cite"));
    assert.ok(late, `no citation span in ${spans.map((span) => span.name).join(", ")}`);
    const reopened = await withCollector("interleaved_late_child", async (collector) => {
      assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(spans.filter((span) => span !== late))), 200);
      const released = await storedResult(collector);
      assert.equal(released.results.length, TRACES);
      assert.notDeepEqual(byTrace(released.results).get(lateTrace), reference.get(lateTrace), "without its citation span the trace rebuilds differently");
      assert.equal(await postTraces(collector.receiverUrl, toOtlpJson([late]), "application/json"), 200);
      return storedResult(collector);
    });
    assert.deepEqual(byTrace(reopened.results), reference, "the late child is in its trace's Case Result");
    assert.deepEqual(reopened.metrics, inOrder.metrics);
    // The re-opened trace's evaluation may replace values the first one stored: it wrote NULL rows for its metrics without a value.
    assert.equal(inOrder.nullRows, 0, "a trace evaluated once writes no row for a metric without a value");
    assert.ok(reopened.nullRows > 0, "the re-opened trace wrote NULL rows");
  });
});
