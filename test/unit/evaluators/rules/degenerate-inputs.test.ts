/**
 * Every rule evaluator of this library over empty and missing inputs: no
 * throw, every declared metric reported, and each value either not applicable
 * with a reason or a finite number inside the declared range — never NaN.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Evaluator } from "../../../../evaluators/evaluator.js";
import { citationCoverageEvaluator } from "../../../../evaluators/rules/citation-coverage.js";
import { citationEvidenceEvaluator } from "../../../../evaluators/rules/citation-evidence.js";
import { citationFreshnessEvaluator } from "../../../../evaluators/rules/citation-freshness.js";
import { contextEvidenceDensityEvaluator } from "../../../../evaluators/rules/context-evidence-density.js";
import { contextRedundancyEvaluator } from "../../../../evaluators/rules/context-redundancy.js";
import { contextSufficiencyEvaluator } from "../../../../evaluators/rules/context-sufficiency.js";
import { contextTruncationEvaluator } from "../../../../evaluators/rules/context-truncation.js";
import { retrievalCoverageEvaluator } from "../../../../evaluators/rules/retrieval-coverage.js";
import { retrievalFreshnessEvaluator } from "../../../../evaluators/rules/retrieval-freshness.js";
import { retrievalPermissionEvaluator } from "../../../../evaluators/rules/retrieval-permission.js";
import { retrievalUpliftEvaluator } from "../../../../evaluators/rules/retrieval-uplift.js";
import { buildCase } from "../../../support/case-results.js";
import { caseResultWith } from "./build-case-result.js";

const evaluators: Evaluator[] = [
  retrievalCoverageEvaluator,
  retrievalFreshnessEvaluator,
  retrievalPermissionEvaluator,
  retrievalUpliftEvaluator,
  contextRedundancyEvaluator,
  contextEvidenceDensityEvaluator,
  contextSufficiencyEvaluator,
  contextTruncationEvaluator,
  citationEvidenceEvaluator,
  citationFreshnessEvaluator,
  citationCoverageEvaluator,
];

const caseResults = {
  "nothing recorded": caseResultWith(),
  "everything empty": caseResultWith({ retrieved: [], preRerank: [], packed: [], citations: [], dropped_chunks: [], context: "", output: "", principal_groups: [] }),
  "chunks without text or ids": caseResultWith({ retrieved: [{ chunk_id: "a" }], preRerank: [{ chunk_id: "a" }], packed: ["a", "ghost"], citations: ["ghost"], output: "。" }),
  "zero-token texts": caseResultWith({ retrieved: [{ chunk_id: "a", text: "!!!", effective_to: "bad" }], packed: ["a"], citations: ["a"], output: "?!", context: "..." }),
};

const evalCases = {
  "no case": null,
  "case without gold": buildCase(),
  "unanswerable case": buildCase({ answerable: false }),
  "case with gold": buildCase({ gold_evidence: [{ document_id: "d", text: "员工每年享有5天年假" }], environment_requirements: { effective_at: "2026-07-08" } }),
};

describe("rule evaluators over empty and missing inputs", () => {
  for (const [caseName, caseResult] of Object.entries(caseResults)) {
    for (const [evalCaseName, evalCase] of Object.entries(evalCases)) {
      test(`${caseName}, ${evalCaseName}`, () => {
        for (const evaluator of evaluators) {
          const output = evaluator.evaluate({ caseResult, evalCase });
          assert.equal(typeof output.reason, "string");
          for (const metric of evaluator.metrics) {
            const value = output.values[metric.name];
            assert.ok(value, `${evaluator.id} did not report ${metric.name}`);
            if (!value.applicable) {
              assert.ok(value.reason.length > 0, `${evaluator.id}.${metric.name} not applicable without a reason`);
              continue;
            }
            assert.ok(Number.isFinite(value.value), `${evaluator.id}.${metric.name} = ${value.value}`);
            if (metric.range) assert.ok(value.value >= metric.range[0] && value.value <= metric.range[1], `${evaluator.id}.${metric.name} = ${value.value} outside ${metric.range}`);
          }
        }
      });
    }
  }
});
