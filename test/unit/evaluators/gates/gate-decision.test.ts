/**
 * The decision over an eval's repeats, as `eval` and `gate` print it: every repeat counted, the first too. Built from
 * repeats 2..N alone, a run only repeat 1 blocked read "BLOCKED (the worst of 3 repeats decides: every repeat passed)".
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { describeRepeatDecisions, worstDecision } from "../../../../evaluators/gates/gate-decision.js";

test("repeat 1 blocked, the others passed: the line names repeat 1", () => {
  const decisions = [
    { repeat: 1, decision: "blocked" as const },
    { repeat: 2, decision: "passed" as const },
    { repeat: 3, decision: "passed" as const },
  ];
  assert.equal(worstDecision(decisions.map((item) => item.decision)), "blocked");
  assert.equal(describeRepeatDecisions(decisions), " (the worst of 3 repeats decides: repeat 1 blocked)");
});

test("every repeat passed, or several did not", () => {
  assert.equal(describeRepeatDecisions([{ repeat: 1, decision: "passed" }, { repeat: 2, decision: "passed" }]), " (the worst of 2 repeats decides: every repeat passed)");
  assert.equal(describeRepeatDecisions([{ repeat: 1, decision: "undecided" }, { repeat: 2, decision: "blocked" }]), " (the worst of 2 repeats decides: repeat 1 undecided, repeat 2 blocked)");
});
