/**
 * The judge's spending limit is a hard ceiling under concurrency: judge calls
 * made at once against a local OpenAI-compatible server (scripted answers,
 * held until the test releases them, so every call is in flight together)
 * never spend past the limit. Each call reserves its worst case before it is
 * sent; the ones that would pass the limit are refused (`budget_exhausted`,
 * no HTTP request). Before, every concurrent call passed the check while none
 * had answered: a limit of 0.05 ended at 0.098.
 *
 * Input tokens are free here, so a call's worst case is what the test
 * configures — max output tokens × output price — and every expected amount
 * is computed from the scripted usage and prices below, not by the judge's code.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { JudgeBudget } from "../../../evaluators/judge/judge-budget.js";
import { JudgeUsageLedger } from "../../../evaluators/judge/judge-usage-ledger.js";
import type { JudgeOutcome } from "../../../evaluators/judge/judge.js";
import { OpenAiJudge, type OpenAiJudgeOptions } from "../../../evaluators/judge/openai-judge.js";
import { StructuredOutputMemory } from "../../../evaluators/judge/structured-output.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer, type ScriptedReply } from "../../support/fake-chat-completions-server.js";

const LIMIT = 0.05;
const OUTPUT_PRICE_PER_1K = 0.01;
const MAX_OUTPUT_TOKENS = 1000;
/** The most one call can cost: 1,000 output tokens × 0.01 per 1k (input is free). */
const WORST_CASE = (MAX_OUTPUT_TOKENS / 1000) * OUTPUT_PRICE_PER_1K;
const supported = { claims: [{ claim: "员工每年享有5天年假", supported: true, documents: ["D1"] }], reason: "stated by D1" };

const request = {
  metric: "faithfulness" as const,
  caseResult: buildCaseResult({ output: "员工每年享有5天年假。", context: "员工每年享有5天年假。" }),
  evalCase: buildCase({ input: "员工每年有几天年假？" }),
};

/** A fixed clock: the hour's window never moves during a test. */
const now = () => Date.parse("2026-07-08T10:00:00.000Z");

/** Waits (bounded) until `condition` holds; what is asserted afterwards never depends on how long it took. */
async function until(condition: () => boolean, description: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("judge spending limit under concurrent calls", () => {
  let server: FakeChatCompletionsServer;
  let release: () => void;
  let released: Promise<void>;

  const judgeWith = (budget: JudgeBudget, options: Partial<OpenAiJudgeOptions> = {}) =>
    new OpenAiJudge({
      baseUrl: server.baseUrl,
      apiKey: "k",
      model: "fake-judge",
      structuredOutput: "json_object",
      structuredOutputMemory: new StructuredOutputMemory(),
      retryPolicy: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 1, deadlineMs: 10_000 },
      pricing: { inputPer1kTokens: 0, outputPer1kTokens: OUTPUT_PRICE_PER_1K },
      maxOutputTokens: MAX_OUTPUT_TOKENS,
      budget,
      ...options,
    });

  /** Starts `count` calls at once; resolves when each was either sent (and is held by the server) or refused. */
  async function startTogether(judge: OpenAiJudge, count: number, sentBefore = 0) {
    const outcomes: (JudgeOutcome | null)[] = new Array(count).fill(null);
    const calls = Array.from({ length: count }, (_, index) => judge.judge(request).then((outcome) => (outcomes[index] = outcome)));
    await until(() => server.requests.length - sentBefore + outcomes.filter((outcome) => outcome !== null).length === count, `${count} calls to be sent or refused`);
    return { calls, outcomes };
  }

  before(async () => {
    server = await startFakeChatCompletionsServer();
  });
  after(async () => {
    release();
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
    released = new Promise<void>((resolve) => (release = resolve));
  });

  test("ten calls at once with room for five: five are sent, five refused, and the spending ends at the limit", async () => {
    const budget = new JudgeBudget({ limitPerHour: LIMIT, now });
    // Every answer uses the whole max output: each call costs its worst case.
    server.respondWith(() => reply.held(released, reply.json(supported, { promptTokens: 800, completionTokens: MAX_OUTPUT_TOKENS })));
    const { calls } = await startTogether(judgeWith(budget), 10);
    release();
    const outcomes = await Promise.all(calls);

    const refused = outcomes.filter((outcome) => outcome.kind === "grader_error" && outcome.errorType === "budget_exhausted");
    const spent = outcomes.reduce((total, outcome) => total + outcome.usage.cost!, 0);
    assert.equal(server.requests.length, 5, "0.05 / 0.01: room for five calls in flight");
    assert.equal(outcomes.filter((outcome) => outcome.kind === "pass").length, 5);
    assert.equal(refused.length, 5);
    assert.ok(refused.every((outcome) => outcome.usage.calls === 0), "a refused call sends nothing");
    // Five answers of 1,000 output tokens at 0.01 per 1k.
    assert.equal(spent, 5 * 0.01);
    assert.ok(spent <= LIMIT, `spent ${spent}, limit ${LIMIT}`);
    assert.equal(budget.spentInLastHour(), spent);
    assert.equal(budget.reserved, 0, "every reservation was settled");
  });

  test("answers settle to their real cost: what they did not use admits the calls refused before", async () => {
    const budget = new JudgeBudget({ limitPerHour: 0.02, now });
    // 250 of the 1,000 output tokens: 0.0025 each, a quarter of the 0.01 reserved.
    server.respondWith(() => reply.held(released, reply.json(supported, { promptTokens: 800, completionTokens: 250 })));
    const judge = judgeWith(budget);
    const first = await startTogether(judge, 3);
    assert.equal(server.requests.length, 2, "0.02 holds two worst cases of 0.01");
    release();
    const firstOutcomes = await Promise.all(first.calls);
    assert.deepEqual(firstOutcomes.map((outcome) => (outcome.kind === "grader_error" ? outcome.errorType : outcome.kind)).sort(), ["budget_exhausted", "pass", "pass"]);
    assert.equal(budget.spentInLastHour(), 2 * 0.0025);

    // 0.005 spent, 0.015 free: one more worst case fits, the second would make 0.025.
    released = new Promise<void>((resolve) => (release = resolve));
    const second = await startTogether(judge, 2, 2);
    release();
    const secondOutcomes = await Promise.all(second.calls);
    assert.equal(server.requests.length, 3);
    assert.deepEqual(secondOutcomes.map((outcome) => (outcome.kind === "grader_error" ? outcome.errorType : outcome.kind)).sort(), ["budget_exhausted", "pass"]);
    assert.equal(budget.spentInLastHour(), 3 * 0.0025);
    assert.ok(budget.spentInLastHour() <= 0.02);
  });

  test("a call that fails releases its reservation: the limit it held admits the next call", async () => {
    const budget = new JudgeBudget({ limitPerHour: WORST_CASE, now });
    const answers: ScriptedReply[] = [reply.held(released, reply.status(400)), reply.json(supported, { promptTokens: 800, completionTokens: 400 })];
    server.respondWith(() => answers.shift() ?? reply.status(500));
    const judge = judgeWith(budget);
    const failing = judge.judge(request);
    await until(() => server.requests.length === 1, "the first call to be sent");
    const meanwhile = await judge.judge(request);
    assert.ok(meanwhile.kind === "grader_error" && meanwhile.errorType === "budget_exhausted", "the whole limit is held by the call in flight");
    release();
    const failed = await failing;
    assert.ok(failed.kind === "grader_error" && failed.errorType === "http_error");
    assert.equal(budget.reserved, 0);
    assert.equal(budget.spentInLastHour(), 0, "a call that failed without usage spent nothing");

    const next = await judge.judge(request);
    assert.equal(next.kind, "pass");
    assert.equal(server.requests.length, 2);
    // 400 output tokens at 0.01 per 1k.
    assert.equal(budget.spentInLastHour(), (400 / 1000) * 0.01);
  });

  test("a call that timed out may still be billed: its worst case stays spent, its cost is not known, and the limit holds", async () => {
    const budget = new JudgeBudget({ limitPerHour: WORST_CASE, now });
    server.respondWith(() => reply.hang());
    const judge = judgeWith(budget, { requestTimeoutMs: 200 });
    const timedOut = await judge.judge(request);
    assert.ok(timedOut.kind === "grader_error" && timedOut.errorType === "timeout", JSON.stringify(timedOut));
    assert.equal(timedOut.usage.cost, null, "what the provider billed for the unanswered request is not known");
    assert.equal(timedOut.usage.calls, 1);
    assert.equal(budget.spentInLastHour(), WORST_CASE);
    assert.equal(budget.reserved, 0);

    const next = await judge.judge(request);
    assert.ok(next.kind === "grader_error" && next.errorType === "budget_exhausted", JSON.stringify(next));
    assert.equal(server.requests.length, 1, "no request past the ceiling");
  });

  test("a timed-out attempt and a retry that answered: the total is not known, the spending counter still counts the retry's cost", async () => {
    const budget = new JudgeBudget({ limitPerHour: 1, now });
    const answers: ScriptedReply[] = [reply.hang(), reply.json(supported, { promptTokens: 800, completionTokens: 500 })];
    server.respondWith(() => answers.shift() ?? reply.status(500));
    const outcome = await judgeWith(budget, { requestTimeoutMs: 200, retryPolicy: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 2, deadlineMs: 10_000 } }).judge(request);
    assert.equal(outcome.kind, "pass", JSON.stringify(outcome));
    assert.equal(outcome.usage.cost, null);
    // 500 output tokens at 0.01 per 1k.
    assert.equal(outcome.usage.knownCost, 0.005);
    const ledger = new JudgeUsageLedger();
    ledger.record(outcome);
    assert.equal(ledger.overall().cost, 0.005, "ragscope_judge_cost_usd_total counts what is known to have been spent");
    // The limit keeps the timed-out call's worst case (0.01) and the answer's cost.
    assert.equal(budget.spentInLastHour(), WORST_CASE + 0.005);
  });

  test("the prompt counts in the worst case: a call whose prompt alone could pass the limit is never sent", async () => {
    // Priced input, one output token: the faithfulness prompt (a rubric of well over a thousand characters) at 1 per 1k tokens costs far more than 0.01.
    const budget = new JudgeBudget({ limitPerHour: 0.01, now });
    server.respondWith(() => reply.json(supported, { promptTokens: 800, completionTokens: 1 }));
    const outcome = await judgeWith(budget, { pricing: { inputPer1kTokens: 1, outputPer1kTokens: 0 }, maxOutputTokens: 1 }).judge(request);
    assert.ok(outcome.kind === "grader_error" && outcome.errorType === "budget_exhausted", JSON.stringify(outcome));
    assert.equal(server.requests.length, 0);
    assert.equal(budget.exhausted, true, "the sampler is told to stop");
    assert.match(budget.reason ?? "", /raise the limit to resume/);
  });
});
