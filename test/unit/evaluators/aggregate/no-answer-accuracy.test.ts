/**
 * No-answer accuracy decides (the seed's hard gate `>= 0.90`, a gate file's rule), so only an abstention read exactly
 * counts: the trace flags it, or the answer refuses in whole. A refusal phrase beside claims of the answer's own is a
 * heuristic "abstained": in the denominator, not the numerator, and the gate says how many and how to read them
 * exactly. The cases are evaluated by the default registry (answer.abstention as it runs); values worked by hand.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseGateFile } from "../../../../contracts/gate-file.js";
import type { EvaluatedCase } from "../../../../evaluators/aggregate/evaluated-case.js";
import { noAnswerAccuracy } from "../../../../evaluators/aggregate/no-answer-accuracy.js";
import { qualityScore } from "../../../../evaluators/aggregate/quality-score.js";
import { createDefaultRegistry } from "../../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../../evaluators/evaluate-case-result.js";
import { checkReleaseGate } from "../../../../evaluators/gates/release-gate.js";
import type { MetricValue } from "../../../../evaluators/metric-value.js";
import { buildCase, buildCaseResult } from "../../../support/case-results.js";

const registry = createDefaultRegistry();
const valueOf = (value: MetricValue) => (value.applicable ? value.value : null);

function evaluated(caseId: string, output: string, options: { answerable?: boolean; flag?: boolean } = {}): EvaluatedCase {
  const evalCase = buildCase({ case_id: caseId, answerable: options.answerable ?? false });
  const evaluation = evaluateCaseResult(registry, buildCaseResult({ caseId, output, abstained: options.flag ?? null }), evalCase, "2026-07-08T00:00:00Z");
  return { caseResult: evaluation.caseResult, evaluationResults: evaluation.evaluationResults, evalCase };
}

/** Refuses in whole: an exact "abstained". */
const exactRefusal = (caseId: string) => evaluated(caseId, "资料中没有相关信息，无法回答。");
/** A refusal phrase beside a claim of its own: a heuristic "abstained". */
const refusalBesideClaim = (caseId: string) => evaluated(caseId, "资料中没有相关信息，但年假是15天。");
/** No refusal phrase: a heuristic "did not abstain". */
const plainAnswer = (caseId: string) => evaluated(caseId, "年假是15天。");

const HEURISTIC_NOTE = /^1 of the (\d+) unanswerable case\(s\) read as abstaining only by a heuristic \(a refusal phrase beside claims of the answer's own\) and are not counted as abstaining, so the value is a lower bound — record the abstention on the trace \(span attribute ragscope\.answer\.abstained\) so it is read exactly/;

function abstentionConfidence(item: EvaluatedCase): string | undefined {
  return item.evaluationResults.find((result) => result.evaluator_id === "answer.abstention")?.confidence.semantics;
}

const gateRules = () => {
  const parsed = parseGateFile({ boundary: { no_answer_accuracy: ">= 0.90" } });
  assert.ok(parsed.ok);
  return parsed.value;
};

describe("no-answer accuracy counts only exact abstentions", () => {
  test("the readings are as the cases mean them: exact refusal, heuristic refusal beside a claim, heuristic answer", () => {
    assert.equal(abstentionConfidence(exactRefusal("a")), "deterministic_rule");
    assert.equal(abstentionConfidence(refusalBesideClaim("b")), "heuristic");
    assert.equal(abstentionConfidence(plainAnswer("c")), "heuristic");
  });

  test("exact refusal, refusal beside a claim, flagged abstention, plain answer, and an answerable case: 2 of 4 = 0.5, one heuristic abstention not counted", () => {
    // Unanswerable: a (exact, abstained), b (heuristic abstained: not shown), d (trace flag, abstained although its text
    // answers), c (did not abstain); e is answerable and not counted. Exactly abstained: a, d → 2 / 4.
    const cases = [exactRefusal("a"), refusalBesideClaim("b"), plainAnswer("c"), evaluated("d", "支持使用比特币支付。", { flag: true }), evaluated("e", "年假是15天。", { answerable: true })];
    const accuracy = noAnswerAccuracy(cases);
    assert.equal(valueOf(accuracy.value), 0.5);
    assert.equal(accuracy.unanswerableCases, 4);
    assert.equal(accuracy.heuristicAbstentionsNotCounted, 1);
    assert.match(accuracy.note ?? "", HEURISTIC_NOTE);
    assert.equal(HEURISTIC_NOTE.exec(accuracy.note ?? "")?.[1], "4");
  });

  test("a heuristic 'did not abstain' stays not abstained, and says nothing: exact refusal and plain answer = 1 of 2", () => {
    const accuracy = noAnswerAccuracy([exactRefusal("a"), plainAnswer("c")]);
    assert.equal(valueOf(accuracy.value), 0.5);
    assert.equal(accuracy.heuristicAbstentionsNotCounted, 0);
    assert.equal(accuracy.note, null);
  });

  test("an unanswerable case that recorded no abstention (no answer, no flag) is not in the value, and the note says so", () => {
    const noReading = evaluated("f", "");
    assert.equal(
      noReading.evaluationResults.find((result) => result.evaluator_id === "answer.abstention")?.metric_values.abstained ?? null,
      null,
      "the case's abstention is not known",
    );
    const accuracy = noAnswerAccuracy([exactRefusal("a"), noReading]);
    assert.equal(valueOf(accuracy.value), 1);
    assert.equal(accuracy.unanswerableCases, 1);
    assert.equal(accuracy.casesWithoutReading, 1);
    assert.equal(
      accuracy.note,
      "1 of the 2 unanswerable case(s) recorded no abstention (no answer.abstention value and no ragscope.answer.abstained flag, e.g. the request failed before it answered) and are not in the value, which stands on the other 1",
    );
    const both = noAnswerAccuracy([exactRefusal("a"), refusalBesideClaim("b"), noReading]);
    assert.match(both.note ?? "", /^1 of the 2 unanswerable case\(s\) read as abstaining only by a heuristic .*; 1 of the 3 unanswerable case\(s\) recorded no abstention/);
  });

  test("only heuristic abstentions: 0 of 1, not 1", () => {
    const accuracy = noAnswerAccuracy([refusalBesideClaim("b")]);
    assert.equal(valueOf(accuracy.value), 0);
    assert.equal(accuracy.unanswerableCases, 1);
  });
});

describe("the gates on no_answer_accuracy do not pass on a heuristic abstention", () => {
  // 9 exact refusals and 1 refusal beside a claim: read as 10 of 10 before; exactly, 9 of 10 = 0.9 (passes >= 0.90).
  // With a second refusal beside a claim: 9 of 11 ≈ 0.818 (fails), 11 of 11 before.
  const exactNine = Array.from({ length: 9 }, (_, index) => exactRefusal(`exact_${index}`));

  test("the seed's hard gate: 9 exact + 2 beside claims = 9/11, fail, its note says 2 were not counted", () => {
    const quality = qualityScore([...exactNine, refusalBesideClaim("b1"), refusalBesideClaim("b2")]);
    const gate = quality.gates.find((item) => item.gate === "no_answer_accuracy")!;
    assert.equal(valueOf(gate.value), 9 / 11);
    assert.equal(gate.status, "fail");
    assert.match(gate.note ?? "", /^2 of the 11 unanswerable case\(s\) read as abstaining only by a heuristic .*ragscope\.answer\.abstained/);
    assert.equal(quality.gatesPassed, false);
  });

  test("the seed's hard gate with only exact readings has no note", () => {
    const gate = qualityScore(exactNine).gates.find((item) => item.gate === "no_answer_accuracy")!;
    assert.equal(valueOf(gate.value), 1);
    assert.equal(gate.status, "pass");
    assert.equal(gate.note, undefined);
  });

  test("a gate file's rule: a refusal beside a claim and an exact refusal = 1/2, failed, and its reason says why", () => {
    const gate = checkReleaseGate(gateRules(), { cases: [exactRefusal("a"), refusalBesideClaim("b")], baseline: null });
    const rule = gate.rules[0]!;
    assert.equal(rule.status, "failed");
    assert.equal(rule.value, 0.5);
    assert.match(rule.basis ?? "", HEURISTIC_NOTE);
    assert.match(rule.reason, /^no_answer_accuracy = 0\.5 misses >= 0\.90 \(1 of the 2 unanswerable case\(s\) read as abstaining only by a heuristic/);
    assert.equal(gate.passed, false);
  });

  test("a gate file's rule: 9 exact + 1 beside a claim = 0.9 passes as a lower bound, and says one was not counted", () => {
    const gate = checkReleaseGate(gateRules(), { cases: [...exactNine, refusalBesideClaim("b")], baseline: null });
    assert.equal(gate.rules[0]!.status, "passed");
    assert.equal(gate.rules[0]!.value, 0.9);
    assert.match(gate.rules[0]!.basis ?? "", /^1 of the 10 unanswerable case\(s\)/);
  });

  test("a case whose only abstention reading is heuristic is not passed by it (case-verdict.ts passJudgesCase and confidence)", () => {
    // answer.abstention's abstention_correct = 1 meets its default threshold (>= 1), but a heuristic pass judges no case.
    const heuristic = refusalBesideClaim("b");
    const abstention = heuristic.evaluationResults.find((result) => result.evaluator_id === "answer.abstention")!;
    assert.deepEqual(abstention.metric_values, { abstained: 1, abstention_correct: 1 });
    assert.notEqual(heuristic.caseResult.quality_status, "passed");
    assert.equal(exactRefusal("a").caseResult.quality_status, "passed");
  });
});
