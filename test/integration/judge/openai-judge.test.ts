/**
 * The OpenAI-compatible judge against a real local HTTP server with scripted
 * answers (test/support/fake-chat-completions-server.ts): every scripted answer
 * ends in the outcome issue 6 asks for — pass/fail with a value, or a grader
 * error with its reason — never a pass on error, never NaN.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { RetryPolicy } from "../../../core/retry.js";
import type { CaseResult } from "../../../contracts/case-result.js";
import { JudgeBudget } from "../../../evaluators/judge/judge-budget.js";
import type { JudgeOutcome } from "../../../evaluators/judge/judge.js";
import { OpenAiJudge, type OpenAiJudgeOptions } from "../../../evaluators/judge/openai-judge.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from "../../support/fake-chat-completions-server.js";

const FAST_RETRIES: RetryPolicy = { initialDelayMs: 5, maxDelayMs: 10, maxAttempts: 3, deadlineMs: 10_000 };

/** The seed's faithfulness example (004 §五.1): the second statement has no support. */
function annualLeaveCase(): { caseResult: CaseResult; evalCase: ReturnType<typeof buildCase> } {
  return {
    caseResult: buildCaseResult({ output: "员工每年享有5天年假，且未使用的年假可折现。", context: "员工每年享有5天年假。" }),
    evalCase: buildCase({ input: "员工每年有几天年假？" }),
  };
}

const twoClaimsOneUnsupported = {
  claims: [
    { claim: "员工每年享有5天年假", supported: true, documents: ["D1"] },
    { claim: "未使用的年假可折现", supported: false, documents: [] },
  ],
  reason: "the second statement is not in the context",
  confidence: "high",
};

const allSupported = { claims: [{ claim: "员工每年享有5天年假", supported: true, documents: ["D1"] }], reason: "stated by D1" };

function assertGraderError(outcome: JudgeOutcome, errorType: string): void {
  assert.equal(outcome.kind, "grader_error", `expected a grader error, got ${JSON.stringify(outcome)}`);
  assert.ok(outcome.kind === "grader_error" && outcome.errorType === errorType, `expected ${errorType}, got ${JSON.stringify(outcome)}`);
  assert.equal("value" in outcome, false, "a grader error carries no value");
}

describe("OpenAiJudge against a fake OpenAI-compatible server", () => {
  let server: FakeChatCompletionsServer;
  const judgeWith = (options: Partial<OpenAiJudgeOptions> = {}) =>
    new OpenAiJudge({ baseUrl: server.baseUrl, apiKey: "test-key", model: "fake-judge", requestTimeoutMs: 2_000, retryPolicy: FAST_RETRIES, structuredOutput: "json_object", ...options });

  before(async () => {
    server = await startFakeChatCompletionsServer();
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  test("a correct answer with an unsupported claim is a fail with value supported/total and the claim listed", async () => {
    const { caseResult, evalCase } = annualLeaveCase();
    server.enqueue(reply.json(twoClaimsOneUnsupported, { promptTokens: 1000, completionTokens: 200 }));
    const judge = judgeWith({ pricing: { inputPer1kTokens: 0.5, outputPer1kTokens: 1.5 } });
    const outcome = await judge.judge({ metric: "faithfulness", caseResult, evalCase });
    assert.equal(outcome.kind, "fail");
    assert.ok(outcome.kind === "fail");
    // 1 of 2 claims supported; the default rule is ">= 0.92".
    assert.equal(outcome.value, 0.5);
    assert.deepEqual(outcome.details.unsupported_claims, ["未使用的年假可折现"]);
    assert.match(outcome.reason, /未使用的年假可折现/);
    assert.equal(outcome.promptVersion, "faithfulness@1");
    // 1000 input tokens at 0.5 per 1k + 200 output tokens at 1.5 per 1k = 0.5 + 0.3.
    assert.deepEqual(outcome.usage, { inputTokens: 1000, outputTokens: 200, cost: 0.8, calls: 1, cached: false });

    const [request] = server.requests;
    assert.ok(request);
    assert.equal(request.body.temperature, 0);
    assert.equal(request.body.model, "fake-judge");
    // A fixed json_object form; the schema rides along for servers that read it (llama-cpp-python).
    const format = request.body.response_format as { type: string; schema: { properties: Record<string, unknown> } };
    assert.equal(format.type, "json_object");
    assert.ok("claims" in format.schema.properties);
    assert.match(request.user, /<<<DOCUMENT id="D1">>>\n员工每年享有5天年假。\n<<<END DOCUMENT>>>/);
    assert.match(request.user, /<<<ANSWER>>>\n员工每年享有5天年假，且未使用的年假可折现。\n<<<END ANSWER>>>/);
  });

  test("a correct answer with every claim supported is a pass with value 1", async () => {
    const { caseResult, evalCase } = annualLeaveCase();
    server.enqueue(reply.json(allSupported));
    const outcome = await judgeWith().judge({ metric: "faithfulness", caseResult, evalCase });
    assert.equal(outcome.kind, "pass");
    assert.ok(outcome.kind === "pass" && outcome.value === 1);
    assert.deepEqual(outcome.details.evidence_ids, ["context"]);
  });

  test("malformed JSON on every attempt is grader_error unparseable after the retries", async () => {
    const { caseResult, evalCase } = annualLeaveCase();
    server.enqueue(reply.text('{"claims": [ {"claim": "x", '), reply.text("Sure! Here is my evaluation: mostly faithful."), reply.text("{not json}"));
    const outcome = await judgeWith().judge({ metric: "faithfulness", caseResult, evalCase });
    assertGraderError(outcome, "unparseable");
    assert.equal(server.requests.length, 3);
    assert.equal(outcome.usage.calls, 3);
    assert.match(outcome.kind === "grader_error" ? outcome.message : "", /not JSON.*after 3 attempts/);
  });

  test("JSON that does not match the rubric's schema is unparseable too; a valid retry then passes", async () => {
    const { caseResult, evalCase } = annualLeaveCase();
    server.enqueue(reply.json({ claims: [{ claim: "x", supported: "yes" }], reason: "r" }), reply.json(allSupported));
    const outcome = await judgeWith().judge({ metric: "faithfulness", caseResult, evalCase });
    assert.equal(outcome.kind, "pass");
    assert.equal(server.requests.length, 2);
    assert.equal(outcome.usage.calls, 2);
    // Both attempts' tokens are counted.
    assert.equal(outcome.usage.inputTokens, 200);
  });

  test("a refusal (message.refusal) is grader_error refusal", async () => {
    const { caseResult, evalCase } = annualLeaveCase();
    server.enqueue(reply.refusal("I can't help with that."), reply.refusal("I can't help with that."), reply.refusal("I can't help with that."));
    const outcome = await judgeWith().judge({ metric: "faithfulness", caseResult, evalCase });
    assertGraderError(outcome, "refusal");
    assert.match(outcome.kind === "grader_error" ? outcome.message : "", /I can't help with that/);
  });

  test("a structured refusal and a content-filter stop are refusals as well", async () => {
    const { caseResult, evalCase } = annualLeaveCase();
    server.enqueue(reply.json({ cannot_judge: true, reason: "the documents are unreadable" }), reply.text("", undefined, "content_filter"));
    const outcome = await judgeWith({ retryPolicy: { ...FAST_RETRIES, maxAttempts: 2 } }).judge({ metric: "faithfulness", caseResult, evalCase });
    assertGraderError(outcome, "refusal");
    assert.equal(server.requests.length, 2);
  });

  test("an endpoint that never answers within the client timeout is grader_error timeout", async () => {
    const { caseResult, evalCase } = annualLeaveCase();
    server.enqueue(reply.hang(), reply.hang());
    const started = Date.now();
    const outcome = await judgeWith({ requestTimeoutMs: 200, retryPolicy: { ...FAST_RETRIES, maxAttempts: 2 } }).judge({ metric: "faithfulness", caseResult, evalCase });
    assertGraderError(outcome, "timeout");
    assert.equal(server.requests.length, 2);
    assert.ok(Date.now() - started >= 400, "each attempt waited for its timeout");
  });

  test("429 with Retry-After is retried after the advertised delay, then succeeds", async () => {
    const { caseResult, evalCase } = annualLeaveCase();
    server.enqueue(reply.rateLimited(1), reply.json(allSupported));
    const outcome = await judgeWith().judge({ metric: "faithfulness", caseResult, evalCase });
    assert.equal(outcome.kind, "pass");
    assert.equal(server.requests.length, 2);
    const [first, second] = server.requests;
    assert.ok(first && second);
    // Retry-After: 1 → at least 1000 ms between the attempts (our backoff alone would be ≤ 10 ms).
    assert.ok(second.receivedAt - first.receivedAt >= 990, `waited ${second.receivedAt - first.receivedAt} ms`);
    assert.equal(outcome.usage.calls, 2);
  });

  test("429 on every attempt is grader_error rate_limited", async () => {
    const { caseResult, evalCase } = annualLeaveCase();
    server.enqueue(reply.status(429, { retryAfterMs: "20" }), reply.status(429, { retryAfterMs: "20" }));
    const outcome = await judgeWith({ retryPolicy: { ...FAST_RETRIES, maxAttempts: 2 } }).judge({ metric: "faithfulness", caseResult, evalCase });
    assertGraderError(outcome, "rate_limited");
  });

  test("500 is retried; 400 is not", async () => {
    const { caseResult, evalCase } = annualLeaveCase();
    server.enqueue(reply.status(500), reply.json(allSupported));
    assert.equal((await judgeWith().judge({ metric: "faithfulness", caseResult, evalCase })).kind, "pass");
    assert.equal(server.requests.length, 2);

    server.requests.length = 0;
    server.enqueue(reply.status(400));
    const rejected = await judgeWith().judge({ metric: "faithfulness", caseResult, evalCase });
    assertGraderError(rejected, "http_error");
    assert.equal(server.requests.length, 1, "a 400 is not retried");
  });

  test("a refusal in prose is a grader error too (unparseable: the text is not interpreted)", async () => {
    const { caseResult, evalCase } = annualLeaveCase();
    server.enqueue(reply.text("I'm sorry, but I can't evaluate this content."), reply.text("I'm sorry, but I can't evaluate this content."));
    const outcome = await judgeWith({ retryPolicy: { ...FAST_RETRIES, maxAttempts: 2 } }).judge({ metric: "faithfulness", caseResult, evalCase });
    assertGraderError(outcome, "unparseable");
  });

  test("an exhausted spending limit answers budget_exhausted without calling the endpoint", async () => {
    const { caseResult, evalCase } = annualLeaveCase();
    // One call: 100 input tokens × 1 per 1k + 20 output tokens × 1 per 1k = 0.12; the limit is 0.1 per hour.
    const budget = new JudgeBudget({ limitPerHour: 0.1 });
    const judge = judgeWith({ budget, pricing: { inputPer1kTokens: 1, outputPer1kTokens: 1 } });
    server.enqueue(reply.json(allSupported));
    const first = await judge.judge({ metric: "faithfulness", caseResult, evalCase });
    assert.equal(first.kind, "pass");
    assert.equal(budget.exhausted, true);
    assert.match(budget.reason ?? "", /spending limit reached/);

    const second = await judge.judge({ metric: "faithfulness", caseResult, evalCase });
    assertGraderError(second, "budget_exhausted");
    assert.equal(second.usage.calls, 0);
    assert.equal(server.requests.length, 1, "no HTTP call once the budget is exhausted");
  });

  test("response_format json_schema sends the rubric's JSON Schema", async () => {
    const { caseResult, evalCase } = annualLeaveCase();
    server.enqueue(reply.json(allSupported));
    await judgeWith({ structuredOutput: "json_schema" }).judge({ metric: "faithfulness", caseResult, evalCase });
    const format = server.requests[0]?.body.response_format as { type: string; json_schema: { name: string; schema: { properties: Record<string, unknown> } } };
    assert.equal(format.type, "json_schema");
    assert.equal(format.json_schema.name, "faithfulness");
    assert.ok("claims" in format.json_schema.schema.properties);
  });

  test("an aborted call is a grader error, not retried", async () => {
    const { caseResult, evalCase } = annualLeaveCase();
    server.enqueue(reply.hang());
    const controller = new AbortController();
    const pending = judgeWith({ requestTimeoutMs: 5_000 }).judge({ metric: "faithfulness", caseResult, evalCase }, controller.signal);
    setTimeout(() => controller.abort(), 50);
    const outcome = await pending;
    assertGraderError(outcome, "timeout");
    assert.equal(server.requests.length, 1);
  });
});
