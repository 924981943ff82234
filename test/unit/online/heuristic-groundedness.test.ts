/**
 * Heuristic groundedness on Chinese and English answers, values reasoned by
 * hand from the documented rule (evaluators/online/claim-support.ts): a claim
 * is supported when >= 0.6 of its distinct content units (CJK bigrams after
 * dropping stop characters; English words without stop words, plural "s"
 * folded) are in the context, and every number, date and entity it states is
 * in the context too.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { EvaluatorRegistry } from "../../../evaluators/evaluator-registry.js";
import { contentUnits } from "../../../evaluators/online/content-units.js";
import { assessGroundedness, heuristicGroundednessEvaluator } from "../../../evaluators/online/heuristic-groundedness.js";
import { splitClaims } from "../../../evaluators/text/answer-sentences.js";
import { onlineCaseResult } from "../../support/online-case-results.js";

describe("claims and content units", () => {
  test("sentences end at 。！？；!? and '. ', not inside 3.5; list and citation markers go", () => {
    assert.deepEqual(splitClaims("年假需提前三天申请。病假要证明！能折现吗？第一点；第二点"), ["年假需提前三天申请", "病假要证明", "能折现吗", "第一点", "第二点"]);
    assert.deepEqual(splitClaims("Refunds take 3.5 days. Ask HR first [1].\n1. Keep receipts\n- Pay later"), ["Refunds take 3.5 days", "Ask HR first", "Keep receipts", "Pay later"]);
    assert.deepEqual(splitClaims("……"), []);
  });

  test("CJK text becomes bigrams without stop characters; English words lose stop words and plural s", () => {
    // 未使用的年假可以折现 → 的 dropped → 未使用年假可以折现 → 8 bigrams.
    assert.deepEqual(contentUnits("未使用的年假可以折现"), ["未使", "使用", "用年", "年假", "假可", "可以", "以折", "折现"]);
    assert.deepEqual(contentUnits("Refunds are processed within 15 days."), ["refund", "processed", "within", "day"]);
  });
});

describe("heuristic groundedness", () => {
  test("Chinese: one supported and one unsupported claim give 0.5", () => {
    // Context units: 年假 假需 需提 提前 前三 三天 天申 申请 | 未使 使用 用年 年假 假年 年底 底清 清零.
    // Claim 1 "年假需要提前三天申请": 9 units, 7 in the context (需要, 要提 are not): 7/9 = 0.78 >= 0.6,
    //   and its number 三天 (3 day) is in the context: supported.
    // Claim 2 "未使用的年假可以折现": 8 units, 4 in the context (未使 使用 用年 年假): 0.5 < 0.6: unsupported.
    const context = "年假需提前三天申请。未使用的年假在年底清零。";
    const assessment = assessGroundedness("年假需要提前三天申请。未使用的年假可以折现。", context);
    assert.deepEqual(assessment.verdicts.map((verdict) => [verdict.claim, verdict.supported, verdict.unitRecall]), [
      ["年假需要提前三天申请", true, 7 / 9],
      ["未使用的年假可以折现", false, 4 / 8],
    ]);
    const output = heuristicGroundednessEvaluator.evaluate({ caseResult: onlineCaseResult({ output: "年假需要提前三天申请。未使用的年假可以折现。", context }), evalCase: null });
    assert.deepEqual(output.values.heuristic_groundedness, { applicable: true, value: 0.5 });
    assert.match(output.reason, /未使用的年假可以折现/);
  });

  test("Chinese paraphrase of a chunk is supported; a changed number is not", () => {
    // "部分退款后" 4 units all found; "积分会按实际保留的金额重新计算" 13 units, 11 found (分会, 会按 missing): 15/17.
    const packed = "部分退款后，会员积分按实际保留金额重新计算。退款在15天内到账。";
    const caseResult = onlineCaseResult({
      output: "部分退款后，积分会按实际保留的金额重新计算[1]。退款在7天内到账。",
      retrieved: [{ chunk_id: "c1", text: packed }],
      contextChunkIds: ["c1"],
    });
    const output = heuristicGroundednessEvaluator.evaluate({ caseResult, evalCase: null });
    // Claim 2 has all its words in the chunk, but "7天" is not there (15天 is): unsupported.
    assert.deepEqual(output.values.heuristic_groundedness, { applicable: true, value: 0.5 });
    assert.match(output.reason, /退款在7天内到账" \(not in the context: 7天\)/);
    assert.deepEqual(output.evidence, ["c1"]);
  });

  test("English: a paraphrase with the same facts is supported, an invented claim is not", () => {
    // Claim 1 units: annual leave requested three day advance — all 6 in the context.
    // Claim 2 units: unused leave cashed out — 2 of 4 in the context: 0.5 < 0.6.
    // Claim 3 units: refund arrive within day — all in the context, but 7 days is not (15 days is).
    const context = "Annual leave must be requested three days in advance. Unused leave expires at the end of the year. Refunds arrive within 15 days.";
    const output = heuristicGroundednessEvaluator.evaluate({
      caseResult: onlineCaseResult({ output: "Annual leave must be requested three days in advance. Unused leave can be cashed out. Refunds arrive within 7 days.", context }),
      evalCase: null,
    });
    assert.deepEqual(output.values.heuristic_groundedness, { applicable: true, value: 1 / 3 });
    assert.match(output.reason, /1 of 3 claims overlap the context/);
    assert.match(output.reason, /"Unused leave can be cashed out"/);
    assert.match(output.reason, /"Refunds arrive within 7 days" \(not in the context: 7 days\)/);
  });

  test("an entity the context does not name makes the claim unsupported", () => {
    const output = heuristicGroundednessEvaluator.evaluate({
      caseResult: onlineCaseResult({ output: "The order ships from Bank of China warehouses.", context: "The order ships from our own warehouses." }),
      evalCase: null,
    });
    // Words: order ship bank china warehouse, 3 of 5 in the context (0.6, enough) — the entity decides.
    assert.deepEqual(output.values.heuristic_groundedness, { applicable: true, value: 0 });
    assert.match(output.reason, /not in the context: Bank of China/);
  });

  test("confidence semantics is heuristic in the stored Evaluation Result", () => {
    const registry = new EvaluatorRegistry().register(heuristicGroundednessEvaluator);
    const { evaluationResults } = evaluateCaseResult(registry, onlineCaseResult({ output: "年假需提前三天申请。", context: "年假需提前三天申请。" }), null, "2026-07-08T10:00:00.000Z");
    assert.equal(evaluationResults[0]!.confidence.semantics, "heuristic");
    assert.deepEqual(evaluationResults[0]!.metric_values, { heuristic_groundedness: 1 });
    // No threshold: a measurement, never a pass; every claim overlaps, so no review signal.
    assert.equal(evaluationResults[0]!.outcome, "measured");
    assert.equal(evaluationResults[0]!.review_required, false);
  });
});
