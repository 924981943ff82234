import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { abstentionConfusion, abstentionOutcome } from "../../../../evaluators/rules/answer-abstention-confusion.js";
import { assertClose, assertNotApplicable } from "../text/metric-assertions.js";

const repeat = (count: number, abstained: boolean, answerable: boolean) => Array.from({ length: count }, () => ({ abstained, answerable }));

describe("abstentionOutcome", () => {
  test("the four cells of the confusion matrix", () => {
    assert.equal(abstentionOutcome({ abstained: true, answerable: false }), "true_abstention");
    assert.equal(abstentionOutcome({ abstained: true, answerable: true }), "false_abstention");
    assert.equal(abstentionOutcome({ abstained: false, answerable: false }), "missed_abstention");
    assert.equal(abstentionOutcome({ abstained: false, answerable: true }), "answered");
  });
});

describe("abstentionConfusion (seed 004 §五.6)", () => {
  test("a hand-made set: 3 true, 1 false, 2 missed abstentions, 6 answered", () => {
    const confusion = abstentionConfusion([...repeat(3, true, false), ...repeat(1, true, true), ...repeat(2, false, false), ...repeat(6, false, true)]);
    assert.deepEqual(confusion.counts, { true_abstention: 3, false_abstention: 1, missed_abstention: 2, answered: 6 });
    // Precision: correct abstentions / all abstentions = 3 / (3 + 1).
    assertClose(confusion.precision, 3 / 4);
    // Recall: unanswerable cases abstained on / all unanswerable = 3 / (3 + 2).
    assertClose(confusion.recall, 3 / 5);
    // Over-abstention: answerable cases refused / all answerable = 1 / (1 + 6).
    assertClose(confusion.overAbstentionRate, 1 / 7);
  });

  test("zero denominators are not applicable, never NaN", () => {
    const empty = abstentionConfusion([]);
    assertNotApplicable(empty.precision);
    assertNotApplicable(empty.recall);
    assertNotApplicable(empty.overAbstentionRate);
    const neverAbstained = abstentionConfusion(repeat(2, false, true));
    assertNotApplicable(neverAbstained.precision);
    assertNotApplicable(neverAbstained.recall);
    assertClose(neverAbstained.overAbstentionRate, 0);
    const onlyUnanswerable = abstentionConfusion(repeat(2, true, false));
    assertClose(onlyUnanswerable.precision, 1);
    assertClose(onlyUnanswerable.recall, 1);
    assertNotApplicable(onlyUnanswerable.overAbstentionRate);
  });
});
