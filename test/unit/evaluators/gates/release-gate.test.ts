import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { EvaluationResult } from "../../../../contracts/evaluation-result.js";
import { parseGateFile } from "../../../../contracts/gate-file.js";
import type { EvaluatedCase } from "../../../../evaluators/aggregate/index.js";
import { gateMetricValue } from "../../../../evaluators/gates/gate-metrics.js";
import { checkReleaseGate } from "../../../../evaluators/gates/release-gate.js";
import { buildCase, buildCaseResult } from "../../../support/case-results.js";

function evaluated(caseId: string, metrics: Record<string, number | null>, options: { latencyMs?: number; passed?: boolean; riskLevel?: "P0" | "P1"; answerable?: boolean; rootCause?: string } = {}): EvaluatedCase {
  const caseResult = buildCaseResult({ caseId });
  caseResult.rag_observation.latency_ms = options.latencyMs ?? null;
  caseResult.quality_status = options.passed === false ? "failed" : "passed";
  const result = (evaluatorId: string, values: Record<string, number | null>, reason = ""): EvaluationResult => ({
    evaluation_result_id: `er_${caseId}_${evaluatorId}`,
    case_result_id: caseResult.case_result_id,
    evaluator_id: evaluatorId,
    evaluator_version: "1",
    metric_values: values,
    outcome: "passed",
    reason,
    evidence_refs: [],
    confidence: { value: 1, semantics: "deterministic_rule" },
    review_required: false,
    error_type: "none",
    evaluated_at: "2026-07-08T00:00:00Z",
  });
  const evaluationResults = [result("metrics", metrics)];
  if (options.rootCause) evaluationResults.push(result("root_cause", {}, `${options.rootCause}: because`));
  return { caseResult, evaluationResults, evalCase: buildCase({ case_id: caseId, risk_level: options.riskLevel ?? "P1", answerable: options.answerable ?? true }) };
}

const rules = (document: unknown) => {
  const parsed = parseGateFile(document);
  assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.error));
  return parsed.value;
};

describe("release gate", () => {
  const cases = [
    evaluated("a", { recall_at_5: 1, abstained: 0 }, { latencyMs: 100, riskLevel: "P0" }),
    evaluated("b", { recall_at_5: 0.5, abstained: 0 }, { latencyMs: 300, passed: false, rootCause: "HALLUCINATION" }),
    evaluated("c", { recall_at_5: null, abstained: 1 }, { latencyMs: 200, answerable: false }),
    evaluated("d", { recall_at_5: 1, abstained: 0 }, { latencyMs: 4000 }),
  ];

  test("per-case metrics are averaged over the cases where they apply", () => {
    const value = gateMetricValue("recall_at_5", { cases, baseline: null });
    assert.deepEqual(value, { applicable: true, value: 2.5 / 3 });
  });

  test("derived metrics: nearest-rank P95, no-answer accuracy, hallucination rate, critical case pass rate", () => {
    const context = { cases, baseline: null };
    assert.deepEqual(gateMetricValue("p95_latency_ms", context), { applicable: true, value: 4000 });
    assert.deepEqual(gateMetricValue("p50_latency_ms", context), { applicable: true, value: 200 });
    assert.deepEqual(gateMetricValue("no_answer_accuracy", context), { applicable: true, value: 1 });
    // Answers with faithfulness below 1 / answers with a faithfulness value (aggregate/dataset-shares.ts),
    // whatever the primary root cause: d failed for another reason and still has an unsupported statement.
    const judged = [
      evaluated("a", { faithfulness: 1 }),
      evaluated("b", { faithfulness: 0.5 }, { passed: false, rootCause: "HALLUCINATION" }),
      evaluated("c", { faithfulness: null }),
      evaluated("d", { faithfulness: 0.75 }, { passed: false, rootCause: "RETRIEVAL_MISS" }),
    ];
    assert.deepEqual(gateMetricValue("hallucination_rate", { cases: judged, baseline: null }), { applicable: true, value: 2 / 3 });
    assert.equal(gateMetricValue("hallucination_rate", context).applicable, false, "no answer has a faithfulness value");
    assert.deepEqual(gateMetricValue("critical_case_pass_rate", context), { applicable: true, value: 1 });
    assert.equal(gateMetricValue("overall_score_drop", context).applicable, false);
  });

  test("passes only when every rule passed; an unmeasured metric blocks unless allowed", () => {
    const passing = checkReleaseGate(rules({ retrieval: { recall_at_5: ">= 0.8" }, performance: { p95_latency_ms: "<= 5000" } }), { cases, baseline: null });
    assert.equal(passing.passed, true);
    const failing = checkReleaseGate(rules({ retrieval: { recall_at_5: ">= 0.9" } }), { cases, baseline: null });
    assert.equal(failing.passed, false);
    assert.equal(failing.rules[0]!.status, "failed");
    const unmeasured = rules({ generation: { faithfulness: ">= 0.9" } });
    const blocked = checkReleaseGate(unmeasured, { cases, baseline: null });
    assert.equal(blocked.passed, false);
    assert.equal(blocked.rules[0]!.status, "not_available");
    assert.match(blocked.rules[0]!.reason, /no case has a value for faithfulness/);
    assert.equal(checkReleaseGate(unmeasured, { cases, baseline: null }, { allowNotAvailable: true }).passed, true);
  });

  test("the heuristic judge's scores never pass a gate: a judged metric only it scored is not available; an LLM judge's score decides", () => {
    const judgement = (evaluatedCase: EvaluatedCase, semantics: "heuristic" | "judge_self_report"): EvaluatedCase => ({
      ...evaluatedCase,
      evaluationResults: [
        ...evaluatedCase.evaluationResults,
        { ...evaluatedCase.evaluationResults[0]!, evaluation_result_id: `er_judge_${semantics}`, evaluator_id: "judge.faithfulness", metric_values: { faithfulness: 1 }, confidence: { value: semantics === "heuristic" ? 0.5 : "high", semantics } },
      ],
    });
    const faithfulnessRule = rules({ generation: { faithfulness: ">= 0.9" } });
    const heuristic = checkReleaseGate(faithfulnessRule, { cases: cases.map((item) => judgement(item, "heuristic")), baseline: null });
    assert.equal(heuristic.rules[0]!.status, "not_available");
    assert.equal(heuristic.passed, false);
    assert.match(heuristic.rules[0]!.reason, /only the heuristic judge scored it, and a heuristic never decides a gate/);
    const modelJudged = checkReleaseGate(faithfulnessRule, { cases: cases.map((item) => judgement(item, "judge_self_report")), baseline: null });
    assert.equal(modelJudged.rules[0]!.status, "passed");
    assert.equal(modelJudged.rules[0]!.value, 1);
  });

  test("a heuristic rule's metric never decides: completeness is N/A with what to configure, then reads an LLM judge's completeness_judged; the seed's rule metrics decide", () => {
    // The stored names as answer.completeness and answer.fact_agreement write them; the catalog, not the result, says heuristic.
    const heuristicCases = [evaluated("h1", { completeness: 1, number_agreement: 1 }), evaluated("h2", { completeness: 1, number_agreement: 0 })];
    const gate = checkReleaseGate(rules({ generation: { completeness: ">= 0.8", p50_completeness: ">= 0.8", number_agreement: ">= 0.5" } }), { cases: heuristicCases, baseline: null });
    assert.deepEqual(gate.rules.map((rule) => [rule.rule.metric, rule.status, rule.value]), [
      ["completeness", "not_available", null],
      ["p50_completeness", "not_available", null],
      ["number_agreement", "passed", 0.5],
    ]);
    assert.equal(gate.rules[0]!.reason, "completeness = 1 was measured by a heuristic (answer.completeness), and a heuristic never decides a gate — configure an LLM judge (LOCAL-JUDGE.md): the rule then reads its completeness_judged; `ragscope serve`, where `eval --endpoint` sends its cases, judges only with RAGSCOPE_JUDGE_ENABLED=true (an in-process `eval` always judges)");
    assert.match(gate.rules[2]!.basis ?? "", /number_agreement is a heuristic match the seed defines as a rule metric, 004 §九\.1/);
    assert.equal(gate.passed, false);
    const sensitive = checkReleaseGate(rules({ boundary: { sensitive_data_in_answer: "= 0" } }), { cases: [evaluated("s1", { sensitive_data_in_answer: 0 })], baseline: null });
    assert.equal(sensitive.rules[0]!.status, "not_available");
    assert.match(sensitive.rules[0]!.reason, /a heuristic \(online\.sensitive_data\), and a heuristic never decides a gate — it stays a measurement/);

    const withJudge = heuristicCases.map((evaluatedCase, index): EvaluatedCase => ({
      ...evaluatedCase,
      evaluationResults: [...evaluatedCase.evaluationResults, { ...evaluatedCase.evaluationResults[0]!, evaluation_result_id: `er_judge_${index}`, evaluator_id: "judge.completeness_judged", metric_values: { completeness_judged: index === 0 ? 0.9 : 0.5 }, confidence: { value: "high", semantics: "judge_self_report" } }],
    }));
    const judged = checkReleaseGate(rules({ generation: { completeness: ">= 0.8" } }), { cases: withJudge, baseline: null });
    assert.equal(judged.rules[0]!.status, "failed");
    assert.equal(judged.rules[0]!.value, 0.7);
    assert.match(judged.rules[0]!.basis ?? "", /completeness is a heuristic; read as completeness_judged, an LLM judge's/);
  });

  test("a judged metric whose evaluations errored reads ERROR with counts by error type: never allowed by allowNotAvailable, undecided unless another rule failed", () => {
    const withJudge = (evaluatedCase: EvaluatedCase, judged: { value: number } | { errorType: string }): EvaluatedCase => ({
      ...evaluatedCase,
      evaluationResults: [
        ...evaluatedCase.evaluationResults,
        "value" in judged
          ? { ...evaluatedCase.evaluationResults[0]!, evaluation_result_id: "er_judge", evaluator_id: "judge.faithfulness", metric_values: { faithfulness: judged.value }, confidence: { value: "high", semantics: "judge_self_report" } }
          : { ...evaluatedCase.evaluationResults[0]!, evaluation_result_id: "er_judge", evaluator_id: "judge.faithfulness", metric_values: { faithfulness: null, judge_input_tokens: 0 }, outcome: "error", reason: `grader error (${judged.errorType}) from openai:m: the judge endpoint failed`, review_required: true, error_type: "evaluator_error", confidence: { value: 0, semantics: "judge_self_report" } },
      ],
    });
    const gate = rules({ retrieval: { recall_at_5: ">= 0.5" }, generation: { faithfulness: ">= 0.9" }, boundary: { hallucination_rate: "<= 0.5" } });
    const allErrored = [withJudge(evaluated("a", { recall_at_5: 1 }), { errorType: "http_error" }), withJudge(evaluated("b", { recall_at_5: 1 }), { errorType: "timeout" }), withJudge(evaluated("c", { recall_at_5: 1 }), { errorType: "http_error" })];
    const down = checkReleaseGate(gate, { cases: allErrored, baseline: null }, { allowNotAvailable: true });
    assert.deepEqual(down.rules.map((rule) => rule.status), ["passed", "error", "error"]);
    assert.deepEqual(down.rules[1]!.errors, { http_error: 2, timeout: 1 });
    assert.match(down.rules[1]!.reason, /evaluation errored on 3 of 3 case\(s\) — http_error: 2, timeout: 1; .*check the judge/);
    assert.deepEqual(down.counts, { passed: 1, failed: 0, not_available: 0, error: 2 });
    assert.equal(down.passed, false);
    assert.equal(down.undecided, true);
    // A rule that failed decides: blocked, not undecided.
    const failing = checkReleaseGate(rules({ retrieval: { recall_at_5: ">= 0.99" }, generation: { faithfulness: ">= 0.9" } }), { cases: allErrored.map((item) => ({ ...item, evaluationResults: [{ ...item.evaluationResults[0]!, metric_values: { recall_at_5: 0.5 } }, item.evaluationResults[1]!] })), baseline: null });
    assert.equal(failing.passed, false);
    assert.equal(failing.undecided, false);
    // One errored case of three is enough: the two measured ones (1 and 1) would pass ">= 0.9", but the errored one
    // may be the worst answer (a judge declining exactly the wrong one), so the mean of the rest cannot stand for the run.
    const mostMeasured = [withJudge(evaluated("a", {}), { value: 1 }), withJudge(evaluated("b", {}), { value: 1 }), withJudge(evaluated("c", {}), { errorType: "refusal" })];
    const oneErrored = checkReleaseGate(rules({ generation: { faithfulness: ">= 0.9" } }), { cases: mostMeasured, baseline: null }, { allowNotAvailable: true });
    assert.equal(oneErrored.rules[0]!.status, "error");
    assert.match(oneErrored.rules[0]!.reason, /errored on 1 of 3 case\(s\) \(2 measured\) — refusal: 1/);
    assert.equal(oneErrored.passed, false);
    assert.equal(oneErrored.undecided, true);
    const mostErrored = [withJudge(evaluated("a", {}), { value: 1 }), withJudge(evaluated("b", {}), { errorType: "http_error" }), withJudge(evaluated("c", {}), { errorType: "http_error" })];
    assert.equal(checkReleaseGate(rules({ generation: { faithfulness: ">= 0.9" } }), { cases: mostErrored, baseline: null }).rules[0]!.status, "error");
  });

  test("a rule evaluator's error (not a judge's) also reads ERROR, and its hint does not send the user to the judge", () => {
    const erroredRanking = (id: string): EvaluatedCase => {
      const base = evaluated(id, {});
      return { ...base, evaluationResults: [{ ...base.evaluationResults[0]!, evaluator_id: "retrieval.ranking", metric_values: { recall_at_5: null }, outcome: "error", reason: "invalid evidence: chunk c1 listed twice", error_type: "invalid_evidence" }] };
    };
    const gate = checkReleaseGate(rules({ retrieval: { recall_at_5: ">= 0.9" } }), { cases: [evaluated("a", { recall_at_5: 1 }), erroredRanking("b")], baseline: null });
    assert.equal(gate.rules[0]!.status, "error");
    assert.match(gate.rules[0]!.reason, /errored on 1 of 2 case\(s\) \(1 measured\) — invalid_evidence: 1/);
    assert.doesNotMatch(gate.rules[0]!.reason, /judge/);
  });

  test("pNN_ and average_ forms of a stored metric are checked: average_latency_ms (10+20+60)/3 = 30, p50_token_f1 of 0.2, 0.5, 0.9 = 0.5 (nearest rank 2 of 3)", () => {
    const cases = [evaluated("a", { latency_ms: 10, token_f1: 0.9 }), evaluated("b", { latency_ms: 20, token_f1: 0.2 }), evaluated("c", { latency_ms: 60, token_f1: 0.5 })];
    const gate = checkReleaseGate(rules({ performance: { average_latency_ms: "<= 25" }, generation: { mean_token_f1: ">= 0.5", p50_token_f1: ">= 0.5" } }), { cases, baseline: null });
    assert.deepEqual(gate.rules.map((rule) => [rule.rule.metric, rule.status, rule.value]), [
      ["average_latency_ms", "failed", 30],
      ["mean_token_f1", "passed", (0.9 + 0.2 + 0.5) / 3],
      ["p50_token_f1", "passed", 0.5],
    ]);
  });

  test("no-answer accuracy that cannot be measured says why: no unanswerable case, no Eval Case linked, or no abstention recorded", () => {
    const reasonOf = (cases: EvaluatedCase[]) => {
      const value = gateMetricValue("no_answer_accuracy", { cases, baseline: null });
      assert.equal(value.applicable, false);
      return value.applicable ? "" : value.reason;
    };
    assert.match(reasonOf([evaluated("a", { abstained: 0 })]), /^the run has no unanswerable case \(answerable: false\)$/);
    assert.match(reasonOf([{ ...evaluated("a", { abstained: 0 }), evalCase: null }]), /no case is linked to an Eval Case/);
    const unrecorded = evaluated("u", {}, { answerable: false });
    assert.match(reasonOf([{ ...unrecorded, caseResult: { ...unrecorded.caseResult, rag_observation: { ...unrecorded.caseResult.rag_observation, abstained: null } } }]), /none of its 1 unanswerable case\(s\) recorded whether it abstained/);
  });

  test("overall_score_drop compares the cases both runs ran: dropping a failing case from the dataset does not hide a regression", () => {
    // Every term of the weighted score at one value v gives a composite of v, whatever the weights (they sum to 1);
    // Comp reads the LLM judge's completeness_judged (a score missing a term is not measured).
    const scored = (caseId: string, value: number, caseVersion = "1") => {
      const item = evaluated(caseId, { answer_relevance: value, faithfulness: value, answer_correctness: value, completeness_judged: value, citation_accuracy: value });
      return { ...item, caseResult: { ...item.caseResult, case_version: caseVersion } };
    };
    // The baseline ran a (1.0) and b (0.0); the new dataset version leaves b out, and a fell to 0.5. Over the whole
    // runs both composites are 0.5 (no drop); over the case both ran it fell from 1.0 to 0.5.
    const drop = gateMetricValue("overall_score_drop", { cases: [scored("a", 0.5)], baseline: [scored("a", 1), scored("b", 0)] });
    assert.deepEqual(drop, { applicable: true, value: 0.5 });
    const gate = checkReleaseGate(rules({ regression: { overall_score_drop: "<= 0.02" } }), { cases: [scored("a", 0.5)], baseline: [scored("a", 1), scored("b", 0)] });
    assert.equal(gate.rules[0]!.status, "failed");
    // A case whose case_version changed is another case: with no case in both, there is nothing to compare.
    const none = gateMetricValue("overall_score_drop", { cases: [scored("a", 1, "2")], baseline: [scored("a", 1, "1")] });
    assert.equal(none.applicable, false);
    assert.match(!none.applicable ? none.reason : "", /the baseline ran none of this run's cases/);
  });

  test("a pNN_ gate reads rank ⌈NN·n/100⌉: p7_latency_ms of 100 cases is the 7th latency, not the 8th", () => {
    // (7 / 100) · 100 is 7.000000000000001 in binary floating point; the rank must come from exact arithmetic
    // (test/data/numpy/README.md). Latencies 1..100 ms and token_f1 0.01..1.00, shuffled; p7_latency_ms reads the
    // stored latency_ms metric, p95_latency_ms the trace's latency (gate-metrics.ts).
    const hundred = Array.from({ length: 100 }, (_, index) => (index * 37) % 100).map((position) => evaluated(`case-${position}`, { token_f1: (position + 1) / 100, latency_ms: position + 1 }, { latencyMs: position + 1 }));
    assert.deepEqual(gateMetricValue("p7_latency_ms", { cases: hundred, baseline: null }), { applicable: true, value: 7 });
    assert.deepEqual(gateMetricValue("p14_token_f1", { cases: hundred, baseline: null }), { applicable: true, value: 0.14 });
    assert.deepEqual(gateMetricValue("p95_latency_ms", { cases: hundred, baseline: null }), { applicable: true, value: 95 });
  });

  test("critical_case_pass_rate counts the cases the veto counts: P0, and metadata.veto: true", () => {
    const flagged = (caseId: string, passed: boolean): EvaluatedCase => {
      const base = evaluated(caseId, {}, { passed });
      return { ...base, evalCase: { ...base.evalCase!, metadata: { ...base.evalCase!.metadata, veto: true } } };
    };
    // One P0 case passed, one P0 case and one metadata.veto case failed: 1 of 3 (it read 0.5, the flagged case left out).
    const run = [evaluated("p0_passed", {}, { riskLevel: "P0" }), evaluated("p0_failed", {}, { riskLevel: "P0", passed: false }), flagged("flag_failed", false), evaluated("ordinary", {})];
    assert.deepEqual(gateMetricValue("critical_case_pass_rate", { cases: run, baseline: null }), { applicable: true, value: 1 / 3 });
    assert.deepEqual(gateMetricValue("critical_case_pass_rate", { cases: [flagged("flag_passed", true)], baseline: null }), { applicable: true, value: 1 });
  });

  test("empty runs and empty baselines give not-available values, never NaN", () => {
    for (const name of ["recall_at_5", "p95_latency_ms", "error_rate", "average_cost", "no_answer_accuracy", "hallucination_rate", "permission_leak_rate", "composite_score", "critical_case_pass_rate", "overall_score_drop", "task_success_rate"]) {
      const value = gateMetricValue(name, { cases: [], baseline: [] });
      assert.equal(value.applicable, false, name);
    }
  });
});

describe("average_cost over part of the run", () => {
  /** A request that called a model (its generate stage and model recorded) with the given cost, or none recorded. */
  function priced(caseId: string, cost: number | null): EvaluatedCase {
    const item = evaluated(caseId, {});
    item.caseResult.rag_observation.generation = { ...item.caseResult.rag_observation.generation, model: "m", cost };
    return item;
  }
  const gate = rules({ performance: { average_cost: "<= 0.05" } });

  test("1 of 3 requests priced at 0.003: the mean would meet <= 0.05, but two calls' cost is not known — not measured, saying which part", () => {
    const [rule] = checkReleaseGate(gate, { cases: [priced("a", 0.003), priced("b", null), priced("c", null)], baseline: null }).rules;
    assert.equal(rule!.status, "not_available");
    assert.equal(
      rule!.reason,
      "average_cost = 0.003 would meet <= 0.05, but it is the mean of 1 of 3 requests: 2 called a model and recorded no cost, and what they cost is not known — record each generation's cost (traceGenerate's cost): a value over part of the run is not its value — give --allow-missing to pass without this rule",
    );
  });

  test("a mean of the priced requests that already misses the threshold fails, with the same note", () => {
    const [rule] = checkReleaseGate(gate, { cases: [priced("a", 0.2), priced("b", null)], baseline: null }).rules;
    assert.equal(rule!.status, "failed");
    assert.match(rule!.reason, /^average_cost = 0\.2 misses <= 0\.05 \(the mean of 1 of 2 requests: 1 called a model and recorded no cost/);
  });

  test("every request priced: the mean decides", () => {
    const [rule] = checkReleaseGate(gate, { cases: [priced("a", 0.01), priced("b", 0.03)], baseline: null }).rules;
    assert.equal(rule!.status, "passed");
    assert.equal(rule!.value, 0.02);
  });
});
