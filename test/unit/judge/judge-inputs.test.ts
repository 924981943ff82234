import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { canonicalJson, judgeInputsFor } from "../../../evaluators/judge/judge-inputs.js";
import { applicableJudgeMetrics } from "../../../evaluators/judge/judge-evaluations.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";

describe("what the judge sees", () => {
  test("the packed chunks in prompt order, with their recorded text; chunks without text are named", () => {
    const caseResult = buildCaseResult({
      output: "a",
      retrieved: [
        { chunk_id: "c1", text: "one" },
        { chunk_id: "c2", text: "two" },
        { chunk_id: "c3", text: null },
      ],
      contextChunkIds: ["c2", "c3", "c1"],
      context: "two one",
      citations: ["c1", "c9"],
    });
    const inputs = judgeInputsFor(caseResult, null);
    assert.deepEqual(inputs.documents, [{ id: "c2", text: "two" }, { id: "c1", text: "one" }]);
    assert.deepEqual(inputs.citedDocuments, [{ id: "c1", text: "one" }]);
    assert.deepEqual(inputs.missingDocumentTexts, ["c3", "c9"]);
  });

  test("without packed chunks the recorded context is one document; without either, the retrieved chunks", () => {
    assert.deepEqual(judgeInputsFor(buildCaseResult({ context: "the context", retrieved: [{ chunk_id: "c1", text: "one" }] }), null).documents, [{ id: "context", text: "the context" }]);
    assert.deepEqual(judgeInputsFor(buildCaseResult({ retrieved: [{ chunk_id: "c1", text: "one" }, { chunk_id: "c2", text: null }] }), null).documents, [{ id: "c1", text: "one" }]);
  });

  test("the question is the traced query, else the case input; reference and key points come from the case", () => {
    const caseResult = buildCaseResult({ output: "a" });
    const evalCase = buildCase({ input: "case question", reference_answer: "ref", key_points: ["k1", " "] });
    const inputs = judgeInputsFor(caseResult, evalCase);
    assert.equal(inputs.question, "case question");
    assert.equal(inputs.referenceAnswer, "ref");
    assert.deepEqual(inputs.keyPoints, ["k1"]);
    assert.equal(judgeInputsFor(caseResult, buildCase({ reference_answer: ["北京", "北京市"] })).referenceAnswer, "北京\n北京市");
    const traced = { ...caseResult, rag_observation: { ...caseResult.rag_observation, query: "traced question" } };
    assert.equal(judgeInputsFor(traced, evalCase).question, "traced question");
  });

  test("applicable metrics follow the inputs: correctness only with a reference answer, completeness only with key points", () => {
    const online = buildCaseResult({ output: "Refunds within 15 days.", context: "Refunds are possible within 15 days." });
    const withQuery = { ...online, rag_observation: { ...online.rag_observation, query: "refund window?" } };
    assert.deepEqual(applicableJudgeMetrics(withQuery, null), ["faithfulness", "answer_relevance", "context_precision_judged", "context_sufficiency_judged"]);
    assert.deepEqual(applicableJudgeMetrics(buildCaseResult({ output: null, context: "x" }), null), []);
    assert.deepEqual(applicableJudgeMetrics(withQuery, buildCase({ reference_answer: "15 days" })), ["faithfulness", "answer_relevance", "context_precision_judged", "context_sufficiency_judged", "answer_correctness"]);
  });

  test("canonical JSON does not depend on key order", () => {
    assert.equal(canonicalJson({ b: 1, a: [{ d: 2, c: null }] }), canonicalJson({ a: [{ c: null, d: 2 }], b: 1 }));
    assert.equal(canonicalJson({ b: 1, a: 2 }), '{"a":2,"b":1}');
  });
});
