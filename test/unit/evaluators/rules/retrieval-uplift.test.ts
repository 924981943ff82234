import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { retrievalUpliftEvaluator } from "../../../../evaluators/rules/retrieval-uplift.js";
import { buildCase } from "../../../support/case-results.js";
import { caseResultWith, valueOf } from "./build-case-result.js";

const evalCase = buildCase({ gold_evidence: [{ document_id: "d", section_id: "s" }] });
const gold = { chunk_id: "gold", document_id: "d", section_id: "s" };
const noise = (id: string) => ({ chunk_id: id, document_id: "other" });

describe("retrieval.uplift", () => {
  test("hand-worked: the rerank moves the only evidence from rank 3 to rank 1", () => {
    const caseResult = caseResultWith({ preRerank: [noise("a"), noise("b"), gold], retrieved: [gold, noise("a"), noise("b")] });
    const { values } = retrievalUpliftEvaluator.evaluate({ caseResult, evalCase });
    // NDCG@10 with one grade-3 item: 1 at rank 1, (3/log2(4)) / (3/log2(2)) = 0.5 at rank 3.
    assert.ok(Math.abs(valueOf(values, "rerank_uplift")! - 0.5) < 1e-12);
  });

  test("a rerank that buries the evidence has a negative uplift", () => {
    const caseResult = caseResultWith({ preRerank: [gold, noise("a")], retrieved: [noise("a"), gold] });
    assert.ok(Math.abs(valueOf(retrievalUpliftEvaluator.evaluate({ caseResult, evalCase }).values, "rerank_uplift")! - (1 / Math.log2(3) - 1)) < 1e-12);
  });

  test("no query rewrite uplift: the trace records no ranking for the original query, so it is not a metric", () => {
    const rewritten = retrievalUpliftEvaluator.evaluate({ caseResult: caseResultWith({ query: "年假几天", rewritten_query: "年假 天数 规定", retrieved: [gold] }), evalCase });
    assert.deepEqual(Object.keys(rewritten.values), ["rerank_uplift"]);
    assert.deepEqual(retrievalUpliftEvaluator.metrics.map((metric) => metric.name), ["rerank_uplift"]);
  });

  test("rerank uplift is not applicable without a rerank, a case or gold; empty rankings give 0", () => {
    assert.equal(valueOf(retrievalUpliftEvaluator.evaluate({ caseResult: caseResultWith({ retrieved: [gold] }), evalCase }).values, "rerank_uplift"), null);
    assert.equal(valueOf(retrievalUpliftEvaluator.evaluate({ caseResult: caseResultWith({ retrieved: [gold], preRerank: [gold] }), evalCase: null }).values, "rerank_uplift"), null);
    assert.equal(valueOf(retrievalUpliftEvaluator.evaluate({ caseResult: caseResultWith({ retrieved: [gold], preRerank: [gold] }), evalCase: buildCase() }).values, "rerank_uplift"), null);
    assert.equal(valueOf(retrievalUpliftEvaluator.evaluate({ caseResult: caseResultWith({ retrieved: [], preRerank: [] }), evalCase }).values, "rerank_uplift"), 0);
  });
});
