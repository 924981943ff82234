/**
 * runJudgeEvaluations against the fake endpoint: one Evaluation Result per
 * applicable metric, deterministic ids, judge usage kept in its own metric
 * names, grader errors as `error` with a null value, never a pass.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { evaluationResult } from "../../../contracts/evaluation-result.js";
import { evaluationResultIdFor } from "../../../contracts/ids.js";
import { applicableJudgeMetrics, runJudgeEvaluations } from "../../../evaluators/judge/judge-evaluations.js";
import { OpenAiJudge } from "../../../evaluators/judge/openai-judge.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer, type ScriptedReply } from "../../support/fake-chat-completions-server.js";

const answers: Record<string, ScriptedReply> = {
  faithfulness: reply.json({ claims: [{ claim: "Refunds within 15 days", supported: true, documents: ["D1"] }], reason: "stated in D1", confidence: "high" }),
  answer_relevance: reply.json({ score: 3, reason: "direct answer" }),
  context_precision_judged: reply.json({ documents: [{ id: "D1", relevant: true }, { id: "D2", relevant: false }], reason: "D2 is about shipping" }),
  context_sufficiency_judged: reply.json({ score: 2, missing_information: ["who pays return shipping"], reason: "mostly enough" }),
  completeness_judged: reply.json({ key_points: [{ id: "K1", covered: true }, { id: "K2", covered: false }], reason: "one missing" }),
  citation_support: reply.json({ citations: [{ id: "C1", statement: "Refunds within 15 days", supported: true }], reason: "ok" }),
  // The correctness judge keeps answering prose: a grader error.
  answer_correctness: reply.text("The answer looks right to me."),
};

describe("runJudgeEvaluations with the OpenAI-compatible judge", () => {
  let server: FakeChatCompletionsServer;
  before(async () => {
    server = await startFakeChatCompletionsServer();
    server.respondWith((request) => {
      const metric = /^METRIC: (\w+)/m.exec(request.system)?.[1] ?? "";
      return answers[metric] ?? reply.status(500);
    });
  });
  after(async () => {
    await server.close();
  });

  const caseResult = buildCaseResult({
    output: "You can get a refund within 15 days of delivery.",
    retrieved: [
      { chunk_id: "refund_15", text: "Refunds are possible within 15 days of delivery." },
      { chunk_id: "shipping_1", text: "Shipping is free above 50 EUR." },
    ],
    contextChunkIds: ["refund_15", "shipping_1"],
    citations: ["refund_15"],
  });
  const evalCase = buildCase({
    input: "How long do I have to ask for a refund?",
    reference_answer: "Within 15 days of delivery; the customer pays return shipping.",
    key_points: ["15 days from delivery", "customer pays return shipping"],
  });

  test("one result per applicable metric, outcomes mapped, errors never pass", async () => {
    const judge = new OpenAiJudge({ baseUrl: server.baseUrl, apiKey: "k", model: "fake-judge", retryPolicy: { initialDelayMs: 1, maxDelayMs: 2, maxAttempts: 2, deadlineMs: 2000 } });
    assert.deepEqual(applicableJudgeMetrics(caseResult, evalCase), [
      "faithfulness",
      "answer_relevance",
      "context_precision_judged",
      "context_sufficiency_judged",
      "completeness_judged",
      "citation_support",
      "answer_correctness",
    ]);
    const results = await runJudgeEvaluations(judge, caseResult, evalCase, "2026-07-08T10:00:00.000Z");
    assert.equal(results.length, 7);
    for (const result of results) evaluationResult.parse(result);
    const byEvaluator = new Map(results.map((result) => [result.evaluator_id, result]));

    const faithfulness = byEvaluator.get("judge.faithfulness");
    assert.ok(faithfulness);
    assert.equal(faithfulness.outcome, "passed");
    assert.equal(faithfulness.metric_values.faithfulness, 1);
    assert.deepEqual(faithfulness.confidence, { value: "high", semantics: "judge_self_report" });
    assert.deepEqual(faithfulness.evidence_refs, ["chunk://refund_15"]);
    assert.equal(faithfulness.evaluator_version, "faithfulness@1+openai:fake-judge");
    assert.equal(faithfulness.evaluation_result_id, evaluationResultIdFor(caseResult.case_result_id, "judge.faithfulness", "faithfulness@1+openai:fake-judge"));
    // The judge's usage, under its own names: 100 input and 20 output tokens per call (fake server default); no
    // pricing given, so the cost is not known: null, not 0.
    assert.equal(faithfulness.metric_values.judge_input_tokens, 100);
    assert.equal(faithfulness.metric_values.judge_output_tokens, 20);
    assert.equal(faithfulness.metric_values.judge_cost, null);

    // 1 of 2 documents relevant = 0.5, rule ">= 0.5": passed.
    assert.equal(byEvaluator.get("judge.context_precision_judged")?.metric_values.context_precision_judged, 0.5);
    assert.equal(byEvaluator.get("judge.context_precision_judged")?.outcome, "passed");
    // 2 of 3 = 0.667 ≥ 0.66: passed.
    assert.equal(byEvaluator.get("judge.context_sufficiency_judged")?.outcome, "passed");
    // 1 of 2 key points = 0.5 < 0.82: failed, the missing point named.
    const completeness = byEvaluator.get("judge.completeness_judged");
    assert.equal(completeness?.outcome, "failed");
    assert.match(completeness?.reason ?? "", /customer pays return shipping/);

    const correctness = byEvaluator.get("judge.answer_correctness");
    assert.ok(correctness);
    assert.equal(correctness.outcome, "error");
    assert.equal(correctness.error_type, "evaluator_error");
    assert.equal(correctness.metric_values.answer_correctness, null);
    assert.equal(correctness.review_required, true);
    assert.match(correctness.reason, /grader error \(unparseable\)/);
    assert.equal(correctness.metric_values.judge_input_tokens, 200, "both failed attempts are accounted");

    for (const result of results) for (const value of Object.values(result.metric_values)) assert.ok(value === null || Number.isFinite(value));
  });

  test("a case rubric threshold overrides the default pass rule", async () => {
    const judge = new OpenAiJudge({ baseUrl: server.baseUrl, apiKey: "k", model: "fake-judge" });
    const lenient = buildCase({ input: "How long do I have to ask for a refund?", key_points: ["15 days from delivery", "customer pays return shipping"], rubric: { completeness_judged: ">= 0.5" } });
    const [result] = (await runJudgeEvaluations(judge, caseResult, lenient, "2026-07-08T10:00:00.000Z")).filter((item) => item.evaluator_id === "judge.completeness_judged");
    assert.equal(result?.outcome, "passed");
  });
});
