/**
 * A gate rule on the weighted score (composite_score, overall_score_drop) is not measured when the score stands on
 * part of its weights: renormalised over citation accuracy alone (no judge ran), it passed ">= 0.5" on a tenth of
 * the seed's weights. The reason names each missing term, who scored it, and what to configure; a gate file's
 * score_weights decide which terms the score stands on.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { EvaluationResult } from "../../../../contracts/evaluation-result.js";
import { parseGateDocument } from "../../../../contracts/gate-file.js";
import type { EvaluatedCase } from "../../../../evaluators/aggregate/index.js";
import { qualityScore } from "../../../../evaluators/aggregate/quality-score.js";
import { compositeForDecision } from "../../../../evaluators/aggregate/composite-decision.js";
import { checkReleaseGate, gateHeadline, type GateRuleResult } from "../../../../evaluators/gates/release-gate.js";
import { buildCase, buildCaseResult } from "../../../support/case-results.js";

function result(caseResultId: string, evaluatorId: string, values: Record<string, number>, semantics: "deterministic_rule" | "heuristic" | "judge_self_report"): EvaluationResult {
  return {
    evaluation_result_id: `er_${caseResultId}_${evaluatorId}`,
    case_result_id: caseResultId,
    evaluator_id: evaluatorId,
    evaluator_version: "1",
    metric_values: values,
    outcome: "passed",
    reason: "",
    evidence_refs: [],
    confidence: { value: 1, semantics },
    review_required: false,
    error_type: "none",
    evaluated_at: "2026-07-08T00:00:00Z",
  };
}

/** A case with the rules' values and, when given, a judge's (an LLM judge's, or the heuristic stand-in's). */
function evaluated(caseId: string, rules: Record<string, number>, judge: { values: Record<string, number>; heuristic: boolean } | null = null, caseVersion = "1"): EvaluatedCase {
  const caseResult = { ...buildCaseResult({ caseId }), case_version: caseVersion };
  const evaluationResults = [result(caseResult.case_result_id, "rules", rules, "deterministic_rule")];
  if (judge !== null) evaluationResults.push(result(caseResult.case_result_id, judge.heuristic ? "judge.heuristic" : "judge.llm", judge.values, judge.heuristic ? "heuristic" : "judge_self_report"));
  return { caseResult, evaluationResults, evalCase: buildCase({ case_id: caseId }) };
}

const ALL_JUDGED = { answer_relevance: 0.9, faithfulness: 0.9, answer_correctness: 0.9, completeness_judged: 0.9 };
const citedOnly = (caseId = "a", caseVersion = "1") => evaluated(caseId, { citation_accuracy: 1, completeness: 1 }, null, caseVersion);
const judgedFully = (caseId = "a", caseVersion = "1") => evaluated(caseId, { citation_accuracy: 1, completeness: 1 }, { values: ALL_JUDGED, heuristic: false }, caseVersion);

function gateFile(document: unknown) {
  const parsed = parseGateDocument(document);
  assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.error));
  return parsed.value;
}

const only = (rules: readonly GateRuleResult[]) => {
  assert.equal(rules.length, 1);
  return rules[0]!;
};

describe("a gate rule on the weighted score never passes on part of its weights", () => {
  const composite = gateFile({ quality: { composite_score: ">= 0.5" } });

  test("no judge ran: composite_score stands on citation accuracy's 0.1 alone, so it is not measured, naming the missing terms and what to configure", () => {
    const gate = checkReleaseGate(composite.rules, { cases: [citedOnly()], baseline: null });
    const rule = only(gate.rules);
    assert.equal(rule.status, "not_available");
    assert.equal(rule.value, null);
    assert.equal(gate.passed, false);
    assert.match(rule.reason, /^the weighted score 1 stands on weight 0\.1 of 1 \(renormalised over Cit \(citation_accuracy\)\)/);
    assert.match(rule.reason, /missing R \(answer_relevance\): no judge scored it; F \(faithfulness\): no judge scored it; C \(answer_correctness\): no judge scored it; Comp \(completeness\): only a heuristic \(answer\.completeness\) measured it, which never decides, and no LLM judge scored completeness_judged/);
    assert.match(rule.reason, /configure an LLM judge \(LOCAL-JUDGE\.md\); `ragscope serve`.*RAGSCOPE_JUDGE_ENABLED=true/);

    const allowed = checkReleaseGate(composite.rules, { cases: [citedOnly()], baseline: null }, { allowNotAvailable: true });
    assert.equal(allowed.passed, true);
    assert.equal(only(allowed.rules).status, "not_available");
    assert.match(gateHeadline(allowed), /^PASSED — 0 passed, 0 failed, 1 not measured, 0 errored \(the 1 not measured were allowed by --allow-missing: not shown to meet their thresholds\)$/);
  });

  test("the heuristic judge's scores are told apart from no judge's, as the judged rules tell them", () => {
    const heuristic = evaluated("a", { citation_accuracy: 1 }, { values: { answer_relevance: 1, faithfulness: 1, answer_correctness: 1, completeness_judged: 1 }, heuristic: true });
    const rule = only(checkReleaseGate(composite.rules, { cases: [heuristic], baseline: null }).rules);
    assert.equal(rule.status, "not_available");
    assert.match(rule.reason, /F \(faithfulness\): only the heuristic judge scored it, and a heuristic never decides a gate;/);
  });

  test("every term measured: the score decides, and a low one fails", () => {
    const passed = only(checkReleaseGate(composite.rules, { cases: [judgedFully()], baseline: null }).rules);
    assert.equal(passed.status, "passed");
    assert.ok(Math.abs(passed.value! - (0.9 * 0.9 + 0.1)) < 1e-9);
    const strict = gateFile({ quality: { composite_score: ">= 0.95" } });
    assert.equal(only(checkReleaseGate(strict.rules, { cases: [judgedFully()], baseline: null }).rules).status, "failed");
  });

  test("a gate file's score_weights: a term of weight 0 is not part of the score; a weighted term without a value is missing", () => {
    const citationOnly = gateFile({ quality: { composite_score: ">= 0.5" }, score_weights: { answer_relevance: 0, faithfulness: 0, answer_correctness: 0, completeness: 0, citation_accuracy: 1 } });
    const decided = only(checkReleaseGate(citationOnly.rules, { cases: [citedOnly()], baseline: null, scoreWeights: citationOnly.scoreWeights }).rules);
    assert.equal(decided.status, "passed", decided.reason);

    const withRelevance = gateFile({ quality: { composite_score: ">= 0.5" }, score_weights: { answer_relevance: 0.5, faithfulness: 0, answer_correctness: 0, completeness: 0, citation_accuracy: 0.5 } });
    const missing = only(checkReleaseGate(withRelevance.rules, { cases: [citedOnly()], baseline: null, scoreWeights: withRelevance.scoreWeights }).rules);
    assert.equal(missing.status, "not_available");
    assert.match(missing.reason, /stands on weight 0\.5 of 1 .*missing R \(answer_relevance\): no judge scored it —/);
    assert.doesNotMatch(missing.reason, /faithfulness|completeness/);
  });

  test("overall_score_drop is not measured when either run's score is renormalised", () => {
    const drop = gateFile({ regression: { overall_score_drop: "<= 0.02" } });
    const candidate = only(checkReleaseGate(drop.rules, { cases: [citedOnly()], baseline: [judgedFully()] }).rules);
    assert.equal(candidate.status, "not_available");
    assert.match(candidate.reason, /^the weighted score 1 stands on weight 0\.1 of 1/);
    const baseline = only(checkReleaseGate(drop.rules, { cases: [judgedFully()], baseline: [citedOnly()] }).rules);
    assert.equal(baseline.status, "not_available");
    assert.match(baseline.reason, /^the baseline's composite score is not measured: the weighted score 1 stands on weight 0\.1 of 1/);
    assert.equal(only(checkReleaseGate(drop.rules, { cases: [judgedFully()], baseline: [judgedFully()] }).rules).status, "passed");
  });
});

/** A case every judged metric scored but one, whose judge call errored (grader error of `errorType`, as judge-evaluations.ts writes it). */
function judgedBut(caseId: string, metric: string, errorType: string, values: Record<string, number> = ALL_JUDGED): EvaluatedCase {
  const scored = Object.fromEntries(Object.entries(values).filter(([name]) => name !== metric));
  const base = evaluated(caseId, { citation_accuracy: 1, completeness: 1 }, { values: scored, heuristic: false });
  const errored: EvaluationResult = {
    ...result(base.caseResult.case_result_id, `judge.${metric}`, {}, "judge_self_report"),
    metric_values: { [metric]: null },
    outcome: "error",
    reason: `grader error (${errorType}) from openai:m: the judge endpoint failed`,
    review_required: true,
    error_type: "evaluator_error",
    confidence: { value: 0, semantics: "judge_self_report" },
  };
  return { ...base, evaluationResults: [...base.evaluationResults, errored] };
}

describe("a gate rule on the weighted score is ERROR when a term's evaluation errored on some case, as a rule on the term is", () => {
  const composite = gateFile({ quality: { composite_score: ">= 0.5" } });
  // Case b: the judge timed out on faithfulness; the mean of F over case a alone (0.9) would pass ">= 0.5".
  const partly = () => [judgedFully("a"), judgedBut("b", "faithfulness", "timeout")];

  test("composite_score: ERROR naming the term, its counts by error type and the fix; --allow-missing does not pass it", () => {
    const gate = checkReleaseGate(composite.rules, { cases: partly(), baseline: null }, { allowNotAvailable: true });
    const rule = only(gate.rules);
    assert.equal(rule.status, "error", rule.reason);
    assert.equal(rule.value, null);
    assert.deepEqual(rule.errors, { timeout: 1 });
    assert.match(rule.reason, /^the weighted score 0\.91 averages terms that could not be measured on every case: F \(faithfulness\) errored on 1 of 2 case\(s\) \(1 measured\) — timeout: 1; the mean of the other cases cannot stand for the run — a grader error is never a pass, and --allow-missing does not cover it \(check the judge: RAGSCOPE_JUDGE_BASE_URL, its key and model\)$/);
    assert.equal(gate.passed, false);
    assert.equal(gate.undecided, true);
    assert.match(gateHeadline(gate), /^UNDECIDED — 0 passed, 0 failed, 0 not measured, 1 errored/);
  });

  test("every errored term is named, completeness by the judged metric it is read from; the counts are summed over the terms", () => {
    const cases = [judgedBut("a", "completeness_judged", "refusal"), judgedBut("b", "answer_relevance", "http_error"), judgedBut("c", "answer_relevance", "timeout")];
    const rule = only(checkReleaseGate(composite.rules, { cases, baseline: null }).rules);
    assert.equal(rule.status, "error", rule.reason);
    assert.deepEqual(rule.errors, { http_error: 1, refusal: 1, timeout: 1 });
    assert.match(rule.reason, /: R \(answer_relevance\) errored on 2 of 3 case\(s\) \(1 measured\) — http_error: 1, timeout: 1; Comp \(completeness_judged\) errored on 1 of 3 case\(s\) \(2 measured\) — refusal: 1;/);
  });

  test("a term the gate file leaves out with weight 0 is no part of the score: its errors do not make the score an error", () => {
    const withoutFaithfulness = gateFile({ quality: { composite_score: ">= 0.5" }, score_weights: { answer_relevance: 0.3, faithfulness: 0, answer_correctness: 0.3, completeness: 0.2, citation_accuracy: 0.2 } });
    const rule = only(checkReleaseGate(withoutFaithfulness.rules, { cases: partly(), baseline: null, scoreWeights: withoutFaithfulness.scoreWeights }).rules);
    assert.equal(rule.status, "passed", rule.reason);
  });

  test("overall_score_drop: ERROR when either run's score averages an errored term, saying which run", () => {
    const drop = gateFile({ regression: { overall_score_drop: "<= 0.02" } });
    const candidate = only(checkReleaseGate(drop.rules, { cases: partly(), baseline: [judgedFully("a"), judgedFully("b")] }).rules);
    assert.equal(candidate.status, "error", candidate.reason);
    assert.deepEqual(candidate.errors, { timeout: 1 });
    assert.match(candidate.reason, /^the weighted score 0\.91 averages terms that could not be measured on every case: F \(faithfulness\) errored on 1 of 2/);
    const baseline = only(checkReleaseGate(drop.rules, { cases: [judgedFully("a"), judgedFully("b")], baseline: partly() }).rules);
    assert.equal(baseline.status, "error", baseline.reason);
    assert.match(baseline.reason, /^the baseline's composite score: the weighted score 0\.91 averages terms that could not be measured on every case: F \(faithfulness\) errored on 1 of 2/);
  });

  test("the stored score is unchanged: the partial mean is kept and shown, only the decision's value is null with the reason", () => {
    const quality = qualityScore(partly());
    assert.equal(quality.composite.score.applicable, true);
    assert.ok(quality.composite.score.applicable && Math.abs(quality.composite.score.value - 0.91) < 1e-9);
    assert.equal(quality.composite.renormalised, false);
    const forDecision = compositeForDecision(quality.composite, partly());
    assert.equal(forDecision.applicable, false);
    assert.match(forDecision.applicable ? "" : forDecision.reason, /F \(faithfulness\) errored on 1 of 2 case\(s\)/);
  });
});
