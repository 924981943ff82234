import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createDefaultRegistry } from "../../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../../evaluators/evaluate-case-result.js";
import { citationFreshnessEvaluator } from "../../../../evaluators/rules/citation-freshness.js";
import { buildCase } from "../../../support/case-results.js";
import { caseResultWith, valueOf } from "./build-case-result.js";

const evalCase = buildCase({ environment_requirements: { effective_at: "2026-07-08" } });
const retrieved = [
  { chunk_id: "v1", effective_from: "2025-01-01", effective_to: "2026-06-30" },
  { chunk_id: "v2", effective_from: "2026-07-01" },
  { chunk_id: "plain" },
];

describe("citation.freshness", () => {
  test("hand-worked: citing the expired version is 1 of 2 dated citations", () => {
    const { values, evidence } = citationFreshnessEvaluator.evaluate({ caseResult: caseResultWith({ retrieved, citations: ["v1", "v2", "plain"] }), evalCase });
    assert.equal(valueOf(values, "citation_expired_rate"), 0.5);
    assert.deepEqual(evidence, ["v1"]);
  });

  test("an expired citation fails the case; citation_validity alone still passes it (packed and cited)", () => {
    const caseResult = caseResultWith({ retrieved, packed: ["v1"], citations: ["v1"] });
    const results = evaluateCaseResult(createDefaultRegistry(), caseResult, evalCase, "2026-07-08T10:00:00Z").evaluationResults;
    const byId = Object.fromEntries(results.map((result) => [result.evaluator_id, result]));
    assert.equal(byId["citation.freshness"]!.outcome, "failed");
    assert.equal(byId["citation.freshness"]!.metric_values.citation_expired_rate, 1);
    assert.equal(byId["citation.accuracy"]!.metric_values.citation_validity, 1);
  });

  test("not applicable: no citation stage, no citations, no dated citation", () => {
    for (const citations of [null, [], ["plain"], ["not-retrieved"]]) {
      assert.equal(valueOf(citationFreshnessEvaluator.evaluate({ caseResult: caseResultWith({ retrieved, citations }), evalCase }).values, "citation_expired_rate"), null);
    }
  });

  test("a citation whose bound is not a date is neither in force nor expired, and is named", () => {
    // "from" in a local format beside an end date still to come read as open: the version counted as in force.
    const mistyped = [...retrieved, { chunk_id: "v3", effective_from: "07/01/2026", effective_to: "2027-01-01" }];
    const { values, reason } = citationFreshnessEvaluator.evaluate({ caseResult: caseResultWith({ retrieved: mistyped, citations: ["v1", "v3"] }), evalCase });
    assert.equal(valueOf(values, "citation_expired_rate"), 1, "v1 alone is dated");
    assert.match(reason, /1 chunk\(s\) carry an effective time that is not a date \(v3 \[07\/01\/2026 – 2027-01-01\]\)/);
    const alone = citationFreshnessEvaluator.evaluate({ caseResult: caseResultWith({ retrieved: mistyped, citations: ["v3"] }), evalCase });
    assert.equal(valueOf(alone.values, "citation_expired_rate"), null, "not passed as in force");
  });
});
