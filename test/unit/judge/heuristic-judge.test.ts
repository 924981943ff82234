/**
 * The deterministic heuristic judge of the embedded default: no model, no cost,
 * values marked heuristic.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { HeuristicJudge } from "../../../evaluators/judge/heuristic-judge.js";
import { splitClaims } from "../../../evaluators/text/answer-sentences.js";
import type { JudgeMetric, JudgeOutcome } from "../../../evaluators/judge/judge.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";

const judge = new HeuristicJudge();

async function judged(metric: JudgeMetric, caseResult = buildCaseResult(), evalCase = buildCase()): Promise<Extract<JudgeOutcome, { kind: "pass" | "fail" }>> {
  const outcome = await judge.judge({ metric, caseResult, evalCase });
  assert.notEqual(outcome.kind, "grader_error");
  if (outcome.kind === "grader_error") throw new Error("unreachable");
  assert.equal(outcome.details.semantics, "heuristic");
  assert.deepEqual(outcome.usage, { inputTokens: 0, outputTokens: 0, cost: 0, calls: 0, cached: false });
  return outcome;
}

describe("heuristic claims", () => {
  test("sentences (the online split) and added clauses, Chinese and English; decimals kept whole; abstentions dropped", () => {
    assert.deepEqual(splitClaims("员工每年享有5天年假，且未使用的年假可折现。"), ["员工每年享有5天年假", "且未使用的年假可折现"]);
    assert.deepEqual(splitClaims("Refunds are possible within 15 days. Shipping is free, and returns cost 3.5 EUR."), [
      "Refunds are possible within 15 days",
      "Shipping is free",
      "and returns cost 3.5 EUR",
    ]);
    assert.deepEqual(splitClaims("根据规定，员工每年享有5天年假。抱歉，资料中没有关于折现的信息。"), ["根据规定，员工每年享有5天年假"]);
  });
});

describe("HeuristicJudge", () => {
  test("faithfulness on the seed's example (004 §五.1): one of two claims supported, the invented one listed", async () => {
    const outcome = await judged("faithfulness", buildCaseResult({ output: "员工每年享有5天年假，且未使用的年假可折现。", context: "员工每年享有5天年假。" }));
    assert.equal(outcome.kind, "fail");
    assert.equal(outcome.value, 0.5);
    assert.deepEqual(outcome.details.unsupported_claims, ["且未使用的年假可折现"]);
    assert.match(outcome.reason, /未使用的年假可折现/);
  });

  test("faithfulness: a changed number is not supported even when the words match", async () => {
    const outcome = await judged("faithfulness", buildCaseResult({ output: "员工每年享有7天年假。", context: "员工每年享有5天年假。" }));
    assert.equal(outcome.value, 0);
  });

  test("faithfulness: a supported answer passes; an abstention makes no claim", async () => {
    assert.equal((await judged("faithfulness", buildCaseResult({ output: "Refunds are possible within 15 days.", context: "Refunds are possible within 15 days of delivery." }))).kind, "pass");
    const abstention = await judged("faithfulness", buildCaseResult({ output: "抱歉，资料中没有相关信息。", context: "员工每年享有5天年假。" }));
    assert.equal(abstention.value, 1);
    // The commonest model refusal was read as an unsupported claim (0), which put a correct refusal up for review.
    const lacking = await judged("faithfulness", buildCaseResult({ output: "Sorry, I don't have enough information to answer that.", context: "Refunds are possible within 15 days." }));
    assert.deepEqual([lacking.kind, lacking.value], ["pass", 1]);
  });

  test("citation support: a cited chunk counts when it supports a claim of the answer", async () => {
    const outcome = await judged(
      "citation_support",
      buildCaseResult({
        output: "Refunds are possible within 15 days.",
        retrieved: [
          { chunk_id: "refund_15", text: "Refunds are possible within 15 days of delivery." },
          { chunk_id: "shipping_1", text: "Shipping is free above 50 EUR." },
        ],
        citations: ["refund_15", "shipping_1"],
      }),
    );
    assert.equal(outcome.value, 0.5);
    assert.deepEqual(outcome.details.unsupported_citations, ["shipping_1"]);
  });

  test("completeness uses key-point coverage; correctness is 0 on a contradicted number", async () => {
    const evalCase = buildCase({ key_points: ["15天内可以退货", "运费由买家承担"], reference_answer: "15天内可以退货，运费由买家承担。" });
    const completeness = await judged("completeness_judged", buildCaseResult({ output: "15天内可以退货。" }), evalCase);
    assert.equal(completeness.value, 0.5);
    assert.deepEqual(completeness.details.missing_points, ["运费由买家承担"]);
    const correctness = await judged("answer_correctness", buildCaseResult({ output: "7天内可以退货，运费由买家承担。" }), evalCase);
    assert.equal(correctness.value, 0);
    assert.match(correctness.reason, /contradicts the reference: 7天 instead of 15天/);
  });

  test("correctness against several reference answers: each scored on its own, the best kept", async () => {
    const evalCase = buildCase({ reference_answer: ["Paris", "The capital of France is the city of Paris"] });
    // Against "Paris" alone the answer is exact (F1 1); against both references as one text its recall would be a fraction.
    const exact = await judged("answer_correctness", buildCaseResult({ output: "Paris" }), evalCase);
    assert.equal(exact.value, 1);
    assert.equal(exact.details.token_f1, 1);
    assert.match(exact.reason, /best of 2 reference answers: number 1/);
    // A number that contradicts one reference does not zero an answer that matches another.
    const members = await judged("answer_correctness", buildCaseResult({ output: "15 days" }), buildCase({ reference_answer: ["7 days for members", "15 days"] }));
    assert.equal(members.value, 1);
    assert.deepEqual(members.details.incorrect_statements, []);
  });

  test("context precision: documents sharing the question's content words", async () => {
    const caseResult = buildCaseResult({
      output: "x",
      retrieved: [
        { chunk_id: "refund", text: "Refund requests are accepted within 15 days." },
        { chunk_id: "careers", text: "We are hiring engineers." },
      ],
      contextChunkIds: ["refund", "careers"],
    });
    const outcome = await judged("context_precision_judged", caseResult, buildCase({ input: "How many days for a refund request?" }));
    assert.equal(outcome.value, 0.5);
    assert.deepEqual(outcome.details.relevant_ids, ["refund"]);
  });

  test("a metric whose inputs are missing is a caller bug", async () => {
    await assert.rejects(judge.judge({ metric: "answer_correctness", caseResult: buildCaseResult({ output: "a" }), evalCase: buildCase() }), /does not apply/);
  });
});
