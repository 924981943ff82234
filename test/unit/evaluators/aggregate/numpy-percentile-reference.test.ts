/**
 * Acceptance: ragscope's nearest-rank percentile (P50/P95/P99 latency, the gate
 * file's pNN_<metric>) equals NumPy 2.4's numpy.percentile(method="inverted_cdf")
 * on designed lists — single value, all equal, ties, unsorted, negative values,
 * every integer percentile of 1..50 and 1..100 — recorded in
 * test/data/numpy/percentiles.json by test/data/numpy/record-percentiles.py.
 *
 * Where NumPy's floating-point P/100 lands above an integer rank (P7 of 100
 * values: 0.07 · 100 = 7.000000000000001, so NumPy returns the 8th value) the
 * recording marks the case and ragscope follows the definition, rank
 * ceil(P · n / 100) in exact arithmetic (test/data/numpy/README.md).
 *
 * The same file holds numpy.quantile(method="linear") values for the linear
 * quantile the paired bootstrap of `ragscope experiment compare` reads.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { nearestRankPercentile } from "../../../../evaluators/aggregate/percentile.js";
import { quantile } from "../../../../experiments/compare/paired-bootstrap.js";
import { valueOf } from "../text/metric-assertions.js";

interface RecordedResult {
  percentile: number;
  numpy: number;
  definition: number;
  numpy_differs_from_definition?: true;
}

const recorded = JSON.parse(readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../data/numpy/percentiles.json"), "utf8")) as {
  numpy_version: string;
  cases: { name: string; values: number[]; results: RecordedResult[] }[];
  linear: { name: string; values: number[]; results: { probability: number; numpy: number }[] }[];
};

const sortedCopy = (values: readonly number[]) => [...values].sort((left, right) => left - right);

describe(`nearest-rank percentile against NumPy ${recorded.numpy_version} inverted_cdf`, () => {
  test("the recording compares hundreds of values, including the ones where NumPy's binary P/100 differs", () => {
    const results = recorded.cases.flatMap((item) => item.results);
    assert.ok(results.length >= 200, `only ${results.length} recorded percentiles`);
    assert.ok(results.filter((result) => result.numpy_differs_from_definition).length >= 5);
  });

  for (const item of recorded.cases) {
    test(item.name, () => {
      const sorted = sortedCopy(item.values);
      for (const result of item.results) {
        const actual = valueOf(nearestRankPercentile(sorted, result.percentile));
        if (result.numpy_differs_from_definition) {
          assert.equal(actual, result.definition, `P${result.percentile} of ${item.values.length} values: rank ceil(P·n/100) in exact arithmetic`);
          assert.notEqual(actual, result.numpy);
        } else {
          assert.equal(actual, result.numpy, `P${result.percentile} of ${item.values.length} values`);
        }
      }
    });
  }
});

describe(`linear quantile of the paired bootstrap against NumPy ${recorded.numpy_version} quantile(method="linear")`, () => {
  for (const item of recorded.linear) {
    test(item.name, () => {
      const sorted = sortedCopy(item.values);
      for (const result of item.results) {
        const actual = quantile(sorted, result.probability);
        assert.ok(Math.abs(actual - result.numpy) <= 1e-15, `q ${result.probability} of ${item.values.length} values: ${actual}, NumPy ${result.numpy}`);
      }
    });
  }
});

