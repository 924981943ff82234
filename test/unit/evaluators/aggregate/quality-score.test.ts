import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compositeScore } from "../../../../evaluators/aggregate/composite-score.js";
import { checkHardGates } from "../../../../evaluators/aggregate/hard-gates.js";
import { noAnswerAccuracy } from "../../../../evaluators/aggregate/no-answer-accuracy.js";
import { qualityScore } from "../../../../evaluators/aggregate/quality-score.js";
import { summarizeRun } from "../../../../evaluators/aggregate/run-summary.js";
import { applicable, notApplicable, type MetricValue } from "../../../../evaluators/metric-value.js";
import { buildCase } from "../../../support/case-results.js";
import { evaluatedRequest, storedResult } from "./evaluated-cases.js";

const valueOf = (value: MetricValue) => (value.applicable ? value.value : null);
const close = (actual: number | null, expected: number) => assert.ok(actual !== null && Math.abs(actual - expected) < 1e-12, `${actual} != ${expected}`);

describe("composite score", () => {
  test("all terms: 0.25·0.8 + 0.25·0.9 + 0.25·0.7 + 0.15·1 + 0.10·0.5 = 0.80", () => {
    const score = compositeScore({ R: applicable(0.8), F: applicable(0.9), C: applicable(0.7), Comp: applicable(1), Cit: applicable(0.5) });
    close(valueOf(score.score), 0.8);
    assert.equal(score.renormalised, false);
    assert.deepEqual(score.missingTerms, []);
  });

  test("missing judge terms: renormalised over Comp and Cit, and says so", () => {
    const score = compositeScore({ Comp: applicable(1), Cit: applicable(0.5) });
    // (0.15·1 + 0.10·0.5) / 0.25 = 0.8
    close(valueOf(score.score), 0.8);
    assert.equal(score.renormalised, true);
    assert.deepEqual(score.missingTerms, ["R", "F", "C"]);
    close(score.coveredWeight, 0.25);
    assert.match(score.note, /renormalised.*missing: R \(answer_relevance\), F \(faithfulness\), C \(answer_correctness\)/);
  });

  test("no term: not applicable", () => {
    const score = compositeScore({ R: notApplicable("no judge") });
    assert.equal(valueOf(score.score), null);
    assert.equal(score.missingTerms.length, 5);
  });
});

describe("hard gates", () => {
  test("each gate passes, fails or is not available", () => {
    const gates = checkHardGates({ faithfulness: applicable(0.95), answer_correctness: applicable(0.8), recall_at_5: applicable(0.9), p95_latency_ms: applicable(5000.5) });
    assert.deepEqual(
      gates.map((gate) => [gate.gate, gate.status]),
      [
        ["faithfulness", "pass"],
        ["answer_correctness", "fail"],
        ["no_answer_accuracy", "not_available"],
        ["recall_at_5", "pass"],
        ["p95_latency_ms", "fail"],
      ],
    );
  });
});

describe("dataset quality score", () => {
  const unanswerable = buildCase({ answerable: false });
  const cases = [
    evaluatedRequest({ id: "a", metrics: { completeness_judged: 1, citation_accuracy: 1, recall_at_5: 1, faithfulness: 1 }, observation: { latency_ms: 1200 } }),
    evaluatedRequest({ id: "b", metrics: { completeness_judged: 0.5, citation_accuracy: null, recall_at_5: 0.5, faithfulness: 0.8 }, observation: { latency_ms: 6000 } }),
    evaluatedRequest({ id: "c", metrics: { abstained: 1 }, evalCase: unanswerable, observation: { latency_ms: 800 } }),
    evaluatedRequest({ id: "d", observation: { abstained: false, latency_ms: 900 }, evalCase: unanswerable }),
  ];

  test("terms are means over the cases where the metric applies; gates come with the score", () => {
    const quality = qualityScore(cases);
    // F = 0.9, Comp = 0.75 (an LLM judge's completeness), Cit = 1 (b's null is left out); R and C missing.
    // (0.25·0.9 + 0.15·0.75 + 0.10·1) / 0.5 = 0.875
    close(valueOf(quality.composite.score), 0.875);
    assert.deepEqual(quality.composite.missingTerms, ["R", "C"]);
    const gates = Object.fromEntries(quality.gates.map((gate) => [gate.gate, gate]));
    close(valueOf(gates.faithfulness!.value), 0.9);
    assert.equal(gates.faithfulness!.status, "pass");
    assert.equal(gates.answer_correctness!.status, "not_available");
    // c abstained on an unanswerable case (stored metric), d answered one (trace flag): 1 of 2.
    close(valueOf(gates.no_answer_accuracy!.value), 0.5);
    assert.equal(gates.no_answer_accuracy!.status, "fail");
    close(valueOf(gates.recall_at_5!.value), 0.75);
    // P95 of [800, 900, 1200, 6000] is the 4th value.
    assert.equal(valueOf(gates.p95_latency_ms!.value), 6000);
    assert.equal(quality.gatesPassed, false);
  });

  test("the heuristic completeness (key points by text overlap) is no term of the score: Comp reads an LLM judge's completeness_judged, else it is missing and says why", () => {
    const heuristicOnly = [
      evaluatedRequest({ id: "h1", metrics: { completeness: 1, citation_accuracy: 0.5 } }),
      evaluatedRequest({ id: "h2", metrics: { completeness: 1, citation_accuracy: 0.5 } }),
    ];
    const quality = qualityScore(heuristicOnly);
    // Cit alone: 0.10·0.5 / 0.10 = 0.5 — the heuristic's 1.0 would have made it (0.15·1 + 0.10·0.5) / 0.25 = 0.8.
    close(valueOf(quality.composite.score), 0.5);
    assert.deepEqual(quality.composite.missingTerms, ["R", "F", "C", "Comp"]);
    const comp = quality.composite.terms.find((term) => term.term === "Comp")!;
    assert.equal(comp.value.applicable, false);
    assert.match(comp.value.applicable ? "" : comp.value.reason, /completeness is measured by a heuristic \(answer\.completeness\), which takes no part in a decision, and no LLM judge scored completeness_judged — configure an LLM judge/);
    const judged = qualityScore(heuristicOnly.map((evaluated, index) => ({ ...evaluated, evaluationResults: [...evaluated.evaluationResults, storedResult(evaluated.caseResult.case_result_id, "judge.completeness_judged", { completeness_judged: index === 0 ? 0.6 : 0.8 })] })));
    close(valueOf(judged.composite.terms.find((term) => term.term === "Comp")!.value), 0.7);
  });

  test("a metric name can be mapped to the pipeline's own", () => {
    const quality = qualityScore([evaluatedRequest({ id: "x", metrics: { helpfulness: 0.4 } })], { metricNames: { R: "helpfulness" } });
    close(valueOf(quality.composite.terms.find((term) => term.term === "R")!.value), 0.4);
  });

  test("no-answer accuracy needs the Eval Cases; an empty run has nothing applicable", () => {
    assert.equal(valueOf(noAnswerAccuracy([evaluatedRequest({ id: "y", metrics: { abstained: 1 } })]).value), null);
    const summary = summarizeRun([]);
    assert.equal(summary.requests, 0);
    assert.equal(valueOf(summary.quality.composite.score), null);
    assert.ok(summary.quality.gates.every((gate) => gate.status === "not_available"));
    assert.equal(valueOf(summary.taskSuccess.rate), null);
  });
});
