/**
 * Acceptance: our metrics reproduce trec_eval 10.0's own expected outputs
 * (shared/testdata/trec_eval/, the files its `make quicktest` diffs against), per
 * topic and for the `all` row, to the 4 printed decimals.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseExpectedOutput, readTrecFile } from "../../../support/trec-files.js";
import { REPRODUCED_MEASURE, reproduceTrecEval, type TrecInvocation } from "../../../support/trec-reproduction.js";

interface Case {
  readonly expectedFile: string;
  readonly invocation: TrecInvocation;
  /** Lower bound on compared values, so the test cannot pass by comparing nothing. */
  readonly minimumCompared: number;
}

const cases: Case[] = [
  // -m all_trec -q qrels.test results.test
  { expectedFile: "out.test.aq", invocation: { qrelsFile: "qrels.test", resultsFile: "results.test" }, minimumCompared: 150 },
  // -m all_trec -q -l2 qrels.rel_level results.test: P/recall/map/rr/success use rel >= 2, nDCG raw grades
  {
    expectedFile: "out.test.aql",
    invocation: { qrelsFile: "qrels.rel_level", resultsFile: "results.test", relevanceLevel: 2 },
    minimumCompared: 150,
  },
  // -m all_trec -q -c qrels.test results.trunc: topic 302 is missing, scores 0, still averaged
  {
    expectedFile: "out.test.aqc",
    invocation: { qrelsFile: "qrels.test", resultsFile: "results.trunc", scoreMissingTopics: true },
    minimumCompared: 150,
  },
  // -m all_trec -q -c -M100 qrels.test results.trunc
  {
    expectedFile: "out.test.aqcM",
    invocation: { qrelsFile: "qrels.test", resultsFile: "results.trunc", scoreMissingTopics: true, truncateTo: 100 },
    minimumCompared: 150,
  },
  // official measures (summary only), graded 0..3 qrels, 31 topics, ids containing '#'
  {
    expectedFile: "out.comment.test",
    invocation: { qrelsFile: "qrels.comment.test", resultsFile: "results.comment.test" },
    minimumCompared: 17,
  },
  // official measures (summary only); the same output is expected for the commented qrels
  { expectedFile: "out.test", invocation: { qrelsFile: "qrels.test", resultsFile: "results.test" }, minimumCompared: 17 },
  {
    expectedFile: "out.test",
    invocation: { qrelsFile: "qrels.test.with-comments", resultsFile: "results.test" },
    minimumCompared: 17,
  },
];

describe("trec_eval expected outputs", () => {
  for (const { expectedFile, invocation, minimumCompared } of cases) {
    test(`${expectedFile} from ${invocation.qrelsFile} + ${invocation.resultsFile}`, () => {
      const expected = parseExpectedOutput(readTrecFile(expectedFile)).filter((line) => REPRODUCED_MEASURE.test(line.measure));
      const ours = reproduceTrecEval(invocation, expected);
      const mismatches: string[] = [];
      for (const { measure, topic, printed } of expected) {
        const mine = ours.get(`${measure}\t${topic}`);
        if (mine !== printed) mismatches.push(`${measure} ${topic}: expected ${printed}, got ${mine}`);
      }
      assert.deepEqual(mismatches, []);
      assert.ok(expected.length >= minimumCompared, `only ${expected.length} values compared`);
      // Every value we produced was compared: nothing computed silently goes unchecked.
      assert.equal(ours.size, expected.length);
    });
  }

  test("the compared measures cover every family and the all row", () => {
    const expected = parseExpectedOutput(readTrecFile("out.test.aq")).filter((line) => REPRODUCED_MEASURE.test(line.measure));
    const families = new Set(expected.map((line) => line.measure.replace(/_\d+$/, "")));
    for (const family of ["P", "recall", "success", "ndcg_cut", "ndcg", "map", "recip_rank", "Rprec", "num_rel", "num_rel_ret"]) {
      assert.ok(families.has(family), `no ${family} line compared`);
    }
    assert.deepEqual([...new Set(expected.map((line) => line.topic))].sort(), ["301", "302", "303", "all"]);
  });
});
