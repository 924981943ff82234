import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { evalCase } from "../../../contracts/eval-case.js";
import { matchEvidence } from "../../../evaluators/evidence/match-evidence.js";
import { rankEvidence } from "../../../evaluators/evidence/evidence-ranking.js";
import { chunks } from "../../support/case-results.js";

const evidence = (fields: Record<string, unknown>) =>
  evalCase.parse({ case_id: "c", case_version: "1", dataset_id: "d", dataset_version: "1", input: "q", gold_evidence: [fields] }).gold_evidence[0]!;

const chunk = (fields: Parameters<typeof chunks>[0][number]) => chunks([fields])[0]!;

describe("matching a retrieved chunk to gold evidence", () => {
  test("by document and section ids when the trace carries them", () => {
    const gold = evidence({ document_id: "refund_policy_member_points", section_id: "section_2", text: "部分退款后，会员积分按实际保留金额重新计算" });
    assert.deepEqual(matchEvidence(chunk({ chunk_id: "x", document_id: "refund_policy_member_points", section_id: "section_2", text: "completely different words" }), gold), { matched: true, rule: "ids", coverage: 1 });
    assert.deepEqual(matchEvidence(chunk({ chunk_id: "x", document_id: "refund_policy_member_points", section_id: "section_3", text: "部分退款后，会员积分按实际保留金额重新计算" }), gold), { matched: false, rule: "ids", coverage: 0 });
    // Another document quoting the evidence is not the evidence: ids decide, text is not consulted.
    assert.equal(matchEvidence(chunk({ chunk_id: "x", document_id: "faq", section_id: "section_2", text: "部分退款后，会员积分按实际保留金额重新计算" }), gold).matched, false);
  });

  test("a different document version is not the evidence", () => {
    const gold = evidence({ document_id: "points", section_id: "s1", document_version: "2026-07" });
    assert.equal(matchEvidence(chunk({ chunk_id: "x", document_id: "points", section_id: "s1", document_version: "2025-01" }), gold).matched, false);
    assert.equal(matchEvidence(chunk({ chunk_id: "x", document_id: "points", section_id: "s1", document_version: "2026-07" }), gold).matched, true);
  });

  test("by normalised text when the trace carries no ids", () => {
    const gold = evidence({ document_id: "refund_policy_member_points", section_id: "section_2", text: "部分退款后，会员积分按实际保留金额重新计算" });
    // Full-width punctuation, spaces and a surrounding sentence do not matter.
    assert.deepEqual(matchEvidence(chunk({ chunk_id: "x", text: "规则二： 部分退款后 会员积分按实际保留金额重新计算。" }), gold), { matched: true, rule: "text", coverage: 1 });
    assert.equal(matchEvidence(chunk({ chunk_id: "x", text: "符合条件的商品可按退款规则处理" }), gold).matched, false);
    const english = evidence({ document_id: "d", text: "Refunds are issued within 7 days." });
    assert.equal(matchEvidence(chunk({ chunk_id: "x", text: "REFUNDS ARE ISSUED WITHIN ７ DAYS" }), english).matched, true, "case and full-width digits are normalised");
  });

  test("by chunk id when the evidence names one", () => {
    const gold = evidence({ document_id: "d", chunk_id: "chunk-7" });
    assert.deepEqual(matchEvidence(chunk({ chunk_id: "chunk-7" }), gold), { matched: true, rule: "chunk_id", coverage: 1 });
    assert.equal(matchEvidence(chunk({ chunk_id: "chunk-8" }), gold).matched, false);
  });

  test("short fragments match only exactly", () => {
    const gold = evidence({ document_id: "d", text: "退款" });
    assert.equal(matchEvidence(chunk({ chunk_id: "x", text: "符合条件的商品可按退款规则处理" }), gold).matched, false);
  });

  test("evidence found twice counts once in the evidence ranking", () => {
    const gold = [evidence({ document_id: "d", section_id: "s" })];
    const ranking = rankEvidence(chunks([{ chunk_id: "a", document_id: "d", section_id: "s" }, { chunk_id: "b", document_id: "d", section_id: "s" }]), gold);
    assert.deepEqual(ranking.items.map((item) => item.id), ["gold#0", "rank:2"]);
    assert.deepEqual(ranking.foundAtRank, [1]);
  });
});
