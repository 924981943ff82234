/**
 * citation.accuracy's reason says what was checked: a trace without a context
 * stage leaves both metrics not applicable, and its reason said "every
 * citation is valid" — a pass in words where nothing was measured.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { citationAccuracyEvaluator } from "../../../../evaluators/rules/citation-accuracy.js";
import { buildCase } from "../../../support/case-results.js";
import { caseResultWith, valueOf } from "./build-case-result.js";

const retrieved = [{ chunk_id: "refund-1", document_id: "refunds", section_id: "a" }];

describe("citation.accuracy reason", () => {
  test("no context stage recorded: both metrics not applicable, and the reason says the citations were not checked", () => {
    const { values, reason } = citationAccuracyEvaluator.evaluate({ caseResult: caseResultWith({ retrieved, citations: ["refund-1"] }), evalCase: null });
    assert.deepEqual([valueOf(values, "citation_accuracy"), valueOf(values, "citation_validity")], [null, null]);
    assert.equal(reason, "citations not checked against the context: the trace did not record which chunks were packed");
  });

  test("with the context recorded, valid citations read as valid; without it, gold problems are named and the check that could not run is said", () => {
    const evalCase = buildCase({ gold_evidence: [{ document_id: "refunds", section_id: "b" }] });
    const packed = citationAccuracyEvaluator.evaluate({ caseResult: caseResultWith({ retrieved, packed: ["refund-1"], citations: ["refund-1"] }), evalCase: null });
    assert.deepEqual([valueOf(packed.values, "citation_validity"), packed.reason], [1, "every citation is valid"]);
    const unpacked = citationAccuracyEvaluator.evaluate({ caseResult: caseResultWith({ retrieved, citations: ["refund-1"] }), evalCase });
    assert.equal(unpacked.reason, "refund-1 holds no gold evidence; citations not checked against the context: the trace did not record which chunks were packed");
  });

  test("a chunk cited several times counts once: three citations of a valid chunk and one of a chunk never seen give 1 of 2", () => {
    const evalCase = buildCase({ gold_evidence: [{ document_id: "refunds", section_id: "a" }] });
    const { values, reason } = citationAccuracyEvaluator.evaluate({ caseResult: caseResultWith({ retrieved, packed: ["refund-1"], citations: ["refund-1", "refund-1", "refund-1", "made-up"] }), evalCase });
    assert.deepEqual([valueOf(values, "citation_accuracy"), valueOf(values, "citation_validity")], [0.5, 0.5]);
    assert.equal(reason, "made-up was not in the context");
  });
});
