/**
 * Embedding measurements have their own sample rate
 * (RAGSCOPE_EMBEDDINGS_SAMPLE_RATE), independent of the judge's
 * (RAGSCOPE_SAMPLE_RATE): through the online stage as the collector builds it
 * from settings, on the real store, with a fake embeddings endpoint (the one
 * thing here we do not run) and the scripted judge.
 *
 * The expected samples are computed here from their definition — the first
 * 48 bits of SHA-256 of the lower-case trace id (the judge's), or of
 * "embeddings:" + it (the embeddings') — not with the dispatcher's code.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { onlineSettings } from "../../../collector/wiring/config/settings-schema.js";
import { createConfiguredEmbeddings } from "../../../collector/wiring/online/embeddings-config.js";
import { createOnlineStage } from "../../../collector/wiring/online/online-stage.js";
import { caseResult as caseResultSchema } from "../../../contracts/case-result.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";
import { startFakeEmbeddingsServer, type FakeEmbeddingsServer } from "../../support/fake-embeddings-server.js";
import { ScriptedJudge } from "../../support/scripted-judge.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const FAST_RETRY = { initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 1, deadlineMs: 1_000 };
const TRACES = 40;

function draw(text: string): number {
  return createHash("sha256").update(text).digest().readUIntBE(0, 6) / 2 ** 48;
}

const evalCase = buildCase({ case_id: "case_leave", input: "How many days of annual leave?", reference_answer: "Employees have 10 days of annual leave." });

function evaluations(prefix: string) {
  const registry = createDefaultRegistry();
  return Array.from({ length: TRACES }, (_, index) => {
    const traceId = `${prefix}${String(index).padStart(32 - prefix.length, "0")}`;
    const built = caseResultSchema.parse({ ...buildCaseResult({ output: "Employees get 10 days of annual leave.", caseId: "case_leave", context: "Employees have 10 days of annual leave." }), trace_id: traceId, case_result_id: `cr_${traceId}` });
    return evaluateCaseResult(registry, built, evalCase, "2026-12-01T10:00:00.000Z");
  });
}

describe("the embeddings' own sample rate", () => {
  let store: TemporaryStore;
  let embeddings: FakeEmbeddingsServer;
  before(async () => {
    store = await temporaryStore();
    await store.store.cases.put([evalCase]);
    embeddings = await startFakeEmbeddingsServer((text) => (text.includes("get") ? [1, 0.2, 0] : [0.9, 0.3, 0.1]));
  });
  after(async () => {
    await embeddings.close();
    await store.cleanup();
  });

  async function runOnline(environment: Record<string, string>, prefix: string) {
    const loaded = loadSettings({ environment: { RAGSCOPE_JUDGE_ENABLED: "true", RAGSCOPE_EMBEDDINGS_BASE_URL: embeddings.baseUrl, RAGSCOPE_EMBEDDINGS_MODEL: "embedder", ...environment } });
    assert.ok(loaded.ok, JSON.stringify(loaded.ok ? null : loaded.error));
    const config = onlineSettings(loaded.value);
    const configured = createConfiguredEmbeddings(config.embeddingsEndpoint);
    assert.ok(configured);
    const judge = new ScriptedJudge({ value: () => 0.9 });
    const stage = await createOnlineStage(config, { store: store.store, judge, embeddings: configured, retry: FAST_RETRY, log: () => {} });
    assert.ok(stage.ok);
    const batch = evaluations(prefix);
    try {
      await stage.value.afterWrite(batch);
      const deadline = Date.now() + 30_000;
      while (!stage.value.isIdle()) {
        assert.ok(Date.now() < deadline, "the judge queue drained");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await stage.value.close();
    }
    const rows = await queryRows<{ case_result_id: string; evaluator_id: string; outcome: string }>(
      store.connection,
      "SELECT case_result_id, evaluator_id, outcome FROM {{database}}.evaluation_results FINAL WHERE case_result_id IN {ids:Array(String)}",
      { ids: batch.map((item) => item.caseResult.case_result_id) },
    );
    const idsWith = (predicate: (evaluatorId: string) => boolean) => [...new Set(rows.filter((row) => predicate(row.evaluator_id)).map((row) => row.case_result_id))].sort();
    return {
      batch,
      judged: idsWith((id) => id.startsWith("judge.")),
      measured: idsWith((id) => id === "embedding.answer_similarity"),
      outcomes: new Set(rows.filter((row) => row.evaluator_id === "embedding.answer_similarity").map((row) => row.outcome)),
      judgeCalls: judge.calls.length,
    };
  }

  test("traces the judge does not sample are measured at the embeddings' rate; the judge sees none of them", async () => {
    const { batch, judged, measured, outcomes, judgeCalls } = await runOnline({ RAGSCOPE_SAMPLE_RATE: "0", RAGSCOPE_EMBEDDINGS_SAMPLE_RATE: "0.5" }, "e1");
    const expected = batch.filter((item) => draw(`embeddings:${item.caseResult.trace_id}`) < 0.5).map((item) => item.caseResult.case_result_id).sort();
    assert.ok(expected.length > 5 && expected.length < TRACES - 5, `a 50 % sample of ${TRACES} chose ${expected.length}`);
    assert.deepEqual(measured, expected);
    assert.deepEqual([...outcomes], ["measured"], "measurements, never a pass");
    assert.deepEqual(judged, []);
    assert.equal(judgeCalls, 0);
  });

  test("the two samples are drawn independently: at equal rates they are different traces, and each follows its own rate", async () => {
    const { batch, judged, measured } = await runOnline({ RAGSCOPE_SAMPLE_RATE: "0.5", RAGSCOPE_EMBEDDINGS_SAMPLE_RATE: "0.5" }, "e2");
    const expectedJudged = batch.filter((item) => draw(item.caseResult.trace_id) < 0.5).map((item) => item.caseResult.case_result_id).sort();
    const expectedMeasured = batch.filter((item) => draw(`embeddings:${item.caseResult.trace_id}`) < 0.5).map((item) => item.caseResult.case_result_id).sort();
    assert.deepEqual(judged, expectedJudged);
    assert.deepEqual(measured, expectedMeasured);
    assert.notDeepEqual(judged, measured, "not the same traces");
  });

  test("embeddings at rate 0 are measured nowhere, judged traces included; the default rate 1 measures every trace with a case", async () => {
    const none = await runOnline({ RAGSCOPE_SAMPLE_RATE: "1", RAGSCOPE_EMBEDDINGS_SAMPLE_RATE: "0" }, "e3");
    assert.equal(none.judged.length, TRACES);
    assert.deepEqual(none.measured, []);
    const every = await runOnline({ RAGSCOPE_SAMPLE_RATE: "0" }, "e4");
    assert.equal(every.measured.length, TRACES);
    assert.deepEqual(every.judged, []);
  });
});
