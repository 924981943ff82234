/**
 * How a reason names a piece of gold evidence (evaluators/evidence/gold-evidence-label.ts) where the e2e tests
 * (e2e/experiments/eval-gold-chunk-names.test.ts: chunks; eval-corpus-data-missing.test.ts: a text) do not reach: a
 * section, a whole document, and a long text in a script whose characters lie beyond one UTF-16 unit.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { goldEvidenceLabel } from "../../../../evaluators/evidence/gold-evidence-label.js";

describe("goldEvidenceLabel", () => {
  test("a chunk is named by its id, with its document and section", () => {
    assert.equal(goldEvidenceLabel({ document_id: "member-points", chunk_id: "points-1", text: "Points expire." }), "chunk points-1 of member-points");
    assert.equal(goldEvidenceLabel({ document_id: "member-points", section_id: "section_2", chunk_id: "points-1" }), "chunk points-1 of member-points/section_2");
  });

  test("a section without a chunk id is the section; a whole document is the document", () => {
    assert.equal(goldEvidenceLabel({ document_id: "refund_policy", section_id: "section_2", text: "Refunds take 7 days." }), "refund_policy/section_2");
    assert.equal(goldEvidenceLabel({ document_id: "refund_policy" }), "refund_policy");
  });

  test("a text alone is quoted, its spaces collapsed and cut at 40 characters, never inside a character", () => {
    assert.equal(goldEvidenceLabel({ document_id: "hr", text: "  Fathers get\n20 days. " }), 'hr "Fathers get 20 days."');
    // 41 characters, each two UTF-16 units: a cut by units would split the 20th.
    const text = "𠀀".repeat(41);
    assert.equal(goldEvidenceLabel({ document_id: "hr", text }), `hr "${"𠀀".repeat(40)}…"`);
  });
});
