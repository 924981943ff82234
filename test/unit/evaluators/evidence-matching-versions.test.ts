/**
 * Evaluators whose values changed when evidence matching moved from
 * containment to coverage carry a new version, so their stored results (the
 * Evaluation Result id includes the version) are told apart from those of the
 * containment definition; evaluators untouched by the change keep theirs.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { evaluationResultIdFor } from "../../../contracts/ids.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";

const COVERAGE_MATCHED = ["citation.accuracy", "citation.evidence", "context.coverage", "context.density", "context.truncation", "retrieval.coverage", "retrieval.ranking", "retrieval.uplift"];

describe("evaluator versions after coverage-based evidence matching", () => {
  test("every evaluator matching evidence by coverage is at version 2 or later; context.redundancy (packed chunks only) stays at 1", () => {
    const versions = new Map(createDefaultRegistry().list().map((evaluator) => [evaluator.id, evaluator.version]));
    // context.coverage and context.density moved on to 3: a chunk cut to fit the budget is read by what the context text kept;
    // context.coverage to 4: context_precision is not scored over a packed list that names a chunk twice;
    // Then each one more: evidence given with its document id and its text is matched by its text within the document
    // (citation.accuracy also counts a chunk cited several times once, retrieval.ranking's recall every piece a chunk holds).
    // retrieval.ranking, retrieval.coverage and retrieval.uplift to 4: a case naming relevant documents only is scored per
    // document (evaluators/evidence/case-gold-evidence.ts); the context and citation evaluators, which leave it not
    // applicable as before, keep theirs.
    const later: Record<string, string> = { "context.coverage": "5", "context.density": "4", "retrieval.ranking": "4", "retrieval.coverage": "4", "retrieval.uplift": "4" };
    for (const id of COVERAGE_MATCHED) assert.equal(versions.get(id), later[id] ?? "3", id);
    assert.equal(versions.get("context.redundancy"), "1");
  });

  test("the stored Evaluation Result carries the version, and its id differs from the version-1 result's", () => {
    const evaluation = evaluateCaseResult(createDefaultRegistry(), buildCaseResult(), buildCase(), "2026-07-08T10:00:00.000Z");
    const ranking = evaluation.evaluationResults.find((result) => result.evaluator_id === "retrieval.ranking");
    assert.ok(ranking, "retrieval.ranking ran");
    assert.equal(ranking.evaluator_version, "4");
    assert.equal(ranking.evaluation_result_id, evaluationResultIdFor(evaluation.caseResult.case_result_id, "retrieval.ranking", "4"));
    assert.notEqual(ranking.evaluation_result_id, evaluationResultIdFor(evaluation.caseResult.case_result_id, "retrieval.ranking", "1"));
  });
});
