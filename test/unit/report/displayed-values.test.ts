/**
 * Acceptance: the report, the run summary and the evaluation reasons print a
 * ranking value as trec_eval does (4 decimals, exact binary halves to the even
 * digit): a reciprocal rank of 1/32 reads 0.0312, not 0.0313.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formatSummary } from "../../../report/format-summary.js";
import { formatValue, measuredNumber } from "../../../report/format-value.js";
import { number as experimentNumber } from "../../../evaluators/experiments/format-experiment-report.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";

describe("displayed values round as trec_eval prints them", () => {
  test("report values (unit none, default 4 decimals) and percentages", () => {
    assert.equal(formatValue(0.03125, "none"), "0.0312");
    assert.equal(formatValue(0.09375, "none"), "0.0938");
    assert.equal(formatValue(0.15625, "none"), "0.1562");
    assert.equal(formatValue(0.03125, "percentunit", 2), "3.12%");
  });

  test("a value below 1 never reads with one significant digit where its decimals would round it far off", () => {
    // A stat panel's two decimals read a mean cost of 0.00575 as 0.01, 74 % more than measured.
    assert.equal(formatValue(0.00575, "none", 2), "0.0057");
    assert.equal(formatValue(0.054, "short", 2), "0.054");
    assert.equal(formatValue(0.00027, "none", 4), "0.00027");
    assert.equal(formatValue(0.0044, "percentunit", 1), "0.44%");
    // Two or more significant digits, or a value with one, are as before.
    assert.equal(formatValue(0.05, "none", 2), "0.05");
    assert.equal(formatValue(0.125, "none", 2), "0.12");
    assert.equal(formatValue(0.125, "percentunit", 1), "12.5%");
  });

  test("Grafana's custom suffix unit: spans per second read as spans, not requests", () => {
    assert.equal(formatValue(0.58, "suffix: spans/s"), "0.58 spans/s");
    assert.equal(formatValue(1234.5, "suffix: traces/s"), "1234.5 traces/s");
  });

  test("the run summary prints averages with 4 decimals, halves to even", () => {
    const text = formatSummary(
      { runId: "r", cases: 1, passed: 1, failed: 0, reviewRequired: 0, unjudged: 0, notEvaluated: 0, partial: 0, failures: [], metrics: [{ metric: "mrr", evaluatorId: "retrieval.ranking", mean: 0.03125, applicable: 1, notApplicable: 0 }] },
      "store",
    );
    assert.match(text, /mrr\s+0\.0312\s+n=1/);
  });

  test("a tiny mean cost reads with two significant digits in the terminal's outputs, as the report prints it, not 0.0000", () => {
    assert.equal(formatValue(0.0000217, "none"), "0.000022");
    assert.equal(measuredNumber(0.0000217), "0.000022", "gate and eval rule lines");
    assert.equal(experimentNumber(0.0000217), "0.000022", "ragscope experiment report and the web UI's experiments page");
    assert.equal(experimentNumber(-0.0000217), "-0.000022");
    const text = formatSummary({ runId: "r", cases: 1, passed: 1, failed: 0, reviewRequired: 0, unjudged: 0, notEvaluated: 0, partial: 0, failures: [], metrics: [{ metric: "cost", evaluatorId: "engineering.usage", mean: 0.0000217, applicable: 1, notApplicable: 0 }] }, "store");
    assert.match(text, /cost\s+0\.000022\s+n=1/, "the demo's summary");
  });

  test("a zero among the two significant digits stays: 0.000102 reads 0.00010, not 0.0001 (one digit, 2 % off)", () => {
    assert.equal(formatValue(0.00010233, "none"), "0.00010");
    assert.equal(formatValue(0.00010233, "none", 4), "0.00010", "a panel's 4 decimals drop only the zeros that pad");
    assert.equal(measuredNumber(0.00010233), "0.00010", "gate and eval rule lines");
    assert.equal(experimentNumber(0.00010233), "0.00010", "ragscope experiment report and the web UI's experiments page");
    const text = formatSummary({ runId: "r", cases: 1, passed: 1, failed: 0, reviewRequired: 0, unjudged: 0, notEvaluated: 0, partial: 0, failures: [], metrics: [{ metric: "cost", evaluatorId: "engineering.usage", mean: 0.00010233, applicable: 1, notApplicable: 0 }] }, "store");
    assert.match(text, /cost\s+0\.00010\s+n=1/, "the demo's summary");
    // A value that is exactly what it reads has no zero to keep.
    assert.equal(formatValue(0.002, "none", 2), "0.002");
    assert.equal(measuredNumber(0.0001), "0.0001");
  });

  test("a value off what it reads only in floating point's last bits has no zero to keep: 0.1 + 0.2 reads 0.3, as 0.3 does", () => {
    assert.equal(formatValue(0.1 + 0.2, "none"), "0.3");
    assert.equal(formatValue(0.8000000000000002, "none", 4), "0.8");
    assert.equal(measuredNumber(0.1 + 0.2), measuredNumber(0.3));
    assert.equal(experimentNumber(0.00030000000000000003), "0.0003");
  });

  test("a failed threshold names the value as trec_eval would print it", () => {
    const chunks = Array.from({ length: 32 }, (_, index) => ({ chunk_id: `c${index + 1}`, document_id: `doc${index + 1}`, text: `text ${index + 1}` }));
    const evalCase = buildCase({ gold_evidence: [{ document_id: "doc32", chunk_id: "c32" }], rubric: { mrr: ">= 0.5" } });
    const evaluation = evaluateCaseResult(createDefaultRegistry(), buildCaseResult({ retrieved: chunks }), evalCase, "2026-07-08T09:32:01Z");
    const ranking = evaluation.evaluationResults.find((result) => result.evaluator_id === "retrieval.ranking")!;
    assert.equal(ranking.metric_values.mrr, 1 / 32);
    assert.match(ranking.reason, /mrr = 0\.0312 \(needs >= 0\.5\)/);
  });
});
