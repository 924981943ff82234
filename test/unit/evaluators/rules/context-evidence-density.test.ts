import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { contextEvidenceDensityEvaluator } from "../../../../evaluators/rules/context-evidence-density.js";
import { buildCase } from "../../../support/case-results.js";
import { caseResultWith, valueOf } from "./build-case-result.js";

const evalCase = buildCase({ gold_evidence: [{ document_id: "leave", section_id: "annual" }] });

describe("context.density", () => {
  test("hand-worked: 10 evidence tokens of 10 + 4 + 10 (the repeated evidence chunk is not evidence twice)", () => {
    const caseResult = caseResultWith({
      retrieved: [
        { chunk_id: "e", text: "员工每年享有5天年假", document_id: "leave", section_id: "annual" }, // 10 tokens: 员 工 每 年 享 有 5 天 年 假
        { chunk_id: "n", text: "Overtime is paid double", document_id: "pay" }, // 4 tokens
      ],
      packed: ["e", "n", "e"],
    });
    const { values, evidence } = contextEvidenceDensityEvaluator.evaluate({ caseResult, evalCase });
    assert.equal(valueOf(values, "evidence_density"), 10 / (10 + 4 + 10));
    assert.deepEqual(evidence, ["e"]);
  });

  test("not applicable: no case, no gold, no packed chunks, a packed chunk without text, an empty context", () => {
    const packed = caseResultWith({ retrieved: [{ chunk_id: "e", text: "x y", document_id: "leave", section_id: "annual" }], packed: ["e"] });
    assert.equal(valueOf(contextEvidenceDensityEvaluator.evaluate({ caseResult: packed, evalCase: null }).values, "evidence_density"), null);
    assert.equal(valueOf(contextEvidenceDensityEvaluator.evaluate({ caseResult: packed, evalCase: buildCase() }).values, "evidence_density"), null);
    assert.equal(valueOf(contextEvidenceDensityEvaluator.evaluate({ caseResult: caseResultWith(), evalCase }).values, "evidence_density"), null);
    const missingText = contextEvidenceDensityEvaluator.evaluate({ caseResult: caseResultWith({ packed: ["unknown"] }), evalCase });
    assert.equal(valueOf(missingText.values, "evidence_density"), null);
    assert.match(missingText.reason, /unknown/);
    assert.equal(valueOf(contextEvidenceDensityEvaluator.evaluate({ caseResult: caseResultWith({ packed: [] }), evalCase }).values, "evidence_density"), null);
  });
});
