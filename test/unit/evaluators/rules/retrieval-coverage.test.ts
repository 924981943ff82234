import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { retrievalCoverageEvaluator } from "../../../../evaluators/rules/retrieval-coverage.js";
import { buildCase } from "../../../support/case-results.js";
import { caseResultWith, valueOf } from "./build-case-result.js";

const twoDocumentCase = buildCase({
  gold_evidence: [
    { document_id: "leave", section_id: "annual" },
    { document_id: "payroll", section_id: "overtime", relevance: 2 },
  ],
});

describe("retrieval.coverage", () => {
  test("hand-worked: document hit, first evidence rank, relevant chunks, cross-document recall", () => {
    const caseResult = caseResultWith({
      retrieved: [
        { chunk_id: "c1", document_id: "other" },
        { chunk_id: "c2", document_id: "leave", section_id: "sick" },
        { chunk_id: "c3", document_id: "leave", section_id: "annual" },
        { chunk_id: "c4", document_id: "leave", section_id: "annual" },
      ],
    });
    const { values, evidence } = retrievalCoverageEvaluator.evaluate({ caseResult, evalCase: twoDocumentCase });
    // c2 is from a gold document though not the gold section: a document hit, not a chunk hit.
    assert.equal(valueOf(values, "document_hit_at_k"), 1);
    assert.equal(valueOf(values, "first_evidence_rank"), 3);
    // c3 and c4 both hold leave/annual; each counts.
    assert.equal(valueOf(values, "relevant_chunks"), 2);
    assert.deepEqual(evidence, ["c3", "c4"]);
    // leave found, payroll not: 1 of 2 gold documents.
    assert.equal(valueOf(values, "cross_document_recall"), 0.5);
  });

  test("document hit counts only the top 5", () => {
    const caseResult = caseResultWith({ retrieved: ["a", "b", "c", "d", "e"].map((id) => ({ chunk_id: id, document_id: "other" })).concat([{ chunk_id: "f", document_id: "leave" }]) });
    const { values } = retrievalCoverageEvaluator.evaluate({ caseResult, evalCase: twoDocumentCase });
    assert.equal(valueOf(values, "document_hit_at_k"), 0);
    assert.equal(valueOf(values, "relevant_chunks"), 0, "f is the gold document, not the gold section");
  });

  test("a chunk without a document id belongs to a gold document when its text matches the evidence", () => {
    const evalCase = buildCase({ gold_evidence: [{ document_id: "leave", text: "员工每年享有5天年假" }] });
    const caseResult = caseResultWith({ retrieved: [{ chunk_id: "x", text: "员工每年享有5天年假。" }] });
    const { values } = retrievalCoverageEvaluator.evaluate({ caseResult, evalCase });
    assert.equal(valueOf(values, "document_hit_at_k"), 1);
    assert.equal(valueOf(values, "cross_document_recall"), null, "one gold document: not applicable");
  });

  test("empty inputs: nothing retrieved, no gold, no case, no retrieval recorded", () => {
    const empty = retrievalCoverageEvaluator.evaluate({ caseResult: caseResultWith({ retrieved: [] }), evalCase: twoDocumentCase });
    assert.equal(valueOf(empty.values, "document_hit_at_k"), 0);
    assert.equal(valueOf(empty.values, "first_evidence_rank"), null);
    assert.equal(valueOf(empty.values, "relevant_chunks"), 0);
    assert.equal(valueOf(empty.values, "cross_document_recall"), 0);
    for (const evalCase of [null, buildCase(), buildCase({ gold_evidence: [{ document_id: "d", section_id: "s", relevance: 0 }] })]) {
      const { values } = retrievalCoverageEvaluator.evaluate({ caseResult: caseResultWith({ retrieved: [{ chunk_id: "a" }] }), evalCase });
      assert.ok(Object.values(values).every((value) => !value.applicable));
    }
    const unrecorded = retrievalCoverageEvaluator.evaluate({ caseResult: caseResultWith(), evalCase: twoDocumentCase });
    assert.ok(Object.values(unrecorded.values).every((value) => !value.applicable));
  });
});
