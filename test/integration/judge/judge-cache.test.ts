/**
 * A replayed trace does not call the judge again and does not double-count
 * (issue 6 acceptance): the cache answers the second time, marked cached, at
 * zero cost, and the usage ledger counts the cost once.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { CachedJudge } from "../../../evaluators/judge/cached-judge.js";
import { LruJudgeCache } from "../../../evaluators/judge/lru-judge-cache.js";
import { OpenAiJudge } from "../../../evaluators/judge/openai-judge.js";
import { JudgeUsageLedger, withUsageLedger } from "../../../evaluators/judge/judge-usage-ledger.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from "../../support/fake-chat-completions-server.js";

describe("judge cache over a fake OpenAI-compatible server", () => {
  let server: FakeChatCompletionsServer;
  before(async () => {
    server = await startFakeChatCompletionsServer();
  });
  after(async () => {
    await server.close();
  });

  test("the same request twice makes one HTTP call; the second outcome is cached with zero cost", async () => {
    const inner = new OpenAiJudge({ baseUrl: server.baseUrl, apiKey: "k", model: "fake-judge", pricing: { inputPer1kTokens: 1, outputPer1kTokens: 2 } });
    const ledger = new JudgeUsageLedger();
    const judge = withUsageLedger(new CachedJudge(inner, new LruJudgeCache()), ledger);
    server.respondWith(() => reply.json({ score: 3, irrelevant_parts: [], reason: "answers it" }, { promptTokens: 500, completionTokens: 100 }));

    const evalCase = buildCase({ input: "退货期限是多少天？" });
    const original = buildCaseResult({ output: "退货期限是15天。" });
    // The replay is another delivery of the same trace: same inputs, another result id.
    const replayed = { ...original, case_result_id: "cr_replayed", started_at: "2026-07-09T00:00:00.000Z" };

    const first = await judge.judge({ metric: "answer_relevance", caseResult: original, evalCase });
    const second = await judge.judge({ metric: "answer_relevance", caseResult: replayed, evalCase });
    assert.equal(server.requests.length, 1);
    assert.equal(first.kind, "pass");
    assert.equal(second.kind, "pass");
    assert.ok(first.kind === "pass" && second.kind === "pass");
    assert.equal(second.value, first.value);
    assert.equal(second.reason, first.reason);
    // 500 × 1/1k + 100 × 2/1k = 0.7.
    assert.equal(first.usage.cost, 0.7);
    assert.equal(first.usage.cached, false);
    assert.deepEqual(second.usage, { inputTokens: 0, outputTokens: 0, cost: 0, calls: 0, cached: true });

    const [totals] = ledger.list();
    assert.ok(totals);
    assert.equal(totals.outcomes, 2);
    assert.equal(totals.cacheHits, 1);
    assert.equal(totals.calls, 1);
    assert.equal(totals.cost, 0.7, "the replay is not counted twice");

    // A different answer is a different input: a new call.
    await judge.judge({ metric: "answer_relevance", caseResult: buildCaseResult({ output: "退货期限是7天。" }), evalCase });
    assert.equal(server.requests.length, 2);
  });

  test("grader errors are not cached: the next attempt calls the endpoint again", async () => {
    server.requests.length = 0;
    const inner = new OpenAiJudge({ baseUrl: server.baseUrl, apiKey: "k", model: "fake-judge-2", retryPolicy: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 1, deadlineMs: 1000 } });
    const judge = new CachedJudge(inner, new LruJudgeCache());
    const evalCase = buildCase({ input: "q?" });
    const caseResult = buildCaseResult({ output: "an answer" });
    server.enqueue(reply.status(503));
    assert.equal((await judge.judge({ metric: "answer_relevance", caseResult, evalCase })).kind, "grader_error");
    assert.equal((await judge.judge({ metric: "answer_relevance", caseResult, evalCase })).kind, "pass");
    assert.equal(server.requests.length, 2);
    assert.equal(judge.hits, 0);
  });

  test("the same inputs judged at once make one HTTP call: the others wait for its verdict, cached at zero cost", async () => {
    server.requests.length = 0;
    const inner = new OpenAiJudge({ baseUrl: server.baseUrl, apiKey: "k", model: "fake-judge-3", pricing: { inputPer1kTokens: 1, outputPer1kTokens: 2 } });
    const ledger = new JudgeUsageLedger();
    const judge = withUsageLedger(new CachedJudge(inner, new LruJudgeCache()), ledger);
    server.respondWith(() => reply.json({ score: 3, irrelevant_parts: [], reason: "answers it" }, { promptTokens: 500, completionTokens: 100 }));
    const evalCase = buildCase({ input: "How fast is a refund?" });
    const caseResult = buildCaseResult({ output: "Within 7 days." });
    // Three deliveries of one trace (eval --repeat, a redelivery) before the first verdict is back: each was billed.
    const outcomes = await Promise.all([0, 1, 2].map((index) => judge.judge({ metric: "answer_relevance", caseResult: { ...caseResult, case_result_id: `cr_${index}` }, evalCase })));
    assert.equal(server.requests.length, 1);
    assert.deepEqual(outcomes.map((outcome) => [outcome.kind, outcome.usage.cached]), [["pass", false], ["pass", true], ["pass", true]]);
    const [totals] = ledger.list();
    assert.equal(totals!.calls, 1);
    assert.equal(totals!.cost, 0.7, "paid once");
    // Other inputs at the same moment are judged on their own.
    server.requests.length = 0;
    await Promise.all(["Within 7 days.", "Within 30 days."].map((output) => judge.judge({ metric: "answer_relevance", caseResult: buildCaseResult({ output: `${output} ` }), evalCase })));
    assert.equal(server.requests.length, 2);
  });

  test("after a grader error of the call it waited for, a waiting request calls the judge itself", async () => {
    server.requests.length = 0;
    const inner = new OpenAiJudge({ baseUrl: server.baseUrl, apiKey: "k", model: "fake-judge-4", retryPolicy: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 1, deadlineMs: 1000 } });
    const judge = new CachedJudge(inner, new LruJudgeCache());
    server.enqueue(reply.status(503));
    const evalCase = buildCase({ input: "q?" });
    const caseResult = buildCaseResult({ output: "an answer" });
    const [first, second] = await Promise.all([judge.judge({ metric: "answer_relevance", caseResult, evalCase }), judge.judge({ metric: "answer_relevance", caseResult, evalCase })]);
    assert.deepEqual([first.kind, second.kind], ["grader_error", "pass"]);
    assert.equal(server.requests.length, 2);
  });
});
