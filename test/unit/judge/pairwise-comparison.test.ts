/**
 * A/B order swap with scripted preference sources (fakes of the real
 * PreferenceSource interface): a preference counts only when both orders agree.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { failure, success } from "../../../core/result.js";
import { comparePairwise, type PositionPreference, type PreferenceQuestion, type PreferenceSource } from "../../../evaluators/judge/pairwise/pairwise-comparison.js";

const usage = { inputTokens: 1, outputTokens: 1, cost: 0.5, calls: 1, cached: false };

function scripted(answers: PositionPreference[]): PreferenceSource & { seen: PreferenceQuestion[] } {
  const seen: PreferenceQuestion[] = [];
  return {
    id: "scripted",
    seen,
    async prefer(question) {
      seen.push(question);
      const preferred = answers[seen.length - 1];
      return preferred === undefined ? failure({ errorType: "timeout", message: "no answer", usage }) : success({ preferred, reason: `picked ${preferred}`, usage });
    },
  };
}

const request = { question: "q", answerA: "answer A", answerB: "answer B" };

describe("comparePairwise", () => {
  test("the second question swaps the order", async () => {
    const source = scripted(["first", "second"]);
    await comparePairwise(source, request);
    assert.deepEqual(source.seen.map((question) => [question.first, question.second]), [["answer A", "answer B"], ["answer B", "answer A"]]);
  });

  test("first then second = A both times: A, consistent", async () => {
    const outcome = await comparePairwise(scripted(["first", "second"]), request);
    assert.ok(outcome.kind === "verdict");
    assert.equal(outcome.verdict, "A");
    assert.equal(outcome.consistent, true);
    assert.equal(outcome.usage.cost, 1);
  });

  test("second then first = B both times: B", async () => {
    const outcome = await comparePairwise(scripted(["second", "first"]), request);
    assert.ok(outcome.kind === "verdict" && outcome.verdict === "B");
  });

  test("always the first position: inconsistent (position bias)", async () => {
    const outcome = await comparePairwise(scripted(["first", "first"]), request);
    assert.ok(outcome.kind === "verdict");
    assert.equal(outcome.verdict, "inconsistent");
    assert.equal(outcome.consistent, false);
    assert.match(outcome.reason, /position bias/);
  });

  test("a tie in one order and a preference in the other is inconsistent; ties in both are a tie", async () => {
    const mixed = await comparePairwise(scripted(["tie", "first"]), request);
    assert.ok(mixed.kind === "verdict" && mixed.verdict === "inconsistent");
    const tie = await comparePairwise(scripted(["tie", "tie"]), request);
    assert.ok(tie.kind === "verdict" && tie.verdict === "tie" && tie.consistent);
  });

  test("a failure in the second order is a grader error with both calls' usage", async () => {
    const outcome = await comparePairwise(scripted(["first"]), request);
    assert.equal(outcome.kind, "grader_error");
    assert.ok(outcome.kind === "grader_error" && outcome.errorType === "timeout" && outcome.usage.calls === 2);
    assert.match(outcome.kind === "grader_error" ? outcome.message : "", /order B,A/);
  });
});
