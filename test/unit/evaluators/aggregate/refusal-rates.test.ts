/**
 * correct_refusal_rate (正确拒答率 = correct refusals / refusals) and false_refusal_rate (错误拒答率 = refusals of
 * answerable cases / answerable cases) decide a gate file's rules, so a refusal counts in the rate's favour only when
 * read exactly (the trace's flag, or an answer that refuses in whole); every heuristic reading is put where it can
 * only understate quality, and the rule's line says how many and how to read them exactly. The cases are evaluated by
 * the default registry (answer.abstention as it runs); values worked by hand.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseGateFile } from "../../../../contracts/gate-file.js";
import type { EvaluatedCase } from "../../../../evaluators/aggregate/evaluated-case.js";
import { correctRefusalRate, falseRefusalRate } from "../../../../evaluators/aggregate/refusal-rates.js";
import { createDefaultRegistry } from "../../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../../evaluators/evaluate-case-result.js";
import { checkReleaseGate } from "../../../../evaluators/gates/release-gate.js";
import type { MetricValue } from "../../../../evaluators/metric-value.js";
import { buildCase, buildCaseResult } from "../../../support/case-results.js";

const registry = createDefaultRegistry();
const valueOf = (value: MetricValue) => (value.applicable ? value.value : null);
const reasonOf = (value: MetricValue) => (value.applicable ? null : value.reason);

function evaluated(caseId: string, output: string, answerable: boolean, flag: boolean | null = null): EvaluatedCase {
  const evalCase = buildCase({ case_id: caseId, answerable });
  const evaluation = evaluateCaseResult(registry, buildCaseResult({ caseId, output, abstained: flag }), evalCase, "2026-07-08T00:00:00Z");
  return { caseResult: evaluation.caseResult, evaluationResults: evaluation.evaluationResults, evalCase };
}

const REFUSES_IN_WHOLE = "资料中没有相关信息，无法回答。"; // exact "abstained"
const REFUSAL_BESIDE_CLAIM = "资料中没有相关信息，但年假是15天。"; // heuristic "abstained"
const PLAIN_ANSWER = "年假是15天。"; // heuristic "did not abstain" (no refusal phrase found)

/**
 * Unanswerable: a refuses in whole (exact), b refusal beside a claim (heuristic), c plain answer (heuristic answer),
 * d flagged as abstaining. Answerable: e flagged as answering, f flagged as abstaining, g refusal beside a claim
 * (heuristic), h plain answer unflagged (heuristic), i refuses in whole (exact).
 */
const mixed = () => [
  evaluated("a", REFUSES_IN_WHOLE, false),
  evaluated("b", REFUSAL_BESIDE_CLAIM, false),
  evaluated("c", PLAIN_ANSWER, false),
  evaluated("d", "支持使用比特币支付。", false, true),
  evaluated("e", PLAIN_ANSWER, true, false),
  evaluated("f", PLAIN_ANSWER, true, true),
  evaluated("g", REFUSAL_BESIDE_CLAIM, true),
  evaluated("h", PLAIN_ANSWER, true),
  evaluated("i", REFUSES_IN_WHOLE, true),
];

const READ_EXACTLY = "record the abstention on the trace \\(span attribute ragscope\\.answer\\.abstained\\) so it is read exactly";
const HEURISTIC_ANSWERABLE = "answerable case\\(s\\) read only by a heuristic \\(1 with a refusal phrase beside claims of the answer's own; 1 with no refusal phrase found, which a refusal in other words would escape\\) are counted as false refusals";
const CORRECT_NOTE = new RegExp(`^1 refusal\\(s\\) of unanswerable cases read only by a heuristic \\(a refusal phrase beside claims of the answer's own\\) are not counted as correct refusals; 2 ${HEURISTIC_ANSWERABLE}, so the value is a lower bound — ${READ_EXACTLY}$`);
const FALSE_NOTE = new RegExp(`^2 of the 5 ${HEURISTIC_ANSWERABLE}, so the value is an upper bound — ${READ_EXACTLY}$`);

describe("correct_refusal_rate: a lower bound over refusals read exactly", () => {
  test("mixed readings: correct a, d; refusals a, d, f, i and the heuristic g, h = 2/6; b not credited", () => {
    // The boards count every stored abstention: refusals a, b, d, f, g, i, correct a, b, d = 3/6 = 0.5.
    const rate = correctRefusalRate(mixed());
    assert.equal(valueOf(rate.value), 2 / 6);
    assert.match(rate.note ?? "", CORRECT_NOTE);
  });

  test("only flagged readings: 1 correct of 2 refusals, no note", () => {
    const rate = correctRefusalRate([evaluated("a", PLAIN_ANSWER, false, true), evaluated("e", PLAIN_ANSWER, true, false), evaluated("f", PLAIN_ANSWER, true, true)]);
    assert.equal(valueOf(rate.value), 0.5);
    assert.equal(rate.note, null);
  });

  test("a heuristic refusal of an unanswerable case is never a correct one: beside an exact one, 1/1; alone, not measured", () => {
    const withExact = correctRefusalRate([evaluated("a", REFUSES_IN_WHOLE, false), evaluated("b", REFUSAL_BESIDE_CLAIM, false)]);
    assert.equal(valueOf(withExact.value), 1);
    assert.match(withExact.note ?? "", /^1 refusal\(s\) of unanswerable cases read only by a heuristic .* so the value is a lower bound/);
    const alone = correctRefusalRate([evaluated("b", REFUSAL_BESIDE_CLAIM, false)]);
    assert.equal(valueOf(alone.value), null);
    assert.match(reasonOf(alone.value) ?? "", /^no case's answer was read exactly as a refusal .*; 1 refusal\(s\) of unanswerable cases were read only by a heuristic/);
  });

  test("no unanswerable case: not measured, saying why", () => {
    const rate = correctRefusalRate([evaluated("f", PLAIN_ANSWER, true, true)]);
    assert.match(reasonOf(rate.value) ?? "", /^the run has no unanswerable case \(answerable: false\)/);
  });
});

describe("false_refusal_rate: an upper bound over answerable cases", () => {
  test("mixed readings: answerable e, f, g, h, i; false refusals f, i and the heuristic g, h = 4/5", () => {
    // The boards: f, g, i = 3/5 = 0.6.
    const rate = falseRefusalRate(mixed());
    assert.equal(valueOf(rate.value), 4 / 5);
    assert.match(rate.note ?? "", FALSE_NOTE);
  });

  test("only flagged readings: 1 of 2, no note", () => {
    const rate = falseRefusalRate([evaluated("a", PLAIN_ANSWER, false, true), evaluated("e", PLAIN_ANSWER, true, false), evaluated("f", PLAIN_ANSWER, true, true)]);
    assert.equal(valueOf(rate.value), 0.5);
    assert.equal(rate.note, null);
  });

  test("no answerable case, or no case linked to an Eval Case: not measured, saying why", () => {
    assert.match(reasonOf(falseRefusalRate([evaluated("a", REFUSES_IN_WHOLE, false)]).value) ?? "", /^the run has no answerable case whose abstention was recorded/);
    const unlinked = { ...evaluated("e", PLAIN_ANSWER, true, false), evalCase: null };
    assert.match(reasonOf(falseRefusalRate([unlinked]).value) ?? "", /^no case is linked to an Eval Case/);
  });
});

describe("a gate file's rules on both rates", () => {
  const parsed = parseGateFile({ boundary: { correct_refusal_rate: ">= 0.30", false_refusal_rate: "<= 0.70" } });
  assert.ok(parsed.ok);

  test("mixed readings: 2/6 meets >= 0.30 as a lower bound; 0.8 misses <= 0.70 only as an upper bound (read in its favour, f and i of 5 = 0.4): not measured, not failed", () => {
    const gate = checkReleaseGate(parsed.value, { cases: mixed(), baseline: null });
    const [correct, falseRate] = gate.rules;
    assert.equal(correct!.status, "passed");
    assert.equal(correct!.value, 2 / 6);
    assert.match(correct!.basis ?? "", CORRECT_NOTE);
    assert.equal(falseRate!.status, "not_available");
    assert.equal(falseRate!.value, null);
    assert.match(falseRate!.reason, new RegExp(`^false_refusal_rate = 0\\.8 misses <= 0\\.70 only as a bound \\(2 of the 5 ${HEURISTIC_ANSWERABLE}, so the value is an upper bound`));
    assert.match(falseRate!.reason, /read in its favour it is 0\.4, which meets <= 0\.70 — have the abstentions read exactly, or give --allow-missing/);
    assert.equal(gate.passed, false, "a rule not measured still blocks");
  });

  test("a bound that fails read in its favour too fails: false refusals f and i of 5 = 0.4 miss <= 0.30 whatever the heuristic readings", () => {
    const strict = parseGateFile({ boundary: { correct_refusal_rate: ">= 0.70", false_refusal_rate: "<= 0.30" } });
    assert.ok(strict.ok);
    const [correct, falseRate] = checkReleaseGate(strict.value, { cases: mixed(), baseline: null }).rules;
    assert.equal(falseRate!.status, "failed");
    assert.equal(falseRate!.value, 0.8);
    // Correct refusals read in its favour: a, d and the heuristic b of the refusals a, b, d, f, i = 3/5 = 0.6 < 0.70.
    assert.equal(correct!.status, "failed");
    assert.equal(correct!.value, 2 / 6);
  });

  test("correct_refusal_rate read in its favour: 3/5 meets >= 0.5 though the bound 2/6 does not: not measured", () => {
    const middling = parseGateFile({ boundary: { correct_refusal_rate: ">= 0.5" } });
    assert.ok(middling.ok);
    const [correct] = checkReleaseGate(middling.value, { cases: mixed(), baseline: null }).rules;
    assert.equal(correct!.status, "not_available");
    assert.match(correct!.reason, /read in its favour it is 0\.6, which meets >= 0\.5/);
  });
});
