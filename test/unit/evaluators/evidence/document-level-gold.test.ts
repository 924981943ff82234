/**
 * Document-level gold (evaluators/evidence/case-gold-evidence.ts) where the e2e test (e2e/experiments/eval-document-gold.test.ts)
 * does not reach: the rerank uplift, whose scripted task records no rerank, and the release gate's count of cases a
 * retrieval rule could not measure. Expected values from the definitions, not from our code: NDCG@10 of one
 * relevant document at rank r is 1 / log2(r + 1).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { CaseResult } from "../../../../contracts/case-result.js";
import { casesWithoutRecordedRetrieval } from "../../../../evaluators/gates/unrecorded-retrieval.js";
import { retrievalUpliftEvaluator } from "../../../../evaluators/rules/retrieval-uplift.js";
import { buildCase, buildCaseResult } from "../../../support/case-results.js";

/** A case as the simple format reads `relevant_document_ids: [refund_policy]` with no chunk ids and no evidence. */
const documentsOnly = buildCase({ gold_evidence: [], answerable: true, metadata: { relevant_document_ids: ["refund_policy"] } });

function reranked(before: { chunk_id: string; document_id?: string }[], after: { chunk_id: string; document_id?: string }[]): CaseResult {
  const first = buildCaseResult({ retrieved: before });
  const second = buildCaseResult({ retrieved: after });
  return { ...second, rag_observation: { ...second.rag_observation, pre_rerank_chunks: first.rag_observation.retrieved_chunks } };
}

describe("document-level gold: a case naming relevant documents only", () => {
  test("rerank_uplift is NDCG@10 after minus before, per document", () => {
    const caseResult = reranked(
      [{ chunk_id: "shipping#1", document_id: "shipping" }, { chunk_id: "refund#1", document_id: "refund_policy" }, { chunk_id: "refund#2", document_id: "refund_policy" }],
      [{ chunk_id: "refund#1", document_id: "refund_policy" }, { chunk_id: "shipping#1", document_id: "shipping" }, { chunk_id: "refund#2", document_id: "refund_policy" }],
    );
    const output = retrievalUpliftEvaluator.evaluate({ caseResult, evalCase: documentsOnly });
    const uplift = output.values.rerank_uplift!;
    assert.ok(uplift.applicable, output.reason);
    assert.ok(Math.abs(uplift.value - (1 - 1 / Math.log2(3))) < 1e-12, `${uplift.value}`);
  });

  test("rerank_uplift is not applicable when the first-stage ranking carries no document ids", () => {
    const caseResult = reranked([{ chunk_id: "shipping#1" }, { chunk_id: "refund#1" }], [{ chunk_id: "refund#1", document_id: "refund_policy" }, { chunk_id: "shipping#1", document_id: "shipping" }]);
    const output = retrievalUpliftEvaluator.evaluate({ caseResult, evalCase: documentsOnly });
    assert.equal(output.values.rerank_uplift!.applicable, false);
    assert.match(output.reason, /compared with the first-stage ranking by document id, and none of its chunks carries a document id/);
  });

  test("the gate counts it among the cases a retrieval rule could not measure for want of a retrieval, and not for a context rule", () => {
    const unrecorded = { caseResult: buildCaseResult({ retrieved: null }), evaluationResults: [], evalCase: documentsOnly };
    assert.deepEqual(casesWithoutRecordedRetrieval([unrecorded], "recall_at_5"), [unrecorded]);
    // context_recall does not apply to it with a retrieval either: its missing retrieval is not why it is unmeasured.
    assert.deepEqual(casesWithoutRecordedRetrieval([unrecorded], "context_recall"), []);
  });
});
