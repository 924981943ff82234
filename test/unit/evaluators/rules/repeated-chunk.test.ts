/**
 * A Case Result whose recorded ranking lists a chunk twice is an input error:
 * the ranking evaluators return an `error` (error_type invalid_evidence) with a
 * message saying what, where and how to fix it, the case goes to review, and
 * nothing is scored.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createDefaultRegistry } from "../../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../../evaluators/evaluate-case-result.js";
import { buildCase, buildCaseResult } from "../../../support/case-results.js";

const evalCase = buildCase({ gold_evidence: [{ document_id: "refund_policy", chunk_id: "c2" }] });
const RANKING_EVALUATORS = ["retrieval.ranking", "retrieval.coverage", "retrieval.uplift"];

function evaluate(retrieved: { chunk_id: string | null; document_id?: string; text: string }[], preRerank?: { chunk_id: string | null; document_id?: string; text: string }[]) {
  const caseResult = buildCaseResult({ retrieved });
  const withRerank = preRerank === undefined ? caseResult : { ...caseResult, rag_observation: { ...caseResult.rag_observation, pre_rerank_chunks: buildCaseResult({ retrieved: preRerank }).rag_observation.retrieved_chunks } };
  return evaluateCaseResult(createDefaultRegistry(), withRerank, evalCase, "2026-07-08T09:32:01Z");
}

describe("a ranking that lists a chunk twice", () => {
  test("is an error with error_type invalid_evidence, not scored, for review", () => {
    const evaluation = evaluate([
      { chunk_id: "c1", document_id: "refund_policy", text: "a" },
      { chunk_id: "c2", document_id: "refund_policy", text: "b" },
      { chunk_id: "c1", document_id: "refund_policy", text: "a" },
    ]);
    for (const id of RANKING_EVALUATORS.slice(0, 2)) {
      const result = evaluation.evaluationResults.find((candidate) => candidate.evaluator_id === id)!;
      assert.equal(result.outcome, "error", id);
      assert.equal(result.error_type, "invalid_evidence");
      assert.equal(result.review_required, true);
      assert.ok(Object.values(result.metric_values).every((value) => value === null), `${id} scored nothing`);
      assert.equal(
        result.reason,
        `invalid input: retrieved_chunks lists chunk "c1" of document "refund_policy" twice (ranks 1 and 3): a ranking names each chunk once, so it is not scored; de-duplicate the retriever's results before they are recorded, or give distinct chunks distinct ids`,
      );
    }
    assert.equal(evaluation.caseResult.quality_status, "review_required");
  });

  test("a repeat in the first-stage ranking is named with its field", () => {
    const once = [{ chunk_id: "c2", document_id: "refund_policy", text: "b" }];
    const evaluation = evaluate(once, [...once, ...once]);
    const uplift = evaluation.evaluationResults.find((candidate) => candidate.evaluator_id === "retrieval.uplift")!;
    assert.equal(uplift.error_type, "invalid_evidence");
    assert.match(uplift.reason, /^invalid input: pre_rerank_chunks lists chunk "c2" of document "refund_policy" twice \(ranks 1 and 2\)/);
  });

  test("the same chunk id in two documents, or chunks without ids, are different chunks and are scored", () => {
    const evaluation = evaluate([
      { chunk_id: null, document_id: "other", text: "x" },
      { chunk_id: "c2", document_id: "refund_policy", text: "b" },
      { chunk_id: null, document_id: "other", text: "y" },
      { chunk_id: "c2", document_id: "another_document", text: "z" },
    ]);
    const ranking = evaluation.evaluationResults.find((candidate) => candidate.evaluator_id === "retrieval.ranking")!;
    assert.equal(ranking.error_type, "none", ranking.reason);
    assert.equal(ranking.metric_values.mrr, 0.5);
    assert.equal(ranking.metric_values.recall_at_k, 1);
  });
});
