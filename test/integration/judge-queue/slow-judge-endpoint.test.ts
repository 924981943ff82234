/**
 * A slow judge endpoint does not hold back rule evaluation (issue 18: "a
 * 10-second call does not block the span stream"). The OpenAI-compatible judge
 * talks to a real local HTTP server whose first answer is held until the test
 * releases it — a call as long as the test wants, with no wall-clock wait and
 * no timing assertion. While that call is open, two more traces arrive and are
 * rule-evaluated and stored; only then is the call released, and the judge
 * results of all three traces follow. Assertions are on order and counts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { createOnlineStage } from "../../../collector/wiring/online/online-stage.js";
import { startEmbeddedCollector } from "../../../collector/wiring/run/embedded-collector.js";
import { OpenAiJudge } from "../../../evaluators/judge/openai-judge.js";
import { StructuredOutputMemory } from "../../../evaluators/judge/structured-output.js";
import { traceContext, traceGenerate, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { reply, startFakeChatCompletionsServer } from "../../support/fake-chat-completions-server.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf } from "../../support/recorded-spans.js";
import { queryRows, temporaryStore } from "../../support/temporary-store.js";

const FAST_RETRY = { initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 1, deadlineMs: 1_000 };

/** Polls a condition that the system under test will reach; the deadline only bounds a broken run. */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function oneTrace(question: string): Promise<void> {
  await traceRequest({ query: question, tenantId: "acme" }, async () => {
    const chunks = await traceRetrieve({ query: question, topK: 1 }, () => [{ chunkId: "leave_1", documentId: "handbook", text: "Employees have 10 days of annual leave.", score: 0.9 }]);
    const packed = await traceContext({ tokenBudget: 100 }, () => ({ text: chunks[0]!.text!, chunkIds: ["leave_1"], tokenCount: 9 }));
    const answer = await traceGenerate({ model: "test-model", prompt: packed.text }, () => ({ text: "Employees have 10 days of annual leave.", inputTokens: 20, outputTokens: 9, cost: 0.0001 }));
    return answer.text;
  });
}

test("while the judge endpoint holds one call open, later traces are rule-evaluated and stored; the judge results follow the release", async () => {
  const endpoint = await startFakeChatCompletionsServer();
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  // The first call is held (the "10-second call"); every call declines structurally, so each
  // judged metric ends in a stored grader error — what is asserted is when, not what.
  let first = true;
  endpoint.respondWith(() => {
    const declined = reply.json({ cannot_judge: true, reason: "scripted" });
    if (!first) return declined;
    first = false;
    return reply.held(released, declined);
  });
  const judge = new OpenAiJudge({ baseUrl: endpoint.baseUrl, apiKey: "", model: "slow-judge", requestTimeoutMs: 120_000, retryPolicy: FAST_RETRY, structuredOutputMemory: new StructuredOutputMemory() });

  const recorder = startSpanRecorder("support-bot");
  const store = await temporaryStore({ migrate: false });
  const config = loadSettings({ fixed: { "receiver.port": 0, "assembler.quietPeriodMs": 100, "clickhouse.dataPath": store.dataPath, "clickhouse.database": store.connection.database } });
  const online = loadSettings({ environment: { RAGSCOPE_JUDGE_ENABLED: "true", RAGSCOPE_SAMPLE_RATE: "1", RAGSCOPE_JUDGE_CONCURRENCY: "1" } });
  assert.ok(config.ok && online.ok);
  const collector = await startEmbeddedCollector(config.value, {
    online: async (store) => {
      const stage = await createOnlineStage(online.value, { store, judge, retry: FAST_RETRY, log: () => {} });
      assert.ok(stage.ok, stage.ok ? "" : stage.error.join("; "));
      return stage.value;
    },
  });
  const ruleRows = () => queryRows<{ case_result_id: string }>(collector.store.connection, "SELECT case_result_id FROM {{database}}.evaluation_results FINAL WHERE evaluator_id = 'online.groundedness'");
  const judgeRows = () => queryRows<{ case_result_id: string; outcome: string }>(collector.store.connection, "SELECT case_result_id, outcome FROM {{database}}.evaluation_results FINAL WHERE evaluator_id LIKE 'judge.%'");
  try {
    await oneTrace("How many days of annual leave? (first)");
    assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(recorder.spans())), 200);
    recorder.reset();
    await until(() => endpoint.requests.length === 1, "the judge called the endpoint for the first trace");

    // The call is open. Two more traces arrive.
    await oneTrace("How many days of annual leave? (second)");
    await oneTrace("How many days of annual leave? (third)");
    assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(recorder.spans())), 200);
    await until(() => collector.worker.counters.tracesEvaluated === 3, "all three traces rule-evaluated");
    await until(async () => (await ruleRows()).length === 3, "the rule results of all three traces stored");

    // Still the one held call: nothing judged, nothing lost, the other two wait in the judge queue.
    assert.equal(endpoint.requests.length, 1, "the judge is still in its first call");
    assert.deepEqual(await judgeRows(), []);
    assert.equal(collector.online?.parts.dispatcher?.counters.enqueued, 3);
    assert.equal(collector.worker.backlog, 0, "the span stream is not waiting on the judge");

    release();
    assert.ok(await collector.waitUntilIdle(30_000), "the judge finished after the release");
    const judged = await judgeRows();
    const ruleIds = new Set((await ruleRows()).map((row) => row.case_result_id));
    assert.deepEqual(new Set(judged.map((row) => row.case_result_id)), ruleIds, "every trace's judge results arrived");
    assert.ok(judged.every((row) => row.outcome === "error"), "a declined judgement is a stored grader error, not a pass");
  } finally {
    release();
    await collector.close();
    await recorder.shutdown();
    await endpoint.close();
    await store.cleanup();
  }
});
