/**
 * Each rubric turns the judge's itemised answer into a value by counting —
 * supported claims, relevant documents, covered key points, supporting
 * citations — or by its ordinal score; answers that skip or invent items, or
 * do not match the schema, are refused (they become `unparseable`).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JudgeInputs } from "../../../evaluators/judge/judge-inputs.js";
import { JUDGE_METRICS } from "../../../evaluators/judge/judge.js";
import { rubricFor } from "../../../evaluators/judge/rubrics/rubric-registry.js";

const inputs: JudgeInputs = {
  question: "How long is the refund window?",
  answer: "Refunds within 15 days. Return shipping is free.",
  documents: [
    { id: "refund_15", text: "Refunds are possible within 15 days." },
    { id: "shipping_1", text: "Shipping is free above 50 EUR." },
    { id: "careers", text: "We are hiring." },
  ],
  citedDocuments: [
    { id: "refund_15", text: "Refunds are possible within 15 days." },
    { id: "shipping_1", text: "Shipping is free above 50 EUR." },
  ],
  missingDocumentTexts: [],
  referenceAnswer: "Within 15 days; the customer pays return shipping.",
  referenceAnswers: ["Within 15 days; the customer pays return shipping."],
  keyPoints: ["15 days", "customer pays return shipping", "refund to the original payment method"],
};

function interpret(metric: (typeof JUDGE_METRICS)[number], answer: unknown) {
  return rubricFor(metric).interpret(answer, inputs);
}

describe("rubrics", () => {
  test("faithfulness = supported claims / claims, unsupported ones listed, labels mapped to chunk ids", () => {
    const scored = interpret("faithfulness", {
      claims: [
        { claim: "Refunds within 15 days", supported: true, documents: ["D1"] },
        { claim: "Return shipping is free", supported: false },
        { claim: "Refunds need a receipt", supported: false, documents: ["D2"] },
      ],
      reason: "two claims lack support",
    });
    assert.ok(scored.ok);
    // 1 supported of 3.
    assert.equal(scored.value.value, 1 / 3);
    assert.deepEqual(scored.value.details.unsupported_claims, ["Return shipping is free", "Refunds need a receipt"]);
    assert.deepEqual(scored.value.details.evidence_ids, ["refund_15"]);
    assert.match(scored.value.reason, /1 of 3 claims.*"Return shipping is free"; "Refunds need a receipt"/);
  });

  test("faithfulness of an answer without claims is 1, not 0/0", () => {
    for (const answer of ["I don't know; the documents do not say.", "Here is what I found:"]) {
      const scored = rubricFor("faithfulness").interpret({ claims: [], reason: "the answer declines" }, { ...inputs, answer });
      assert.ok(scored.ok, answer);
      assert.equal(scored.value.value, 1);
    }
  });

  test("faithfulness: no claims for an answer that states facts is not a verdict", () => {
    // The answer ("Refunds within 15 days. Return shipping is free.") neither abstains nor lacks claims.
    for (const reason of ["no claims", "Every claim is unsupported; hallucinated"]) {
      const scored = interpret("faithfulness", { claims: [], reason });
      assert.equal(scored.ok, false, reason);
      assert.match(scored.ok ? "" : scored.error, /listed no claims, but the answer states 2 claims/);
    }
  });

  test("ordinal rubrics: the top score with faults listed contradicts itself and is not a verdict", () => {
    const contradictions = [
      ["answer_correctness", { score: 3, incorrect_statements: ["the refund window is wrong"], reason: "The answer is wrong" }, /incorrect_statements "the refund window is wrong"/],
      ["answer_correctness", { score: 3, missing_points: ["customer pays return shipping"], reason: "r" }, /missing_points/],
      ["answer_relevance", { score: 3, irrelevant_parts: ["the whole answer"], reason: "r" }, /irrelevant_parts/],
      ["context_sufficiency_judged", { score: 3, missing_information: ["all of it"], reason: "r" }, /missing_information/],
    ] as const;
    for (const [metric, answer, named] of contradictions) {
      const scored = interpret(metric, answer);
      assert.equal(scored.ok, false, `${metric} ${JSON.stringify(answer)}`);
      assert.match(scored.ok ? "" : scored.error, /inconsistent: score 3 of 3/);
      assert.match(scored.ok ? "" : scored.error, named);
    }
    // The top score with empty lists, and a lower score with faults, are verdicts.
    for (const metric of ["answer_relevance", "context_sufficiency_judged", "answer_correctness"] as const) {
      const top = interpret(metric, { score: 3, incorrect_statements: [], missing_points: [], irrelevant_parts: [], missing_information: [], reason: "r" });
      assert.ok(top.ok && top.value.value === 1, metric);
      const lower = interpret(metric, { score: 2, incorrect_statements: ["x"], irrelevant_parts: ["x"], missing_information: ["x"], reason: "r" });
      assert.ok(lower.ok, metric);
    }
  });

  test("context precision needs a verdict for every document, once", () => {
    const complete = interpret("context_precision_judged", { documents: [{ id: "D1", relevant: true }, { id: "D2", relevant: false }, { id: "D3", relevant: false }], reason: "r" });
    assert.ok(complete.ok);
    assert.equal(complete.value.value, 1 / 3);
    assert.deepEqual(complete.value.details.irrelevant_ids, ["shipping_1", "careers"]);

    const missing = interpret("context_precision_judged", { documents: [{ id: "D1", relevant: true }], reason: "r" });
    assert.deepEqual(missing, { ok: false, error: "the judge did not rate documents D2, D3" });
    const invented = interpret("context_precision_judged", { documents: [{ id: "D1", relevant: true }, { id: "D2", relevant: true }, { id: "D3", relevant: true }, { id: "D4", relevant: true }], reason: "r" });
    assert.equal(invented.ok, false);
    const twice = interpret("context_precision_judged", { documents: [{ id: "D1", relevant: true }, { id: "D1", relevant: false }, { id: "D2", relevant: true }, { id: "D3", relevant: true }], reason: "r" });
    assert.equal(twice.ok, false);
  });

  test("completeness = covered key points / key points, the missing ones named", () => {
    const scored = interpret("completeness_judged", { key_points: [{ id: "K1", covered: true }, { id: "K2", covered: false }, { id: "K3", covered: true }], reason: "r" });
    assert.ok(scored.ok);
    assert.equal(scored.value.value, 2 / 3);
    assert.deepEqual(scored.value.details.missing_points, ["customer pays return shipping"]);
  });

  test("citation support = cited chunks supporting their statement / cited chunks", () => {
    const scored = interpret("citation_support", {
      citations: [
        { id: "C1", statement: "Refunds within 15 days", supported: true },
        { id: "C2", statement: "Return shipping is free", supported: false },
      ],
      reason: "r",
    });
    assert.ok(scored.ok);
    assert.equal(scored.value.value, 0.5);
    assert.deepEqual(scored.value.details.unsupported_citations, ["shipping_1"]);
  });

  test("ordinal rubrics: value = score / 3, scores outside 0..3 refused", () => {
    for (const metric of ["answer_relevance", "context_sufficiency_judged", "answer_correctness"] as const) {
      const scored = interpret(metric, { score: 2, reason: "r" });
      assert.ok(scored.ok, metric);
      assert.equal(scored.value.value, 2 / 3);
      assert.equal(interpret(metric, { score: 4, reason: "r" }).ok, false);
      assert.equal(interpret(metric, { score: 2.5, reason: "r" }).ok, false);
    }
    const correctness = interpret("answer_correctness", { score: 1, incorrect_statements: ["Return shipping is free"], missing_points: ["customer pays return shipping"], reason: "r" });
    assert.ok(correctness.ok);
    assert.match(correctness.value.reason, /incorrect: "Return shipping is free"; missing: "customer pays return shipping"/);
  });

  test("an answer that only says PASS validates against no rubric", () => {
    for (const metric of JUDGE_METRICS) {
      assert.equal(interpret(metric, { verdict: "PASS" }).ok, false, metric);
      // Even with a plausible score: no reason, no itemised verdicts.
      assert.equal(interpret(metric, { result: "PASS", score: 3 }).ok, false, metric);
    }
  });

  test("every rubric is versioned, has a parsable pass rule and a JSON Schema", () => {
    for (const metric of JUDGE_METRICS) {
      const rubric = rubricFor(metric);
      assert.equal(rubric.metric, metric);
      assert.match(rubric.version, new RegExp(`^${metric}@\\d+$`));
      assert.equal(typeof rubric.outputJsonSchema().properties, "object");
      assert.match(rubric.prompt(inputs).system, /DATA to be evaluated/);
    }
  });
});
