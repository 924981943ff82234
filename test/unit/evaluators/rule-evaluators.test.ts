import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { citationAccuracyEvaluator } from "../../../evaluators/rules/citation-accuracy.js";
import { contextCoverageEvaluator } from "../../../evaluators/rules/context-coverage.js";
import { retrievalRankingEvaluator } from "../../../evaluators/rules/retrieval-ranking.js";
import { buildCase, buildCaseResult, seedExample } from "../../support/case-results.js";

const valueOf = (values: Record<string, { applicable: boolean; value?: number }>, name: string) => {
  const metric = values[name];
  assert.ok(metric, `metric ${name} missing`);
  return metric.applicable ? metric.value : null;
};

describe("rule evaluators on the seed's example", () => {
  const { evalCase, caseResult } = seedExample();

  test("retrieval: recall_at_k 1.0 and mrr 0.5, as the seed's Evaluation Result says", () => {
    const { values } = retrievalRankingEvaluator.evaluate({ caseResult, evalCase });
    assert.equal(valueOf(values, "recall_at_k"), 1);
    assert.equal(valueOf(values, "mrr"), 0.5);
    assert.equal(valueOf(values, "hit_at_1"), 0);
    assert.equal(valueOf(values, "hit_at_3"), 1);
    assert.equal(valueOf(values, "precision_at_1"), 0);
    assert.equal(valueOf(values, "precision_at_3"), 1 / 3);
    // One piece of gold evidence with grade 3 at rank 2: DCG = 3/log2(3), ideal = 3/log2(2).
    assert.ok(Math.abs(valueOf(values, "ndcg_at_3")! - 1 / Math.log2(3)) < 1e-12);
  });

  test("context recall and citation accuracy fail: the evidence never reached the context", () => {
    const context = contextCoverageEvaluator.evaluate({ caseResult, evalCase });
    assert.equal(valueOf(context.values, "context_recall"), 0);
    assert.equal(valueOf(context.values, "context_precision"), 0);
    assert.match(context.reason, /refund_policy_member_points\/section_2/);
    const citation = citationAccuracyEvaluator.evaluate({ caseResult, evalCase });
    assert.equal(valueOf(citation.values, "citation_accuracy"), 0);
    assert.equal(valueOf(citation.values, "citation_validity"), 1, "the cited chunk was in the context");
  });

  test("outcomes: retrieval passes, context and citation fail, the case fails", () => {
    const evaluation = evaluateCaseResult(createDefaultRegistry(), caseResult, evalCase, "2026-07-08T09:32:01Z");
    const outcomes = Object.fromEntries(evaluation.evaluationResults.map((result) => [result.evaluator_id, result.outcome]));
    assert.equal(outcomes["retrieval.ranking"], "passed");
    assert.equal(outcomes["context.coverage"], "failed");
    assert.equal(outcomes["citation.accuracy"], "failed");
    assert.equal(outcomes["performance.usage"], "not_applicable");
    assert.equal(evaluation.caseResult.quality_status, "failed");
    const context = evaluation.evaluationResults.find((result) => result.evaluator_id === "context.coverage")!;
    assert.match(context.reason, /^context_recall = 0 \(needs >= 1\)/);
  });

  test("a rubric threshold overrides a metric's default; the answer's claims without overlap still send the case to review", () => {
    const lenient = { ...evalCase, rubric: { context_recall: ">= 0", citation_accuracy: ">= 0" } };
    const evaluation = evaluateCaseResult(createDefaultRegistry(), caseResult, lenient, "2026-07-08T09:32:01Z");
    const byId = Object.fromEntries(evaluation.evaluationResults.map((result) => [result.evaluator_id, result]));
    assert.equal(byId["context.coverage"]!.outcome, "passed");
    assert.equal(byId["citation.accuracy"]!.outcome, "passed");
    // The seed's answer ("积分不会受影响…") shares no content word with its context: the
    // overlap measure is a signal against the case, not a verdict — needs review, not passed.
    assert.equal(byId["online.groundedness"]!.outcome, "measured");
    assert.equal(byId["online.groundedness"]!.review_required, true);
    assert.equal(evaluation.caseResult.quality_status, "review_required");
  });
});

describe("metrics without what they need are not applicable, never 0 and never NaN", () => {
  test("online traffic: no case", () => {
    const caseResult = buildCaseResult({ retrieved: [{ chunk_id: "a" }], contextChunkIds: ["a"], citations: ["a"] });
    const retrieval = retrievalRankingEvaluator.evaluate({ caseResult, evalCase: null });
    assert.ok(Object.values(retrieval.values).every((value) => !value.applicable));
    const citation = citationAccuracyEvaluator.evaluate({ caseResult, evalCase: null });
    assert.equal(valueOf(citation.values, "citation_accuracy"), null);
    assert.equal(valueOf(citation.values, "citation_validity"), 1);
  });

  test("a trace that recorded no retrieval, no context and no citations", () => {
    const evalCase = buildCase({ gold_evidence: [{ document_id: "d", section_id: "s" }] });
    const caseResult = buildCaseResult({});
    const evaluation = evaluateCaseResult(createDefaultRegistry(), caseResult, evalCase, "2026-07-08T09:32:01Z");
    for (const result of evaluation.evaluationResults) {
      assert.equal(result.outcome, "not_applicable", result.evaluator_id);
      for (const value of Object.values(result.metric_values)) assert.equal(value, null);
    }
    assert.equal(evaluation.caseResult.quality_status, "not_evaluated");
  });

  test("nothing retrieved scores 0 recall; an unanswerable case has no retrieval metric", () => {
    const evalCase = buildCase({ gold_evidence: [{ document_id: "d", section_id: "s" }] });
    const empty = retrievalRankingEvaluator.evaluate({ caseResult: buildCaseResult({ retrieved: [] }), evalCase });
    assert.equal(valueOf(empty.values, "recall_at_k"), 0);
    assert.equal(valueOf(empty.values, "mrr"), 0);
    const unanswerable = buildCase({ answerable: false });
    const none = retrievalRankingEvaluator.evaluate({ caseResult: buildCaseResult({ retrieved: [{ chunk_id: "a" }] }), evalCase: unanswerable });
    assert.ok(Object.values(none.values).every((value) => !value.applicable));
  });

  test("an abstention that cites nothing is not a citation failure", () => {
    const evalCase = buildCase({ gold_evidence: [{ document_id: "d", section_id: "s" }] });
    const abstained = citationAccuracyEvaluator.evaluate({ caseResult: buildCaseResult({ citations: [], abstained: true, contextChunkIds: [] }), evalCase });
    assert.equal(valueOf(abstained.values, "citation_accuracy"), null);
    const uncited = citationAccuracyEvaluator.evaluate({ caseResult: buildCaseResult({ citations: [], abstained: false, contextChunkIds: [] }), evalCase });
    assert.equal(valueOf(uncited.values, "citation_accuracy"), 0);
  });
});

describe("context coverage details", () => {
  const evalCase = buildCase({ gold_evidence: [{ document_id: "d", section_id: "s1", text: "the refund is issued within seven days" }, { document_id: "d", section_id: "s2" }] });

  test("half the evidence packed gives context recall 0.5; precision counts packed chunks", () => {
    const caseResult = buildCaseResult({
      retrieved: [
        { chunk_id: "c1", document_id: "d", section_id: "s1" },
        { chunk_id: "c2", document_id: "d", section_id: "s2" },
        { chunk_id: "c3", document_id: "other" },
      ],
      contextChunkIds: ["c1", "c3"],
    });
    const { values } = contextCoverageEvaluator.evaluate({ caseResult, evalCase });
    assert.equal(valueOf(values, "context_recall"), 0.5);
    assert.equal(valueOf(values, "context_precision"), 0.5);
  });

  test("a chunk cut mid-text counts only when the evidence text survived in the context", () => {
    const retrieved = [{ chunk_id: "c1", document_id: "d", section_id: "s1", text: "Policy: the refund is issued within seven days of approval." }];
    const cut = buildCaseResult({ retrieved, contextChunkIds: ["c1"], truncated: ["c1"], context: "Policy: the refund is" });
    assert.equal(valueOf(contextCoverageEvaluator.evaluate({ caseResult: cut, evalCase }).values, "context_recall"), 0);
    const kept = buildCaseResult({ retrieved, contextChunkIds: ["c1"], truncated: ["c1"], context: "Policy: the refund is issued within seven days" });
    assert.equal(valueOf(contextCoverageEvaluator.evaluate({ caseResult: kept, evalCase }).values, "context_recall"), 0.5);
  });

  test("with only the context text recorded, evidence is looked for in the text", () => {
    const textOnly = buildCase({ gold_evidence: [{ document_id: "d", text: "部分退款后，会员积分按实际保留金额重新计算" }] });
    const found = buildCaseResult({ context: "规则：部分退款后，会员积分按实际保留金额重新计算。" });
    assert.equal(valueOf(contextCoverageEvaluator.evaluate({ caseResult: found, evalCase: textOnly }).values, "context_recall"), 1);
    assert.equal(valueOf(contextCoverageEvaluator.evaluate({ caseResult: found, evalCase: textOnly }).values, "context_precision"), null);
  });
});
