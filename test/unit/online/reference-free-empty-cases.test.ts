/**
 * Every reference-free metric of evaluators/online/ on traces that carry
 * nothing to judge: the metric is not applicable — stored as null, never 0,
 * never NaN — and the evaluator's outcome is not_applicable.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { EvaluatorRegistry } from "../../../evaluators/evaluator-registry.js";
import type { Evaluator } from "../../../evaluators/evaluator.js";
import { heuristicGroundednessEvaluator } from "../../../evaluators/online/heuristic-groundedness.js";
import { permissionLeakEvaluator } from "../../../evaluators/online/permission-leak.js";
import { promptInjectionEvaluator } from "../../../evaluators/online/prompt-injection.js";
import { sensitiveDataInAnswerEvaluator } from "../../../evaluators/online/sensitive-data-in-answer.js";
import { onlineCaseResult, type OnlineCaseResultInput } from "../../support/online-case-results.js";

const evaluators: Evaluator[] = [heuristicGroundednessEvaluator, sensitiveDataInAnswerEvaluator, permissionLeakEvaluator, promptInjectionEvaluator];

const emptyTraces: Record<string, OnlineCaseResultInput> = {
  "nothing recorded": {},
  "empty answer, empty retrieval, empty context, no citations": { output: "", retrieved: [], context: "", contextChunkIds: [], citations: [] },
  "whitespace answer, chunks without text": { output: "  \n ", retrieved: [{ chunk_id: "a", text: null }], contextChunkIds: ["a"], citations: [] },
};

describe("reference-free metrics on empty traces", () => {
  for (const [name, input] of Object.entries(emptyTraces)) {
    test(`${name}: every metric not applicable`, () => {
      const caseResult = onlineCaseResult(input);
      for (const evaluator of evaluators) {
        const output = evaluator.evaluate({ caseResult, evalCase: null });
        for (const metric of evaluator.metrics) {
          const value = output.values[metric.name];
          assert.ok(value !== undefined, `${evaluator.id} returned no value for ${metric.name}`);
          assert.equal(value.applicable, false, `${evaluator.id}.${metric.name} should not apply to "${name}"`);
        }
      }
      const registry = evaluators.reduce((built, evaluator) => built.register(evaluator), new EvaluatorRegistry());
      const { evaluationResults } = evaluateCaseResult(registry, caseResult, null, "2026-07-08T10:00:00.000Z");
      for (const result of evaluationResults) {
        assert.equal(result.outcome, "not_applicable", result.evaluator_id);
        assert.ok(Object.values(result.metric_values).every((value) => value === null), result.evaluator_id);
      }
      assert.doesNotMatch(JSON.stringify(evaluationResults), /NaN/);
    });
  }

  test("groundedness: an abstention, and an answer without a checkable claim, are not applicable; an abstention flag does not hide claims", () => {
    const context = "年假需提前三天申请。";
    for (const output of ["资料中没有相关信息，无法回答。", "好的。", "Yes."]) {
      const value = heuristicGroundednessEvaluator.evaluate({ caseResult: onlineCaseResult({ output, context }), evalCase: null }).values.heuristic_groundedness!;
      assert.equal(value.applicable, false, output);
    }
    // The trace flags an abstention, but the answer still asserts something: it is checked.
    const flagged = heuristicGroundednessEvaluator.evaluate({ caseResult: onlineCaseResult({ output: "年假可以折现。", context, abstained: true }), evalCase: null });
    assert.equal(flagged.values.heuristic_groundedness!.applicable, true);
  });
});
