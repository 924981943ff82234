import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { contextSufficiencyEvaluator, sufficiencyLevel } from "../../../../evaluators/rules/context-sufficiency.js";
import { buildCase } from "../../../support/case-results.js";
import { caseResultWith, valueOf } from "./build-case-result.js";

const evalCase = buildCase({
  gold_evidence: [
    { document_id: "d", section_id: "s1" },
    { document_id: "d", section_id: "s2" },
    { document_id: "d", section_id: "s3" },
  ],
});
const retrieved = ["s1", "s2", "s3"].map((section) => ({ chunk_id: section, document_id: "d", section_id: section }));

describe("context.sufficiency", () => {
  test("levels: all → 3, two thirds → 2, some → 1, none → 0", () => {
    const level = (packed: string[]) => valueOf(contextSufficiencyEvaluator.evaluate({ caseResult: caseResultWith({ retrieved, packed }), evalCase }).values, "context_sufficiency");
    assert.equal(level(["s1", "s2", "s3"]), 3);
    assert.equal(level(["s1", "s2"]), 2);
    assert.equal(level(["s3"]), 1);
    assert.equal(level([]), 0);
    assert.equal(sufficiencyLevel(0.7), 2);
    assert.equal(sufficiencyLevel(0.6), 1);
  });

  test("a heuristic proxy; not applicable where context recall is", () => {
    assert.equal(contextSufficiencyEvaluator.confidence, "heuristic");
    assert.equal(valueOf(contextSufficiencyEvaluator.evaluate({ caseResult: caseResultWith({ retrieved, packed: ["s1"] }), evalCase: null }).values, "context_sufficiency"), null);
    assert.equal(valueOf(contextSufficiencyEvaluator.evaluate({ caseResult: caseResultWith({ retrieved }), evalCase }).values, "context_sufficiency"), null);
    assert.equal(valueOf(contextSufficiencyEvaluator.evaluate({ caseResult: caseResultWith({ retrieved, packed: ["s1"] }), evalCase: buildCase() }).values, "context_sufficiency"), null);
  });
});
