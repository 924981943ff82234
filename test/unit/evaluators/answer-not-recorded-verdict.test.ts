/**
 * A request that generated an answer its trace does not carry is never passed: no check read the answer, so a
 * retrieval that met its gold evidence says nothing of it (test/golden/azure-ai-inference-without-content.test.ts
 * is the recorded case: an instrumentation with content recording off). A firm failure still fails it; a request
 * with no generation (a retrieval evaluated on its own) and a recorded abstention are passed as before.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { CaseResult } from "../../../contracts/case-result.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { buildCase, buildCaseResult, type CaseResultInput } from "../../support/case-results.js";

const evidenceCase = buildCase({ gold_evidence: [{ document_id: "leave", chunk_id: "leave_s2" }], rubric: { recall_at_k: ">= 1" } });
const retrieved = [
  { chunk_id: "leave_s2", document_id: "leave", text: "Up to five days carry over." },
  { chunk_id: "pay_s1", document_id: "pay", text: "Pay is monthly." },
];

function withStages(input: CaseResultInput, stages: ("retrieve" | "generate")[]): CaseResult {
  const result = buildCaseResult(input);
  return { ...result, rag_observation: { ...result.rag_observation, stage_timings: stages.map((stage) => ({ stage, span_name: stage, duration_ms: 1, status: "unset" as const })) } };
}

function verdictOf(caseResult: CaseResult, evalCase = evidenceCase) {
  const evaluation = evaluateCaseResult(createDefaultRegistry(), caseResult, evalCase, "2026-07-08T09:32:01Z");
  const ranking = evaluation.evaluationResults.find((result) => result.evaluator_id === "retrieval.ranking");
  return { status: evaluation.caseResult.quality_status, ranking: ranking?.outcome };
}

describe("a generated answer the trace does not carry", () => {
  test("the retrieval passes its gold evidence, the answer was generated and not recorded: unjudged, not passed", () => {
    assert.deepEqual(verdictOf(withStages({ retrieved, output: null }, ["retrieve", "generate"])), { status: "unjudged", ranking: "passed" });
  });

  test("the same retrieval with its answer recorded, or with no generation at all: passed, as before", () => {
    assert.deepEqual(verdictOf(withStages({ retrieved, output: "Up to five days carry over." }, ["retrieve", "generate"])), { status: "passed", ranking: "passed" });
    assert.deepEqual(verdictOf(withStages({ retrieved, output: null }, ["retrieve"])), { status: "passed", ranking: "passed" });
  });

  test("a retrieval that fails its gold evidence still fails the case", () => {
    const missed = [retrieved[1]!];
    assert.deepEqual(verdictOf(withStages({ retrieved: missed, output: null }, ["retrieve", "generate"])), { status: "failed", ranking: "failed" });
  });

  test("an abstention the trace flags, on an unanswerable case, is a recorded answer: passed", () => {
    const unanswerable = buildCase({ answerable: false });
    assert.equal(verdictOf(withStages({ output: null, abstained: true }, ["retrieve", "generate"]), unanswerable).status, "passed");
  });
});
