/**
 * Rubric answers that contradict themselves (QA "self-contradiction") are not
 * verdicts: the top score with faults listed, or faithfulness with no claims
 * for an answer that states facts, is unparseable — one repair turn in the
 * instructions form, then a grader error — and never a pass.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JudgeOutcome } from "../../../evaluators/judge/judge.js";
import type { OpenAiJudgeOptions } from "../../../evaluators/judge/openai-judge.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from "../../support/fake-chat-completions-server.js";
import { judgeOfFakeServer } from "../../support/fake-server-judge.js";

const caseResult = buildCaseResult({ output: "Refunds are possible within 90 days.", context: "Refunds are possible within 30 days of delivery." });
const evalCase = buildCase({ input: "How long do I have to ask for a refund?", reference_answer: "Within 30 days of delivery." });

function assertUnparseable(outcome: JudgeOutcome, message: RegExp): void {
  assert.ok(outcome.kind === "grader_error" && outcome.errorType === "unparseable", `expected unparseable, got ${JSON.stringify(outcome)}`);
  assert.match(outcome.message, message);
}

describe("self-contradicting judge answers", () => {
  let server: FakeChatCompletionsServer;
  const judgeWith = (options: Partial<OpenAiJudgeOptions> = {}) => judgeOfFakeServer(server, { structuredOutput: "json_schema", ...options });
  before(async () => {
    server = await startFakeChatCompletionsServer();
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  test("answer_correctness 3 that lists an incorrect statement is a grader error, not a pass", async () => {
    server.enqueue(reply.json({ score: 3, incorrect_statements: ["the refund window is wrong"], reason: "The answer is wrong", confidence: "high" }));
    assertUnparseable(await judgeWith().judge({ metric: "answer_correctness", caseResult, evalCase }), /inconsistent: score 3 of 3/);
  });

  test("faithfulness with no claims for an answer that states one is a grader error, not 1", async () => {
    server.enqueue(reply.json({ claims: [], reason: "Every claim is unsupported; hallucinated", confidence: "high" }));
    assertUnparseable(await judgeWith().judge({ metric: "faithfulness", caseResult, evalCase }), /listed no claims, but the answer states a claim/);
  });

  test("faithfulness with no claims for an abstaining answer is still 1", async () => {
    server.enqueue(reply.json({ claims: [], reason: "the answer declines" }));
    const abstaining = buildCaseResult({ output: "I don't know; the documents do not say.", context: "Refunds are possible within 30 days of delivery." });
    const outcome = await judgeWith().judge({ metric: "faithfulness", caseResult: abstaining, evalCase });
    assert.ok(outcome.kind === "pass" && outcome.value === 1, JSON.stringify(outcome));
  });

  test("faithfulness with no claims for an answer that refuses and then states facts is a grader error, not 1", async () => {
    // A refusal phrase beside the answer's own claims does not make them go away: they are what faithfulness checks.
    for (const output of ["I'm not sure, but refunds take about 30 days and you also get a 50 dollar voucher.", "I cannot answer that, but the CEO lives at 12 Main Street in Springfield."]) {
      server.enqueue(reply.json({ claims: [], reason: "the answer declines", confidence: "high" }));
      const refusingBesideClaims = buildCaseResult({ output, context: "Refunds are possible within 7 days of delivery." });
      assertUnparseable(await judgeWith().judge({ metric: "faithfulness", caseResult: refusingBesideClaims, evalCase }), /listed no claims, but the answer states a claim/);
    }
  });

  test("faithfulness with no claims for an answer that only refuses, in words naming the documents, is 1", async () => {
    server.enqueue(reply.json({ claims: [], reason: "the answer declines" }));
    const abstaining = buildCaseResult({ output: "I'm sorry, I cannot answer that question; the documents contain no such information.", context: "Refunds are possible within 30 days of delivery." });
    const outcome = await judgeWith().judge({ metric: "faithfulness", caseResult: abstaining, evalCase });
    assert.ok(outcome.kind === "pass" && outcome.value === 1, JSON.stringify(outcome));
  });

  test("faithfulness with a claim supported only by a document label the prompt did not have is a grader error, not 1", async () => {
    // One context document (D1): a judge citing D4 invented the support.
    server.enqueue(reply.json({ claims: [{ claim: "Refunds are possible within 90 days.", supported: true, documents: ["D4"] }], reason: "supported", confidence: "high" }));
    assertUnparseable(await judgeWith().judge({ metric: "faithfulness", caseResult, evalCase }), /supported by D4, which is not among the documents \(D1\)/);
  });

  test("instructions form: a faithfulness repair turn names the invented label, and the repaired verdict counts", async () => {
    server.enqueue(
      reply.json({ claims: [{ claim: "Refunds are possible within 90 days.", supported: true, documents: ["D1", "D2"] }], reason: "supported" }),
      reply.json({ claims: [{ claim: "Refunds are possible within 90 days.", supported: false, documents: [] }], reason: "the document says 30 days" }),
    );
    const outcome = await judgeWith({ structuredOutput: "instructions" }).judge({ metric: "faithfulness", caseResult, evalCase });
    assert.ok(outcome.kind === "fail" && outcome.value === 0, JSON.stringify(outcome));
    assert.equal(server.requests.length, 2);
    assert.match((server.requests[1]?.body.messages as Array<{ content: string }>).at(-1)?.content ?? "", /supported by D2, which is not among the documents \(D1\)/);
  });

  test("instructions form: the repair turn names the contradiction; a still inconsistent answer ends unparseable", async () => {
    const contradictory = reply.json({ score: 3, irrelevant_parts: ["the whole answer"], reason: "off-topic" });
    server.enqueue(contradictory, contradictory);
    const outcome = await judgeWith({ structuredOutput: "instructions" }).judge({ metric: "answer_relevance", caseResult, evalCase });
    assertUnparseable(outcome, /after a repair turn/);
    assert.equal(server.requests.length, 2);
    assert.match((server.requests[1]?.body.messages as Array<{ content: string }>).at(-1)?.content ?? "", /irrelevant_parts "the whole answer"/);
  });

  test("instructions form: a consistent repaired answer is the verdict", async () => {
    server.enqueue(reply.json({ score: 3, missing_information: ["all of it"], reason: "r" }), reply.json({ score: 0, missing_information: ["all of it"], reason: "r" }));
    const outcome = await judgeWith({ structuredOutput: "instructions" }).judge({ metric: "context_sufficiency_judged", caseResult, evalCase });
    assert.ok(outcome.kind === "fail" && outcome.value === 0, JSON.stringify(outcome));
  });
});
