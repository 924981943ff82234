/**
 * The judge queue on the embedded default, against the real ClickHouse engine:
 * sampled traces are judged and stored as Evaluation Results and metric rows;
 * a replayed trace calls no judge again (the judge's cache) and counts once
 * (FINAL); a failing sink acknowledges nothing and the work is delivered
 * again; the OpenAI-compatible judge works through the queue against the
 * fake endpoint; and a slow judge never holds back the span stream.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Result } from "../../../core/result.js";
import { evaluateCaseResult, type CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { CachedJudge } from "../../../evaluators/judge/cached-judge.js";
import { runJudgeEvaluations } from "../../../evaluators/judge/judge-evaluations.js";
import { LruJudgeCache } from "../../../evaluators/judge/lru-judge-cache.js";
import { OpenAiJudge } from "../../../evaluators/judge/openai-judge.js";
import { ClickHouseCaseStore } from "../../../store/clickhouse/clickhouse-case-store.js";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { ClickHouseJudgeResultSink } from "../../../store/clickhouse/clickhouse-judge-result-sink.js";
import { InProcessJudgeQueue } from "../../../collector/09-judge/in-process-judge-queue.js";
import { JudgeDispatcher } from "../../../collector/09-judge/judge-dispatcher.js";
import type { Judge } from "../../../evaluators/judge/judge.js";
import type { JudgedCase, JudgeResultSink } from "../../../store/ports/judge-result-sink.js";
import { JudgeWorker } from "../../../collector/09-judge/judge-worker.js";
import { createOnlineStage } from "../../../collector/wiring/online/online-stage.js";
import { startEmbeddedCollector } from "../../../collector/wiring/run/embedded-collector.js";
import { traceSampleDraw } from "../../../collector/08-sample/trace-hash.js";
import { TraceSampler } from "../../../collector/08-sample/trace-sampler.js";
import type { SinkFailure } from "../../../store/ports/result-sink.js";
import { traceContext, traceGenerate, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { reply, startFakeChatCompletionsServer, type ScriptedReply } from "../../support/fake-chat-completions-server.js";
import { onlineCaseResult } from "../../support/online-case-results.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf } from "../../support/recorded-spans.js";
import { ScriptedJudge } from "../../support/scripted-judge.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const FAST_RETRY = { initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 1, deadlineMs: 1_000 };

function ruleEvaluations(count: number, prefix: string): CaseEvaluation[] {
  const registry = createDefaultRegistry();
  return Array.from({ length: count }, (_, index) => {
    const caseResult = onlineCaseResult({
      traceId: `${prefix}${String(index).padStart(32 - prefix.length, "0")}`,
      // Distinct questions and answers: the judge cache is keyed by what the judge sees, not by trace.
      query: `年假有几天？（第${index + 1}位员工）`,
      output: `员工每年享有10天年假，第${index + 1}位员工也一样。`,
      // The context states the answer's every claim: no heuristic review signal forces the trace
      // into the sample (forced-inclusion.ts), so only the rate chooses.
      retrieved: [{ chunk_id: "leave_1", text: `员工每年享有10天年假，入职满一年后生效，第${index + 1}位员工也一样。` }],
      contextChunkIds: ["leave_1"],
    });
    return evaluateCaseResult(registry, caseResult, null, "2026-07-08T10:00:00.000Z");
  });
}

async function waitForIdle(queue: InProcessJudgeQueue, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!queue.isIdle()) {
    if (Date.now() > deadline) throw new Error(`judge queue not idle after ${timeoutMs} ms (depth ${queue.depth})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("judge queue (embedded)", () => {
  let store: TemporaryStore;
  before(async () => {
    store = await temporaryStore();
  });
  after(async () => {
    await store.cleanup();
  });

  const judgeRows = (caseResultIds?: readonly string[]) =>
    queryRows<{ case_result_id: string; evaluator_id: string; outcome: string }>(
      store.connection,
      `SELECT case_result_id, evaluator_id, outcome FROM {{database}}.evaluation_results FINAL WHERE evaluator_id LIKE 'judge.%'${caseResultIds ? " AND case_result_id IN {ids:Array(String)}" : ""} ORDER BY case_result_id, evaluator_id`,
      caseResultIds ? { ids: caseResultIds } : {},
    );

  function pipeline(judge: Judge, sink: JudgeResultSink, rate: number) {
    const queue = new InProcessJudgeQueue({ maxQueued: 1_000, batchSize: 8, retryDelayMs: 10, maxRetryDelayMs: 50 });
    const worker = new JudgeWorker({
      run: (caseResult, evalCase, evaluatedAt) => runJudgeEvaluations(judge, caseResult, evalCase, evaluatedAt),
      cases: new ClickHouseCaseStore(store.connection),
      sink,
      concurrency: 3,
      sinkRetry: FAST_RETRY,
      log: () => {},
    });
    const dispatcher = new JudgeDispatcher({ sampler: new TraceSampler({ rates: { defaultRate: rate, services: {}, routes: {}, tenants: {} } }), queue, log: () => {} });
    return { queue, worker, dispatcher };
  }

  test("only the sampled traces are judged; a replay calls no judge and adds no row", async () => {
    const scripted = new ScriptedJudge({ value: () => 0.9 });
    const judge = new CachedJudge(scripted, new LruJudgeCache());
    const { queue, worker, dispatcher } = pipeline(judge, new ClickHouseJudgeResultSink(store.connection), 0.25);
    await queue.start(worker.handle);
    try {
      const evaluations = ruleEvaluations(40, "aa");
      const expected = evaluations.filter((item) => traceSampleDraw(item.caseResult.trace_id) < 0.25).map((item) => item.caseResult.case_result_id).sort();
      assert.ok(expected.length > 0 && expected.length < 40, `a 25 % sample of 40 chose ${expected.length}`);

      await dispatcher.dispatch(evaluations);
      await waitForIdle(queue);
      const ids = evaluations.map((item) => item.caseResult.case_result_id);
      const rows = await judgeRows(ids);
      // The online trace has an answer, a context and no citations, reference or key points:
      // faithfulness, answer relevance, context precision and sufficiency apply.
      const metricsPerTrace = rows.length / expected.length;
      assert.deepEqual([...new Set(rows.map((row) => row.case_result_id))].sort(), expected);
      assert.ok(Number.isInteger(metricsPerTrace) && metricsPerTrace >= 3, `${rows.length} rows for ${expected.length} traces`);
      const callsAfterFirst = scripted.calls.length;
      assert.equal(callsAfterFirst, rows.length, "one judge call per stored result");

      // The same traces again (a replay after a crash or a re-delivery of the span topic).
      await dispatcher.dispatch(evaluations);
      await waitForIdle(queue);
      assert.equal(scripted.calls.length, callsAfterFirst, "the cache answered: no new judge call");
      assert.deepEqual(await judgeRows(ids), rows, "FINAL counts each result once");
      const metricCounts = await queryRows<{ total: string }>(store.connection, "SELECT count() AS total FROM {{database}}.metric_values FINAL WHERE metric = 'faithfulness' AND case_result_id IN {ids:Array(String)}", { ids });
      assert.equal(Number(metricCounts[0]!.total), expected.length);
      assert.equal(worker.counters.judgedCases, 2 * expected.length);
    } finally {
      await queue.close();
    }
  });

  test("a sink that fails acknowledges nothing: the batch comes back and is written once", async () => {
    const inner = new ClickHouseJudgeResultSink(store.connection);
    let failuresLeft = 2;
    const flaky: JudgeResultSink = {
      async write(batch: readonly JudgedCase[]): Promise<Result<void, SinkFailure>> {
        if (failuresLeft > 0) {
          failuresLeft -= 1;
          return { ok: false, error: { retriable: true, message: "ClickHouse is down" } };
        }
        return inner.write(batch);
      },
    };
    const scripted = new ScriptedJudge({ value: () => 1 });
    const { queue, worker, dispatcher } = pipeline(new CachedJudge(scripted, new LruJudgeCache()), flaky, 1);
    await queue.start(worker.handle);
    try {
      const evaluations = ruleEvaluations(3, "bb");
      await dispatcher.dispatch(evaluations);
      await waitForIdle(queue);
      assert.equal(queue.counters.handlerFailures, 2);
      assert.equal(queue.counters.acknowledged, 3);
      const rows = await judgeRows(evaluations.map((item) => item.caseResult.case_result_id));
      assert.equal(new Set(rows.map((row) => row.case_result_id)).size, 3);
      // Judged once: the redeliveries were answered by the cache.
      assert.equal(scripted.calls.length, rows.length);
    } finally {
      await queue.close();
    }
  });

  test("the OpenAI-compatible judge through the queue: verdicts and a grader error stored", async () => {
    const server = await startFakeChatCompletionsServer();
    const answers: Record<string, ScriptedReply> = {
      faithfulness: reply.json({ claims: [{ claim: "员工每年享有10天年假", supported: true, documents: ["D1"] }], reason: "stated in D1", confidence: "high" }),
      answer_relevance: reply.json({ score: 3, reason: "direct answer" }),
      context_precision_judged: reply.json({ documents: [{ id: "D1", relevant: true }], reason: "on topic" }),
      context_sufficiency_judged: reply.text("not JSON at all"),
    };
    server.respondWith((request) => answers[/^METRIC: (\w+)/m.exec(request.system)?.[1] ?? ""] ?? reply.status(500));
    const judge = new OpenAiJudge({ baseUrl: server.baseUrl, apiKey: "test-key", model: "fake-judge", retryPolicy: { initialDelayMs: 1, maxDelayMs: 2, maxAttempts: 2, deadlineMs: 2_000 } });
    const { queue, worker, dispatcher } = pipeline(new CachedJudge(judge, new LruJudgeCache()), new ClickHouseJudgeResultSink(store.connection), 1);
    await queue.start(worker.handle);
    try {
      const [evaluation] = ruleEvaluations(1, "cc");
      await dispatcher.dispatch([evaluation!]);
      await waitForIdle(queue);
      const rows = await queryRows<{ evaluator_id: string; outcome: string; error_type: string; value: number | null }>(
        store.connection,
        "SELECT e.evaluator_id AS evaluator_id, e.outcome AS outcome, e.error_type AS error_type, m.value AS value FROM {{database}}.evaluation_results AS e FINAL JOIN {{database}}.metric_values AS m FINAL ON m.evaluation_result_id = e.evaluation_result_id AND m.metric = replaceOne(e.evaluator_id, 'judge.', '') WHERE e.case_result_id = {id:String} ORDER BY evaluator_id",
        { id: evaluation!.caseResult.case_result_id },
      );
      assert.deepEqual(rows, [
        { evaluator_id: "judge.answer_relevance", outcome: "passed", error_type: "none", value: 1 },
        { evaluator_id: "judge.context_precision_judged", outcome: "passed", error_type: "none", value: 1 },
        { evaluator_id: "judge.context_sufficiency_judged", outcome: "error", error_type: "evaluator_error", value: null },
        { evaluator_id: "judge.faithfulness", outcome: "passed", error_type: "none", value: 1 },
      ]);
    } finally {
      await queue.close();
      await server.close();
    }
  });
});

describe("online stage in the embedded collector", () => {
  test("a slow judge never holds back the span stream; its results follow", async () => {
    const recorder = startSpanRecorder("support-bot");
    const store = await temporaryStore({ migrate: false });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const scripted = new ScriptedJudge({ value: () => 1, delay: () => released });
    const config = loadSettings({ fixed: { "receiver.port": 0, "assembler.quietPeriodMs": 100, "clickhouse.dataPath": store.dataPath, "clickhouse.database": store.connection.database } });
    const online = loadSettings({ environment: { RAGSCOPE_JUDGE_ENABLED: "true", RAGSCOPE_SAMPLE_RATE: "1", RAGSCOPE_JUDGE_CONCURRENCY: "1" } });
    assert.ok(config.ok && online.ok);
    const collector = await startEmbeddedCollector(config.value, {
      online: async (store) => {
        const stage = await createOnlineStage(online.value, { store, judge: scripted, retry: FAST_RETRY, log: () => {} });
        assert.ok(stage.ok, stage.ok ? "" : stage.error.join("; "));
        return stage.value;
      },
    });
    try {
      await traceRequest({ query: "How many days of annual leave?", tenantId: "acme" }, async () => {
        const chunks = await traceRetrieve({ query: "annual leave", topK: 1 }, () => [{ chunkId: "leave_1", documentId: "handbook", text: "Employees have 10 days of annual leave.", score: 0.9 }]);
        const packed = await traceContext({ tokenBudget: 100 }, () => ({ text: chunks[0]!.text!, chunkIds: ["leave_1"], tokenCount: 9 }));
        const answer = await traceGenerate({ model: "test-model", prompt: packed.text }, () => ({ text: "Employees have 10 days of annual leave.", inputTokens: 20, outputTokens: 9, cost: 0.0001 }));
        return answer.text;
      });
      assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(recorder.spans())), 200);

      // The rule results become durable while the judge is still busy with the trace.
      const deadline = Date.now() + 10_000;
      while (collector.worker.counters.tracesEvaluated === 0 || scripted.calls.length === 0) {
        assert.ok(Date.now() < deadline, "the trace was neither evaluated nor handed to the judge");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(collector.worker.backlog, 0);
      assert.equal(collector.worker.assembler.openTraces, 0);
      const ruleRows = await queryRows<{ evaluator_id: string }>(collector.store.connection, "SELECT evaluator_id FROM {{database}}.evaluation_results FINAL WHERE evaluator_id = 'online.groundedness'");
      assert.equal(ruleRows.length, 1, "the rule results were written before any judging finished");
      assert.equal(await collector.waitUntilIdle(300), false, "the collector knows the judge is still busy");

      release();
      assert.ok(await collector.waitUntilIdle(10_000));
      const judged = await queryRows<{ evaluator_id: string; outcome: string }>(collector.store.connection, "SELECT evaluator_id, outcome FROM {{database}}.evaluation_results FINAL WHERE evaluator_id LIKE 'judge.%' ORDER BY evaluator_id");
      assert.ok(judged.length >= 3, `judge results stored: ${JSON.stringify(judged)}`);
      assert.ok(judged.every((row) => row.outcome === "passed"));
      assert.equal(collector.online?.parts.dispatcher?.counters.enqueued, 1);
    } finally {
      release();
      await collector.close();
      await recorder.shutdown();
      await store.cleanup();
    }
  });
});
