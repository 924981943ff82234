/**
 * Voting across judges, with fakes that implement the real Judge interface.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Judge, JudgeErrorType, JudgeOutcome, JudgeRequest } from "../../../evaluators/judge/judge.js";
import { VotingJudge } from "../../../evaluators/judge/voting-judge.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";

const usage = { inputTokens: 10, outputTokens: 2, cost: 0.01, calls: 1, cached: false };

/** A judge that always gives the same value (pass when ≥ 0.92, faithfulness's rule) or the same grader error. */
function fixedJudge(id: string, answer: number | JudgeErrorType): Judge {
  return {
    id,
    model: `model-${id}`,
    promptVersion: "judge-rubrics@1",
    async judge(request: JudgeRequest): Promise<JudgeOutcome> {
      const common = { metric: request.metric, usage, judgeId: id, promptVersion: "faithfulness@1" };
      if (typeof answer === "string") return { kind: "grader_error", ...common, errorType: answer, message: `${id} failed` };
      return { kind: answer >= 0.92 ? "pass" : "fail", ...common, value: answer, reason: `${id} says ${answer}`, details: { unsupported_claims: answer < 1 ? ["x"] : [] } };
    },
  };
}

const request: JudgeRequest = { metric: "faithfulness", caseResult: buildCaseResult({ output: "a", context: "c" }), evalCase: buildCase() };

describe("VotingJudge", () => {
  test("majority: 2 pass vs 1 fail passes; the value is the median; the disagreement is reported", async () => {
    const outcome = await new VotingJudge({ judges: [fixedJudge("a", 1), fixedJudge("b", 0.95), fixedJudge("c", 0.5)], mode: "majority" }).judge(request);
    assert.equal(outcome.kind, "pass");
    assert.ok(outcome.kind === "pass");
    assert.equal(outcome.value, 0.95);
    const disagreement = outcome.details.disagreement as Record<string, number | boolean>;
    assert.deepEqual({ ...disagreement, value_standard_deviation: undefined }, { unanimous: false, tie: false, pass_votes: 2, fail_votes: 1, grader_errors: 0, value_range: 0.5, value_standard_deviation: undefined });
    // Mean 2.45 / 3 = 0.81667; squared deviations 0.03361 + 0.01778 + 0.10028 = 0.15167; √(0.15167 / 3) = 0.22485.
    assert.ok(Math.abs((disagreement.value_standard_deviation as number) - 0.22485) < 1e-4);
    assert.deepEqual(outcome.details.votes, [
      { judge_id: "a", kind: "pass", value: 1 },
      { judge_id: "b", kind: "pass", value: 0.95 },
      { judge_id: "c", kind: "fail", value: 0.5 },
    ]);
    assert.equal(outcome.details.confidence, "low", "a split vote goes to review");
    assert.match(outcome.reason, /majority of 3 judges \(2 pass, 1 fail\); judges disagree/);
    // Usage of all three calls.
    assert.equal(outcome.usage.calls, 3);
    assert.ok(Math.abs(outcome.usage.cost! - 0.03) < 1e-12);
  });

  test("majority: a tie is a fail", async () => {
    const outcome = await new VotingJudge({ judges: [fixedJudge("a", 1), fixedJudge("b", 0.5)], mode: "majority", quorum: 2 }).judge(request);
    assert.equal(outcome.kind, "fail");
    assert.ok(outcome.kind === "fail" && (outcome.details.disagreement as { tie: boolean }).tie);
  });

  test("mean: the mean value decides with the metric's pass rule", async () => {
    // (1 + 1 + 0.7) / 3 = 0.9 < 0.92: fail, although two of three passed.
    const outcome = await new VotingJudge({ judges: [fixedJudge("a", 1), fixedJudge("b", 1), fixedJudge("c", 0.7)], mode: "mean" }).judge(request);
    assert.equal(outcome.kind, "fail");
    assert.ok(outcome.kind === "fail" && Math.abs(outcome.value - 0.9) < 1e-12);
  });

  test("grader errors do not vote; below the quorum the vote is a grader error, never a pass", async () => {
    const withOneError = await new VotingJudge({ judges: [fixedJudge("a", 1), fixedJudge("b", 1), fixedJudge("c", "timeout")], mode: "majority" }).judge(request);
    assert.equal(withOneError.kind, "pass");
    assert.ok(withOneError.kind === "pass" && (withOneError.details.disagreement as { grader_errors: number }).grader_errors === 1);

    const belowQuorum = await new VotingJudge({ judges: [fixedJudge("a", 1), fixedJudge("b", "refusal"), fixedJudge("c", "timeout")], mode: "majority" }).judge(request);
    assert.equal(belowQuorum.kind, "grader_error");
    assert.ok(belowQuorum.kind === "grader_error");
    assert.equal(belowQuorum.errorType, "refusal");
    assert.match(belowQuorum.message, /1 of 3 judges gave a verdict, quorum 2/);
  });

  test("unanimous votes keep their confidence; duplicate judge ids are refused", async () => {
    const outcome = await new VotingJudge({ judges: [fixedJudge("a", 1), fixedJudge("b", 0.96)], mode: "majority" }).judge(request);
    assert.ok(outcome.kind === "pass" && (outcome.details.disagreement as { unanimous: boolean }).unanimous);
    assert.throws(() => new VotingJudge({ judges: [fixedJudge("a", 1), fixedJudge("a", 1)], mode: "mean" }), /distinct ids/);
  });
});
