/** The answer evaluators through evaluateCaseResult, with the default registry. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { CaseResult } from "../../../../contracts/case-result.js";
import type { EvalCase } from "../../../../contracts/eval-case.js";
import type { EvaluationResult } from "../../../../contracts/evaluation-result.js";
import { createDefaultRegistry } from "../../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../../evaluators/evaluate-case-result.js";
import { answerAbstentionEvaluator } from "../../../../evaluators/rules/answer-abstention.js";
import { buildCase, buildCaseResult } from "../../../support/case-results.js";

const EVALUATED_AT = "2026-07-08T09:32:01Z";

function resultOf(evaluatorId: string, caseResult: CaseResult, evalCase: EvalCase | null): EvaluationResult {
  const evaluation = evaluateCaseResult(createDefaultRegistry(), caseResult, evalCase, EVALUATED_AT);
  const result = evaluation.evaluationResults.find((candidate) => candidate.evaluator_id === evaluatorId);
  assert.ok(result, `no result of ${evaluatorId}`);
  assert.notEqual(result.outcome, "error", result.reason);
  for (const value of Object.values(result.metric_values)) assert.ok(value === null || Number.isFinite(value), "never NaN");
  return result;
}

const close = (actual: number | null | undefined, expected: number) => assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) < 1e-9, `expected ${expected}, got ${actual}`);

describe("answer.reference_match", () => {
  const evalCase = buildCase({ reference_answer: "部分退款后，会员积分按实际保留金额重新计算。" });

  test("a near-identical Chinese answer scores high, not 0, and is a measurement (no default threshold): neither passed nor failed", () => {
    const result = resultOf("answer.reference_match", buildCaseResult({ output: "部分退款后，会员积分会按保留金额重新计算" }), evalCase);
    // Reference tokens: 部分退款后会员积分按实际保留金额重新计算 (20); answer: 部分退款后会员积分会按保留金额重新计算 (19).
    // Overlap 18 (all but 会 on one side, 实 际 on the other): F1 = 2·18 / (19 + 20) = 36/39.
    close(result.metric_values.token_f1, 36 / 39);
    // LCS 18 as well: ROUGE-L F = 36/39.
    close(result.metric_values.rouge_l, 36 / 39);
    assert.equal(result.metric_values.exact_match, 0);
    assert.ok((result.metric_values.bleu ?? 0) > 0.5);
    assert.equal(result.outcome, "measured");
  });

  test("a case rubric can set a threshold", () => {
    const strict = { ...evalCase, rubric: { token_f1: ">= 0.95" } };
    const result = resultOf("answer.reference_match", buildCaseResult({ output: "部分退款后，会员积分会按保留金额重新计算" }), strict);
    assert.equal(result.outcome, "failed");
    assert.match(result.reason, /^token_f1 = 0\.923/);
  });

  test("several reference answers: each metric is its best over them, as the SQuAD and CMRC scorers take the max", () => {
    const several = buildCase({ reference_answer: ["中华人民共和国国务院", "国务院总理", "总理"] });
    const result = resultOf("answer.reference_match", buildCaseResult({ output: "总理" }), several);
    // Exact match against the third; the others alone would give 0.
    assert.equal(result.metric_values.exact_match, 1);
    assert.equal(result.metric_values.cmrc_exact_match, 1);
    close(result.metric_values.token_f1, 1);
    close(result.metric_values.cmrc_f1, 1);
    close(result.metric_values.rouge_l, 1);
    close(result.metric_values.bleu, 1);
    assert.match(result.reason, /^against the best of 3 reference answers/);
    // The single reference "国务院总理" alone: token F1 = 2·(2/2)(2/5)/(1 + 2/5) = 4/7.
    const one = resultOf("answer.reference_match", buildCaseResult({ output: "总理" }), buildCase({ reference_answer: "国务院总理" }));
    close(one.metric_values.token_f1, 4 / 7);
    assert.equal(one.metric_values.exact_match, 0);
  });

  test("the best reference is chosen per metric: 京北 has the best bag-of-tokens F1 with one reference, the best CMRC F1 with another", () => {
    const several = buildCase({ reference_answer: ["北京", "京北路"] });
    const result = resultOf("answer.reference_match", buildCaseResult({ output: "京北" }), several);
    // token F1: against 北京 the bags are equal (1). cmrc_f1: 北京 gives LCS 1 (0.5); 京北路 gives LCS 2, P 1, R 2/3, F1 0.8.
    close(result.metric_values.token_f1, 1);
    close(result.metric_values.cmrc_f1, 0.8);
  });

  test("an empty answer scores 0; no reference, no answer or no case: not applicable", () => {
    const empty = resultOf("answer.reference_match", buildCaseResult({ output: "" }), evalCase);
    assert.deepEqual(empty.metric_values, { exact_match: 0, token_f1: 0, cmrc_f1: 0, cmrc_exact_match: 0, rouge_l: 0, bleu: 0 });
    for (const [caseResult, withCase] of [
      [buildCaseResult({ output: "x" }), buildCase()],
      [buildCaseResult({ output: "x" }), buildCase({ reference_answer: "  " })],
      [buildCaseResult({ output: null }), evalCase],
      [buildCaseResult({ output: "x" }), null],
    ] as const) {
      const result = resultOf("answer.reference_match", caseResult, withCase);
      assert.equal(result.outcome, "not_applicable", result.reason);
    }
  });
});

describe("answer.completeness", () => {
  const evalCase = buildCase({ key_points: ["员工每年享有5天年假", "年假需提前三天申请"] });

  test("one of two key points: 0.5 fails the default >= 0.8 and names the missing point", () => {
    const result = resultOf("answer.completeness", buildCaseResult({ output: "员工每年享有5天年假，且未使用的年假可折现。" }), evalCase);
    assert.equal(result.metric_values.completeness, 0.5);
    assert.equal(result.outcome, "failed");
    assert.match(result.reason, /missing: "年假需提前三天申请"/);
  });

  test("both key points, one with its number written in Chinese: passes", () => {
    const result = resultOf("answer.completeness", buildCaseResult({ output: "员工每年有5天年假，需要提前3天提交申请。" }), evalCase);
    assert.equal(result.metric_values.completeness, 1);
    assert.equal(result.outcome, "passed");
  });

  test("no key points or no answer: not applicable", () => {
    assert.equal(resultOf("answer.completeness", buildCaseResult({ output: "x" }), buildCase()).outcome, "not_applicable");
    assert.equal(resultOf("answer.completeness", buildCaseResult({ output: null }), evalCase).outcome, "not_applicable");
  });
});

describe("answer.fact_agreement", () => {
  const evalCase = buildCase({ reference_answer: "自2026年7月1日起，订单满199元包邮，退货期限为15天。" });

  test("numbers and dates in other forms agree", () => {
    const result = resultOf("answer.fact_agreement", buildCaseResult({ output: "从2026-07-01开始，满１９９元就包邮，十五天内可以退货。" }), evalCase);
    assert.deepEqual(result.metric_values, { number_agreement: 1, date_agreement: 1, entity_agreement: null });
    assert.equal(result.outcome, "passed");
  });

  test("a wrong number fails and the contradiction is in the reason", () => {
    const result = resultOf("answer.fact_agreement", buildCaseResult({ output: "从2026年7月1日起，满99元包邮，15天内可以退货。" }), evalCase);
    // Reference numbers 199 CNY and 15 day; the answer states 99 CNY and 15 day: 1 of 2.
    assert.equal(result.metric_values.number_agreement, 0.5);
    assert.equal(result.outcome, "failed");
    assert.match(result.reason, /contradiction: the reference says 199 CNY, the answer says 99 CNY/);
  });

  test("several reference answers: the answer agreeing with one of them agrees", () => {
    const several = buildCase({ reference_answer: ["订单满199元包邮。", "订单满99元包邮。"] });
    const result = resultOf("answer.fact_agreement", buildCaseResult({ output: "满99元就包邮。" }), several);
    assert.equal(result.metric_values.number_agreement, 1);
    assert.equal(result.outcome, "passed");
    assert.doesNotMatch(result.reason, /contradiction/);
  });

  test("a reference with no number or date: not applicable", () => {
    const result = resultOf("answer.fact_agreement", buildCaseResult({ output: "会自动开具" }), buildCase({ reference_answer: "电子发票随订单自动开具，无需另行申请。" }));
    assert.equal(result.outcome, "not_applicable");
  });
});

describe("answer.abstention", () => {
  const unanswerable = buildCase({ answerable: false });
  const answerable = buildCase();

  test("a refusal on an unanswerable case: true abstention, passes", () => {
    const result = resultOf("answer.abstention", buildCaseResult({ output: "抱歉，现有资料不足以回答这个问题。" }), unanswerable);
    assert.deepEqual(result.metric_values, { abstained: 1, abstention_correct: 1 });
    assert.equal(result.outcome, "passed");
    assert.match(result.reason, /true_abstention/);
  });

  test("answering an unanswerable case: missed abstention (SHOULD_ABSTAIN), fails", () => {
    const result = resultOf("answer.abstention", buildCaseResult({ output: "支持使用比特币支付。" }), unanswerable);
    assert.deepEqual(result.metric_values, { abstained: 0, abstention_correct: 0 });
    assert.equal(result.outcome, "failed");
    assert.match(result.reason, /SHOULD_ABSTAIN/);
  });

  test("refusing an answerable case: over-abstention, fails", () => {
    const result = resultOf("answer.abstention", buildCaseResult({ output: "I don't know." }), answerable);
    assert.equal(result.metric_values.abstention_correct, 0);
    assert.match(result.reason, /over-abstention/);
  });

  test("the trace's explicit flag wins over the text", () => {
    const flagged = resultOf("answer.abstention", buildCaseResult({ output: "支持使用比特币支付。", abstained: true }), unanswerable);
    assert.deepEqual(flagged.metric_values, { abstained: 1, abstention_correct: 1 });
    assert.match(flagged.reason, /trace flags/);
    const notFlagged = resultOf("answer.abstention", buildCaseResult({ output: "资料不足", abstained: false }), answerable);
    assert.deepEqual(notFlagged.metric_values, { abstained: 0, abstention_correct: 1 });
  });

  test("without a case only `abstained`; without flag and answer nothing", () => {
    const online = answerAbstentionEvaluator.evaluate({ caseResult: buildCaseResult({ output: "I cannot answer that." }), evalCase: null });
    assert.deepEqual(online.values.abstained, { applicable: true, value: 1 });
    assert.equal(online.values.abstention_correct!.applicable, false);
    const result = resultOf("answer.abstention", buildCaseResult({ output: "I cannot answer that." }), null);
    assert.deepEqual(result.metric_values, { abstained: 1, abstention_correct: null });
    assert.equal(result.outcome, "measured", "abstained is informational: a measurement, it neither passes nor fails a case");
    assert.equal(resultOf("answer.abstention", buildCaseResult({ output: null }), answerable).outcome, "not_applicable");
    assert.equal(resultOf("answer.abstention", buildCaseResult({ output: "  " }), answerable).outcome, "not_applicable");
  });
});

describe("the default registry", () => {
  test("registers the four answer evaluators with unique metric names", () => {
    const registry = createDefaultRegistry();
    for (const id of ["answer.reference_match", "answer.completeness", "answer.fact_agreement", "answer.abstention"]) assert.ok(registry.get(id), id);
    assert.equal(registry.ownerOf("token_f1")?.id, "answer.reference_match");
    assert.equal(registry.ownerOf("abstention_correct")?.id, "answer.abstention");
  });
});
