import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { contextTruncationEvaluator } from "../../../../evaluators/rules/context-truncation.js";
import { buildCase, seedExample } from "../../../support/case-results.js";
import { caseResultWith, valueOf } from "./build-case-result.js";

describe("context.truncation", () => {
  test("the seed's example: the evidence was retrieved at rank 2 but not packed", () => {
    const { caseResult, evalCase } = seedExample();
    const { values, evidence } = contextTruncationEvaluator.evaluate({ caseResult, evalCase });
    assert.equal(valueOf(values, "evidence_truncated"), 1);
    assert.equal(valueOf(values, "evidence_truncated_rate"), 1);
    assert.deepEqual(evidence, ["refund_member_points_02"]);
  });

  test("hand-worked: of 3 gold, 2 retrieved; one dropped by the budget, one cut with its text gone", () => {
    const evalCase = buildCase({
      gold_evidence: [
        { document_id: "d", section_id: "a", text: "第一条证据文本内容" },
        { document_id: "d", section_id: "b", text: "第二条证据文本内容" },
        { document_id: "d", section_id: "c", text: "第三条证据文本内容" },
      ],
    });
    const caseResult = caseResultWith({
      retrieved: [
        { chunk_id: "ca", document_id: "d", section_id: "a", text: "第一条证据文本内容" },
        { chunk_id: "cb", document_id: "d", section_id: "b", text: "第二条证据文本内容" },
      ],
      packed: ["ca"],
      truncated: ["ca"],
      context: "第一条证据",
      dropped_chunks: [{ chunk_id: "cb", reason: "token_budget" }],
    });
    const { values, reason } = contextTruncationEvaluator.evaluate({ caseResult, evalCase });
    assert.equal(valueOf(values, "evidence_truncated"), 2);
    assert.equal(valueOf(values, "evidence_truncated_rate"), 2 / 2);
    assert.match(reason, /gold #1 in ca cut; gold #2 in cb dropped \(token_budget\)/);
  });

  test("a cut chunk whose evidence text survived is not truncated", () => {
    const evalCase = buildCase({ gold_evidence: [{ document_id: "d", section_id: "a", text: "第一条证据" }] });
    const caseResult = caseResultWith({ retrieved: [{ chunk_id: "ca", document_id: "d", section_id: "a" }], packed: ["ca"], truncated: ["ca"], context: "第一条证据，后文被截断" });
    assert.equal(valueOf(contextTruncationEvaluator.evaluate({ caseResult, evalCase }).values, "evidence_truncated"), 0);
  });

  test("a retrieved chunk without an id is never taken for the packed chunk without an id: the piece not packed is named", () => {
    // The evidence spans two retrieved chunks; refund-1 was packed whole, the chunk without an id was not (the packed
    // entry without an id is another chunk: the context text does not hold the second sentence).
    const evalCase = buildCase({ gold_evidence: [{ document_id: "refunds", text: "Refunds are paid within thirty days of the request. Store credit is offered after that period ends." }] });
    const recorded = caseResultWith({
      retrieved: [
        { chunk_id: "refund-1", text: "Refunds are paid within thirty days of the request." },
        { chunk_id: null, text: "Store credit is offered after that period ends." },
      ],
      context: "Refunds are paid within thirty days of the request.\n\nShipping is free.",
    });
    const packed = [
      { chunk_id: "refund-1", position: 1, truncated: false },
      { chunk_id: null, position: 2, truncated: false },
    ];
    const caseResult = { ...recorded, rag_observation: { ...recorded.rag_observation, context_chunks: packed } };
    const { values, reason, evidence } = contextTruncationEvaluator.evaluate({ caseResult, evalCase });
    assert.equal(valueOf(values, "evidence_truncated"), 1);
    assert.equal(reason, "gold #1 in rank 2 (no id) dropped", "not refund-1, which was packed whole");
    assert.deepEqual(evidence, ["rank 2 (no id)"]);
  });

  test("nothing retrieved: the count is 0 and the rate not applicable; no context or case: not applicable", () => {
    const evalCase = buildCase({ gold_evidence: [{ document_id: "d", section_id: "a" }] });
    const nothing = contextTruncationEvaluator.evaluate({ caseResult: caseResultWith({ retrieved: [], packed: [] }), evalCase });
    assert.equal(valueOf(nothing.values, "evidence_truncated"), 0);
    assert.equal(valueOf(nothing.values, "evidence_truncated_rate"), null);
    for (const [caseResult, theCase] of [[caseResultWith({ retrieved: [] }), evalCase], [caseResultWith({ retrieved: [], packed: [] }), null], [caseResultWith({ retrieved: [], packed: [] }), buildCase()]] as const) {
      const { values } = contextTruncationEvaluator.evaluate({ caseResult, evalCase: theCase });
      assert.equal(valueOf(values, "evidence_truncated"), null);
      assert.equal(valueOf(values, "evidence_truncated_rate"), null);
    }
  });
});
