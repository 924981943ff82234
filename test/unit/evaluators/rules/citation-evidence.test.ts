import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { citationEvidenceEvaluator } from "../../../../evaluators/rules/citation-evidence.js";
import { buildCase, seedExample } from "../../../support/case-results.js";
import { caseResultWith, valueOf } from "./build-case-result.js";

const evalCase = buildCase({
  gold_evidence: [
    { document_id: "d", section_id: "a" },
    { document_id: "d", section_id: "b" },
    { document_id: "d", section_id: "c", chunk_id: "never-retrieved" },
  ],
});
const retrieved = [
  { chunk_id: "ca", document_id: "d", section_id: "a" },
  { chunk_id: "cb", document_id: "d", section_id: "b" },
  { chunk_id: "noise", document_id: "other" },
];

describe("citation.evidence", () => {
  test("hand-worked: 3 distinct citations, 2 hold gold; 2 of 3 gold cited (one by its chunk id alone)", () => {
    const caseResult = caseResultWith({ retrieved, packed: ["ca"], citations: ["ca", "noise", "never-retrieved", "ca"] });
    const { values, evidence } = citationEvidenceEvaluator.evaluate({ caseResult, evalCase });
    assert.equal(valueOf(values, "citation_precision"), 2 / 3);
    assert.equal(valueOf(values, "citation_recall"), 2 / 3);
    assert.deepEqual(evidence, ["ca", "never-retrieved"]);
  });

  test("differs from citation_accuracy by citations outside the context: the seed's example cites a packed chunk without evidence", () => {
    const { caseResult, evalCase } = seedExample();
    const { values } = citationEvidenceEvaluator.evaluate({ caseResult, evalCase });
    assert.equal(valueOf(values, "citation_precision"), 0);
    assert.equal(valueOf(values, "citation_recall"), 0);
  });

  test("no citations: precision not applicable, recall 0; an abstention: both not applicable", () => {
    const silent = citationEvidenceEvaluator.evaluate({ caseResult: caseResultWith({ retrieved, citations: [] }), evalCase });
    assert.equal(valueOf(silent.values, "citation_precision"), null);
    assert.equal(valueOf(silent.values, "citation_recall"), 0);
    const abstained = citationEvidenceEvaluator.evaluate({ caseResult: caseResultWith({ retrieved, citations: [], abstained: true }), evalCase });
    assert.equal(valueOf(abstained.values, "citation_recall"), null);
  });

  test("not applicable without a citation stage, a case or gold", () => {
    for (const [caseResult, theCase] of [[caseResultWith({ retrieved }), evalCase], [caseResultWith({ citations: ["ca"] }), null], [caseResultWith({ citations: ["ca"] }), buildCase()]] as const) {
      const { values } = citationEvidenceEvaluator.evaluate({ caseResult, evalCase: theCase });
      assert.equal(valueOf(values, "citation_precision"), null);
      assert.equal(valueOf(values, "citation_recall"), null);
    }
  });
});
