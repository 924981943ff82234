/**
 * The claim-overlap measure (`heuristic_groundedness`, evaluators/online/
 * heuristic-groundedness.ts) and the heuristic judge's faithfulness on the
 * three failure modes found on public human-labelled data:
 * 1. one abstention phrase anywhere made the whole answer "abstained" and hid
 *    its claims;
 * 2. a preamble ("Here's a concise summary of the passage:") was counted as an
 *    unsupported claim;
 * 3. a bare year did not match a full date in the context (1933 vs
 *    September 1, 1933).
 * Expected values are worked out by hand from the documented rule
 * (online/claim-support.ts): a claim overlaps when >= 0.6 of its distinct
 * content words are in the context and every number, date and entity it
 * states is there too.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { EvaluatorRegistry } from "../../../evaluators/evaluator-registry.js";
import { heuristicGroundednessEvaluator } from "../../../evaluators/online/heuristic-groundedness.js";
import { HeuristicJudge } from "../../../evaluators/judge/heuristic-judge.js";
import { answerClaims } from "../../../evaluators/text/answer-sentences.js";
import { buildCase, buildCaseResult } from "../../support/case-results.js";
import { onlineCaseResult } from "../../support/online-case-results.js";

const overlap = (output: string, context: string) => heuristicGroundednessEvaluator.evaluate({ caseResult: onlineCaseResult({ output, context }), evalCase: null });

async function faithfulness(output: string, context: string) {
  const outcome = await new HeuristicJudge().judge({ metric: "faithfulness", caseResult: buildCaseResult({ output, context }), evalCase: buildCase() });
  if (outcome.kind === "grader_error") throw new Error(`grader error: ${JSON.stringify(outcome)}`);
  return outcome;
}

describe("failure mode 1: an abstention on one point does not hide the answer's other claims", () => {
  const context = "The Louvre Pyramid was designed by I. M. Pei. It was completed in 1989.";
  const answer = "The passage does not mention who paid for it. The pyramid was designed by Frank Gehry and completed in 1975.";

  test("the abstaining sentence is set aside, the asserted ones are claims", () => {
    const claims = answerClaims(answer);
    assert.deepEqual(claims.abstentions, ["The passage does not mention who paid for it"]);
    assert.deepEqual(claims.claims, ["The pyramid was designed by Frank Gehry and completed in 1975"]);
  });

  test("the claim-overlap measure checks them: 0 of 1 overlaps (Frank Gehry and 1975 are not in the context)", () => {
    const output = overlap(answer, context);
    assert.deepEqual(output.values.heuristic_groundedness, { applicable: true, value: 0 });
    assert.match(output.reason, /Frank Gehry/);
    assert.match(output.reason, /1975/);
  });

  test("a Chinese answer that abstains on one point and asserts another is checked too", () => {
    const output = overlap("资料中没有提到报销时限。年假可以全部折现。", "员工每年享有5天年假，未使用的年假不可折现。");
    assert.equal(output.values.heuristic_groundedness!.applicable, true);
  });

  test("the heuristic judge's faithfulness checks them as well", async () => {
    const outcome = await faithfulness(answer, context);
    assert.equal(outcome.kind, "fail");
    assert.equal(outcome.value, 0);
  });

  test("an answer that only abstains still claims nothing: not applicable", () => {
    const output = overlap("The passage does not mention who designed it.", context);
    assert.equal(output.values.heuristic_groundedness!.applicable, false);
    assert.match(output.reason, /abstained/);
  });
});

describe("failure mode 2: a preamble is not a claim", () => {
  const context = "The museum opened in Lyon in 1933. It holds 2,000 paintings.";

  test("a lead-in line ending with a colon is set aside; the claims after it are all supported: 2 of 2", () => {
    const answer = "Here's a concise summary of the passage:\nThe museum opened in Lyon in 1933. It holds 2,000 paintings.";
    assert.deepEqual(answerClaims(answer).preambles, ["Here's a concise summary of the passage:"]);
    assert.deepEqual(overlap(answer, context).values.heuristic_groundedness, { applicable: true, value: 1 });
  });

  test("a lead-in before a colon on the same line is dropped, what follows it is checked", () => {
    const answer = "Here is a summary: the museum opened in Lyon in 1933.";
    assert.deepEqual(answerClaims(answer).claims, ["the museum opened in Lyon in 1933"]);
    assert.deepEqual(overlap(answer, context).values.heuristic_groundedness, { applicable: true, value: 1 });
  });

  test("a Chinese lead-in (以下是…：) is set aside too", () => {
    assert.deepEqual(answerClaims("以下是资料的总结：\n员工每年享有5天年假。").claims, ["员工每年享有5天年假"]);
  });

  test("a colon inside a statement is not a preamble", () => {
    assert.deepEqual(answerClaims("The refund period is: 15 days.").claims, ["The refund period is: 15 days"]);
  });

  test("the heuristic judge no longer fails a faithful summary for its preamble", async () => {
    const outcome = await faithfulness("Here's a concise summary of the passage:\nThe museum opened in Lyon in 1933.", context);
    assert.equal(outcome.value, 1);
    assert.equal(outcome.kind, "pass");
  });
});

describe("failure mode 3: a bare year matches a full date of that year in the context", () => {
  const context = "The treaty was signed in Geneva on September 1, 1933.";

  test("1933 is stated by September 1, 1933", () => {
    assert.deepEqual(overlap("The treaty was signed in Geneva in 1933.", context).values.heuristic_groundedness, { applicable: true, value: 1 });
  });

  test("a wrong year is still missing: 1934", () => {
    const output = overlap("The treaty was signed in Geneva in 1934.", context);
    assert.deepEqual(output.values.heuristic_groundedness, { applicable: true, value: 0 });
    assert.match(output.reason, /not in the context: 1934/);
  });

  test("a less precise date is stated by a more precise one: September 1933, 1933年 by 1933年9月1日", () => {
    assert.deepEqual(overlap("The treaty was signed in Geneva in September 1933.", context).values.heuristic_groundedness, { applicable: true, value: 1 });
    assert.deepEqual(overlap("条约于1933年在日内瓦签署。", "条约于1933年9月1日在日内瓦签署。").values.heuristic_groundedness, { applicable: true, value: 1 });
    // A different month is not stated.
    assert.deepEqual(overlap("The treaty was signed in Geneva in October 1933.", context).values.heuristic_groundedness, { applicable: true, value: 0 });
  });

  test("a number that is not a plausible year is not matched against dates: 1 day", () => {
    const output = overlap("The treaty was signed in Geneva within 1 day.", context);
    assert.deepEqual(output.values.heuristic_groundedness, { applicable: true, value: 0 });
  });
});

describe("the overlap measure is a routing signal, never a verdict", () => {
  test("unsupported claims: outcome measured (no threshold), review_required set; all supported: no review", () => {
    const registry = new EvaluatorRegistry().register(heuristicGroundednessEvaluator);
    const against = evaluateCaseResult(registry, onlineCaseResult({ output: "The treaty was signed in Paris in 1950.", context: "The treaty was signed in Geneva on September 1, 1933." }), null, "2026-07-08T10:00:00.000Z");
    assert.equal(against.evaluationResults[0]!.outcome, "measured");
    assert.equal(against.evaluationResults[0]!.review_required, true);
    assert.match(against.evaluationResults[0]!.reason, /needs review \(heuristic signal, not a verdict\)/);
    assert.equal(against.caseResult.quality_status, "review_required");

    const supported = evaluateCaseResult(registry, onlineCaseResult({ output: "The treaty was signed in Geneva in 1933.", context: "The treaty was signed in Geneva on September 1, 1933." }), null, "2026-07-08T10:00:00.000Z");
    assert.equal(supported.evaluationResults[0]!.outcome, "measured");
    assert.equal(supported.evaluationResults[0]!.review_required, false);
    // Nothing able to judge the case judged it: unjudged, not passed.
    assert.equal(supported.caseResult.quality_status, "unjudged");
  });
});
