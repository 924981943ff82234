/**
 * Judge outcomes as Evaluation Results, with the heuristic judge and with a
 * fake judge that errs (a fake of the real Judge interface).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { evaluationResult } from "../../../contracts/evaluation-result.js";
import { HeuristicJudge } from "../../../evaluators/judge/heuristic-judge.js";
import type { Judge, JudgeOutcome, JudgeRequest } from "../../../evaluators/judge/judge.js";
import { runJudgeEvaluations } from "../../../evaluators/judge/judge-evaluations.js";
import { qualityStatusOf } from "../../../evaluators/case-verdict.js";
import { reviewMetrics } from "../../../ui/review/review-labels.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";

const caseResult = buildCaseResult({ output: "员工每年享有5天年假，且未使用的年假可折现。", context: "员工每年享有5天年假。" });
const evalCase = buildCase({ input: "员工每年有几天年假？" });

describe("runJudgeEvaluations", () => {
  test("heuristic judge: confidence semantics heuristic, deterministic ids, the unsupported claim in the reason", async () => {
    const first = await runJudgeEvaluations(new HeuristicJudge(), caseResult, evalCase, "2026-07-08T10:00:00.000Z");
    const again = await runJudgeEvaluations(new HeuristicJudge(), caseResult, evalCase, "2026-07-08T11:00:00.000Z");
    assert.deepEqual(first.map((result) => result.evaluation_result_id), again.map((result) => result.evaluation_result_id));
    // The heuristic judge judges only what a word-level heuristic can approximate (HeuristicJudge.metrics);
    // the case has no citations, so citation support does not apply.
    assert.deepEqual(first.map((result) => result.evaluator_id), ["judge.faithfulness"]);
    const faithfulness = first[0];
    assert.ok(faithfulness);
    evaluationResult.parse(faithfulness);
    // A heuristic is a measurement, never a pass or a failure: below the pass rule it would use, review required.
    assert.equal(faithfulness.outcome, "measured");
    assert.equal(faithfulness.review_required, true);
    assert.equal(faithfulness.metric_values.faithfulness, 0.5);
    assert.equal(faithfulness.metric_values.judge_cost, 0);
    assert.deepEqual(faithfulness.confidence, { value: 0.5, semantics: "heuristic" });
    assert.match(faithfulness.reason, /^faithfulness = 0\.5: .*未使用的年假可折现/);
    assert.equal(faithfulness.evaluator_version, "heuristic-faithfulness@1+heuristic");
  });

  test("heuristic judge results are measurements, passing or not: the case verdict and the review metrics read them as before", async () => {
    const supported = buildCaseResult({ output: "员工每年享有5天年假。", context: "员工每年享有5天年假。" });
    const [above] = await runJudgeEvaluations(new HeuristicJudge(), supported, evalCase, "2026-07-08T10:00:00.000Z");
    const [below] = await runJudgeEvaluations(new HeuristicJudge(), caseResult, evalCase, "2026-07-08T10:00:00.000Z");
    assert.ok(above && below);
    assert.deepEqual([above.outcome, above.review_required, above.metric_values.faithfulness], ["measured", false, 1]);
    assert.deepEqual([below.outcome, below.review_required], ["measured", true]);
    // A heuristic pass is no verdict (unjudged); a heuristic score below the pass rule is a signal: needs review.
    assert.equal(qualityStatusOf([above]), "unjudged");
    assert.equal(qualityStatusOf([below]), "review_required");
    // The reviewer labels the judged metric either way.
    assert.deepEqual(reviewMetrics([above]), ["faithfulness"]);
    assert.deepEqual(reviewMetrics([below]), ["faithfulness"]);
  });

  test("a grader error is an error result with a null value — never a pass, never NaN", async () => {
    const failing: Judge = {
      id: "always-times-out",
      model: "m",
      promptVersion: "p",
      async judge(request: JudgeRequest): Promise<JudgeOutcome> {
        return { kind: "grader_error", metric: request.metric, errorType: "timeout", message: "no answer within 30000 ms", usage: { inputTokens: 0, outputTokens: 0, cost: 0, calls: 3, cached: false }, judgeId: "always-times-out", promptVersion: `${request.metric}@1` };
      },
    };
    const results = await runJudgeEvaluations(failing, caseResult, evalCase, "2026-07-08T10:00:00.000Z");
    assert.equal(results.length, 4);
    for (const result of results) {
      const metric = result.evaluator_id.slice("judge.".length);
      assert.equal(result.outcome, "error");
      assert.equal(result.error_type, "evaluator_error");
      assert.equal(result.metric_values[metric], null);
      assert.equal(result.review_required, true);
      assert.deepEqual(result.confidence, { value: 0, semantics: "judge_self_report" });
      assert.match(result.reason, /grader error \(timeout\) from always-times-out/);
    }
  });
});
