/**
 * Seed §六 / §七 end-to-end scores of a run, against values worked by hand:
 * task success rate, the weighted overall score with the gate file's
 * score_weights (and the seed's when it gives none), the hard thresholds
 * beside it, cost per successful task; and the gate file's score_weights
 * contract.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parse } from "yaml";
import { parseGateDocument, parseGateFile } from "../../../contracts/gate-file.js";
import { checkReleaseGate } from "../../../evaluators/gates/release-gate.js";
import { endToEndScores } from "../../../experiments/end-to-end-scores.js";
import { evaluatedRequest } from "../evaluators/aggregate/evaluated-cases.js";

const usage = (cost: number) => ({ model: null, input_tokens: null, output_tokens: null, total_tokens: null, cost, time_to_first_token_ms: null });
const close = (actual: number | null, expected: number) => assert.ok(actual !== null && Math.abs(actual - expected) < 1e-12, `${actual} != ${expected}`);
const valueOf = (value: { applicable: boolean; value?: number }) => (value.applicable ? value.value! : null);

// Four cases: two passed, one failed, one unjudged (left out of the task success rate).
const cases = [
  evaluatedRequest({ id: "a", fields: { quality_status: "passed" }, observation: { generation: usage(0.02), latency_ms: 1000 }, metrics: { answer_relevance: 1, faithfulness: 1, answer_correctness: 1, completeness_judged: 1, citation_accuracy: 1, recall_at_5: 1 } }),
  evaluatedRequest({ id: "b", fields: { quality_status: "passed" }, observation: { generation: usage(0.03), latency_ms: 2000 }, metrics: { answer_relevance: 0.8, faithfulness: 0.9, answer_correctness: 0.6, completeness_judged: 0.5, citation_accuracy: 0.5, recall_at_5: 1 } }),
  evaluatedRequest({ id: "c", fields: { quality_status: "failed" }, observation: { generation: usage(0.04), latency_ms: 3000 }, metrics: { answer_relevance: 0.6, faithfulness: 0.5, answer_correctness: 0.2, completeness_judged: 0, citation_accuracy: 0.5, recall_at_5: 0 } }),
  evaluatedRequest({ id: "d", fields: { quality_status: "unjudged" }, observation: { generation: usage(0.01), latency_ms: 4000 } }),
];
// Means over the cases that carry each metric (a, b, c):
//   R = (1 + 0.8 + 0.6) / 3 = 0.8      F = (1 + 0.9 + 0.5) / 3 = 0.8     C = (1 + 0.6 + 0.2) / 3 = 0.6
//   Comp = (1 + 0.5 + 0) / 3 = 0.5     Cit = (1 + 0.5 + 0.5) / 3 = 2/3   recall_at_5 = 2/3

describe("end-to-end scores (seed §六, §七)", () => {
  test("task success rate: 2 passed of 3 with a verdict; the unjudged case is left out, not counted as a failure or a pass", () => {
    const scores = endToEndScores(cases, null);
    close(valueOf(scores.taskSuccess.rate), 2 / 3);
    assert.equal(scores.taskSuccess.succeeded, 2);
    assert.equal(scores.taskSuccess.judged, 3);
    assert.equal(scores.taskSuccess.unjudged, 1);
  });

  test("overall score with the seed's weights: 0.25·0.8 + 0.25·0.8 + 0.25·0.6 + 0.15·0.5 + 0.10·(2/3) = 0.691666…", () => {
    const scores = endToEndScores(cases, null);
    assert.equal(scores.weightsFrom, "seed default");
    close(valueOf(scores.quality.composite.score), 0.2 + 0.2 + 0.15 + 0.075 + 0.2 / 3);
  });

  test("overall score with the gate file's weights 0.1/0.4/0.3/0.2/0: 0.08 + 0.32 + 0.18 + 0.10 = 0.68, citation left out", () => {
    const document = parseGateDocument(parse("score_weights:\n  answer_relevance: 0.1\n  faithfulness: 0.4\n  answer_correctness: 0.3\n  completeness: 0.2\n  citation_accuracy: 0\n"));
    assert.ok(document.ok);
    const scores = endToEndScores(cases, document.value.scoreWeights);
    assert.equal(scores.weightsFrom, "gate file score_weights");
    close(valueOf(scores.quality.composite.score), 0.68);
    assert.deepEqual(scores.quality.composite.terms.map((term) => term.term), ["R", "F", "C", "Comp"]);
    assert.equal(scores.quality.composite.renormalised, false);
  });

  test("the hard thresholds travel with the score: F 0.8 < 0.90 fails, C 0.6 < 0.85 fails, recall@5 2/3 fails, P95 4000 ms passes, no-answer accuracy not measured", () => {
    const gates = endToEndScores(cases, null).quality.gates;
    assert.deepEqual(
      gates.map((gate) => [gate.gate, gate.status]),
      [
        ["faithfulness", "fail"],
        ["answer_correctness", "fail"],
        ["no_answer_accuracy", "not_available"],
        ["recall_at_5", "fail"],
        ["p95_latency_ms", "pass"],
      ],
    );
  });

  test("cost per successful task: (0.02 + 0.03 + 0.04 + 0.01) / 2 successes = 0.05", () => {
    const scores = endToEndScores(cases, null);
    close(valueOf(scores.totalCost), 0.1);
    close(valueOf(scores.costPerSuccessfulTask), 0.05);
    assert.equal(endToEndScores([cases[2]!], null).costPerSuccessfulTask.applicable, false);
  });

  test("overall_score_drop compares both runs with the gate file's weights", () => {
    const baseline = [evaluatedRequest({ id: "base", fields: { quality_status: "passed" }, metrics: { answer_relevance: 1, faithfulness: 1, answer_correctness: 1, completeness_judged: 1, citation_accuracy: 0 } })];
    const rules = parseGateFile(parse('regression:\n  overall_score_drop: "<= 0.02"\n'));
    assert.ok(rules.ok);
    const weights = { answer_relevance: 0.1, faithfulness: 0.4, answer_correctness: 0.3, completeness: 0.2, citation_accuracy: 0 };
    // Baseline 1.0 (citation weighs nothing) − this run 0.68 = 0.32; with the seed's weights the baseline is 0.9.
    close(checkReleaseGate(rules.value, { cases, baseline, scoreWeights: weights }).rules[0]!.value, 1 - 0.68);
    close(checkReleaseGate(rules.value, { cases, baseline }).rules[0]!.value, 0.9 - (0.2 + 0.2 + 0.15 + 0.075 + 0.2 / 3));
  });
});

describe("gate file score_weights", () => {
  test("weights that do not sum to 1, an unknown metric, a missing term or a weight above 1 are refused with their path", () => {
    const problems = (text: string) => {
      const parsed = parseGateDocument(parse(text));
      assert.equal(parsed.ok, false);
      return parsed.ok ? [] : parsed.error.map((problem) => `${problem.path}: ${problem.message}`);
    };
    assert.match(problems("score_weights: { answer_relevance: 0.3, faithfulness: 0.3, answer_correctness: 0.3, completeness: 0.3, citation_accuracy: 0 }").join("\n"), /score_weights: the weights sum to 1\.2; they must sum to 1/);
    assert.match(problems("score_weights: { answer_relevance: 0.25, faithfulness: 0.25, answer_correctness: 0.25, completeness: 0.15, citation_accuracy: 0.1, fluency: 0 }").join("\n"), /score_weights/);
    assert.match(problems("score_weights: { answer_relevance: 0.5, faithfulness: 0.5 }").join("\n"), /score_weights\.answer_correctness/);
    assert.match(problems("score_weights: { answer_relevance: 2, faithfulness: -1, answer_correctness: 0, completeness: 0, citation_accuracy: 0 }").join("\n"), /score_weights\.answer_relevance: must be from 0 to 1/);
  });

  test("a gate file with score_weights still gives its rules to every reader of gate files (parseGateFile)", () => {
    const parsed = parseGateFile(parse('score_weights: { answer_relevance: 0.25, faithfulness: 0.25, answer_correctness: 0.25, completeness: 0.15, citation_accuracy: 0.1 }\nretrieval:\n  recall_at_5: ">= 0.9"\n'));
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.map((rule) => rule.metric), ["recall_at_5"]);
  });
});
