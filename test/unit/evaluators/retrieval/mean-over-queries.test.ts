import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { applicable, notApplicable } from "../../../../evaluators/metric-value.js";
import { meanOverQueries } from "../../../../evaluators/retrieval/mean-over-queries.js";

describe("meanOverQueries", () => {
  test("is the arithmetic mean of the applicable values, leaving the rest out", () => {
    const result = meanOverQueries([applicable(1), notApplicable("no gold"), applicable(0), applicable(0.5)]);
    assert.deepEqual(result, { mean: applicable(0.5), queryCount: 3, notApplicableCount: 1 });
  });

  test("without any applicable value the mean is not applicable, never NaN", () => {
    for (const values of [[], [notApplicable("no gold"), notApplicable("no gold")]]) {
      const result = meanOverQueries(values);
      assert.equal(result.mean.applicable, false);
      assert.equal(result.queryCount, 0);
      assert.equal(result.notApplicableCount, values.length);
    }
  });

  test("accepts any iterable", () => {
    function* values() {
      yield applicable(0.25);
      yield applicable(0.75);
    }
    assert.deepEqual(meanOverQueries(values()).mean, applicable(0.5));
  });
});

describe("MetricValue", () => {
  test("a non-finite value is a bug and throws", () => {
    assert.throws(() => applicable(Number.NaN), RangeError);
    assert.throws(() => applicable(Number.POSITIVE_INFINITY), RangeError);
    assert.deepEqual(notApplicable("why"), { applicable: false, reason: "why" });
  });
});
