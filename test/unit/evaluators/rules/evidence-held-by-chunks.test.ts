/**
 * Which retrieved chunks hold a piece of gold evidence, checked on the ranking and context metrics by the seed's
 * formulas (004 §三.1 Recall@K = 前 K 个结果中的相关文档数 / 所有相关文档数; §四.2 上下文覆盖的标准证据 / 全部证据), values
 * worked by hand:
 * - evidence given with its document id and its text (the simple format writes every evidence text so) is held by
 *   the document's chunks that hold the text, not by every chunk of the document: a prompt of the document's
 *   shipping sentence read as full of the refund evidence, and the case passed;
 * - one chunk holding two pieces finds both: recall@1 read 0.5 ("not retrieved (the ranking covers 100 % of its
 *   text)");
 * - a later fragment of a piece a chunk already held whole adds nothing: it was counted a relevant result.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { contextCoverageEvaluator } from "../../../../evaluators/rules/context-coverage.js";
import { retrievalRankingEvaluator } from "../../../../evaluators/rules/retrieval-ranking.js";
import { buildCase } from "../../../support/case-results.js";
import { caseResultWith, valueOf } from "./build-case-result.js";

const REFUND = "Refunds reach the original payment method within seven business days of approval.";
const SHIPPING = "Shipping is free for orders above fifty dollars in most regions.";
const POINTS = "Member points expire twelve months after the purchase that earned them.";

describe("evidence held by chunks", () => {
  test("evidence with a document id and a text: the document's chunk without the text is not the evidence", () => {
    const evalCase = buildCase({ gold_evidence: [{ document_id: "A", text: REFUND }] });
    const retrieved = [
      { chunk_id: "a1", document_id: "A", text: SHIPPING },
      { chunk_id: "a2", document_id: "A", text: REFUND },
    ];
    const ranking = retrievalRankingEvaluator.evaluate({ caseResult: caseResultWith({ retrieved }), evalCase }).values;
    // Found at rank 2: MRR 1/2, recall@1 0, hit@1 0.
    assert.deepEqual([valueOf(ranking, "mrr"), valueOf(ranking, "recall_at_1"), valueOf(ranking, "hit_at_1"), valueOf(ranking, "recall_at_3")], [0.5, 0, 0, 1]);
    // The prompt packed the shipping sentence only: no evidence reached it.
    const context = contextCoverageEvaluator.evaluate({ caseResult: caseResultWith({ retrieved, packed: ["a1"], context: SHIPPING }), evalCase }).values;
    assert.deepEqual([valueOf(context, "context_recall"), valueOf(context, "context_precision")], [0, 0]);
  });

  test("one chunk holding two pieces finds both at its rank: recall@1 = 2/2", () => {
    const evalCase = buildCase({ gold_evidence: [{ document_id: "A", text: REFUND }, { document_id: "A", text: POINTS }] });
    const retrieved = [
      { chunk_id: "both", document_id: "A", text: `${REFUND} ${POINTS}` },
      { chunk_id: "noise", document_id: "B", text: SHIPPING },
    ];
    const { values, reason } = retrievalRankingEvaluator.evaluate({ caseResult: caseResultWith({ retrieved }), evalCase });
    assert.deepEqual([valueOf(values, "recall_at_1"), valueOf(values, "recall_at_5"), valueOf(values, "hit_at_1"), valueOf(values, "mrr"), valueOf(values, "precision_at_1")], [1, 1, 1, 1, 1]);
    assert.doesNotMatch(reason, /not retrieved/);
  });

  test("a later fragment of a piece already held whole is no relevant result: P@3 = 1/3, recall@1 = 1", () => {
    const evalCase = buildCase({ gold_evidence: [{ document_id: "A", text: REFUND }, { document_id: "A", text: POINTS }] });
    const retrieved = [
      { chunk_id: "both", document_id: "A", text: `${REFUND} ${POINTS}` },
      { chunk_id: "noise", document_id: "B", text: SHIPPING },
      { chunk_id: "fragment", document_id: "A", text: "Note that member points expire after a while." },
    ];
    const values = retrievalRankingEvaluator.evaluate({ caseResult: caseResultWith({ retrieved }), evalCase }).values;
    assert.equal(valueOf(values, "recall_at_1"), 1);
    assert.equal(valueOf(values, "precision_at_3"), 1 / 3);
  });

  test("a chunk holding a piece graded 0 and a relevant one stands for the relevant one: hit, MRR and precision see it", () => {
    const evalCase = buildCase({ gold_evidence: [{ document_id: "A", text: POINTS, relevance: 0 }, { document_id: "A", text: REFUND, relevance: 3 }] });
    const retrieved = [{ chunk_id: "both", document_id: "A", text: `${POINTS} ${REFUND}` }];
    const values = retrievalRankingEvaluator.evaluate({ caseResult: caseResultWith({ retrieved }), evalCase }).values;
    assert.deepEqual([valueOf(values, "recall_at_1"), valueOf(values, "hit_at_1"), valueOf(values, "mrr"), valueOf(values, "precision_at_1"), valueOf(values, "map")], [1, 1, 1, 1, 1]);
  });
});
