/**
 * Acceptance: displayed values round as trec_eval prints them (C printf
 * "%.4f", round-half-even on the exact binary value), checked against C printf
 * outputs recorded in test/data/printf/ (command in record-printf.sh).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { formatFixed } from "../../../evaluators/format-fixed.js";
import { createRankingEvaluator } from "../../../evaluators/retrieval/evaluate-ranking.js";

const recorded = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../data/printf/printf-4-decimals.tsv"), "utf8")
  .trim()
  .split("\n")
  .map((line) => line.split("\t") as [string, string]);

describe("formatFixed: C printf rounding", () => {
  test("equals printf(\"%.4f\") on every recorded value, exact binary halves included", () => {
    assert.ok(recorded.length >= 30);
    const mismatches = recorded.filter(([value, printed]) => formatFixed(Number(value), 4) !== printed).map(([value, printed]) => `${value}: printf ${printed}, ours ${formatFixed(Number(value), 4)}`);
    assert.deepEqual(mismatches, []);
  });

  test("exact halves go to the even digit, where toFixed goes up", () => {
    assert.equal(formatFixed(0.03125, 4), "0.0312");
    assert.equal((0.03125).toFixed(4), "0.0313");
    assert.equal(formatFixed(0.09375, 4), "0.0938");
    assert.equal(formatFixed(-0.03125, 4), "-0.0312");
    assert.equal(formatFixed(0.125, 2), "0.12");
    assert.equal(formatFixed(0.375, 2), "0.38");
    assert.equal(formatFixed(2.5, 0), "2");
    assert.equal(formatFixed(3.5, 0), "4");
  });

  test("a reciprocal rank of 1/32 prints as trec_eval prints it", () => {
    const items = Array.from({ length: 32 }, (_, index) => ({ id: `d${index + 1}` }));
    const result = createRankingEvaluator().evaluate(items, new Map([["d32", 1]]));
    assert.ok(result.reciprocalRank.applicable);
    assert.equal(formatFixed(result.reciprocalRank.value, 4), "0.0312");
  });

  test("a decimal count outside 0..20 is a programming error", () => {
    assert.throws(() => formatFixed(1, -1), RangeError);
    assert.throws(() => formatFixed(1, 2.5), RangeError);
  });
});
