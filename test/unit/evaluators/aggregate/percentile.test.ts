import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { nearestRankPercentile, summarizeDistribution } from "../../../../evaluators/aggregate/percentile.js";
import type { MetricValue } from "../../../../evaluators/metric-value.js";

const valueOf = (value: MetricValue) => (value.applicable ? value.value : null);

describe("nearest-rank percentiles", () => {
  test("rank ceil(P/100 × n) of the sorted values: P95 of 1..20 is 19, P50 of 4 values the 2nd", () => {
    const twenty = Array.from({ length: 20 }, (_, index) => index + 1);
    assert.equal(valueOf(nearestRankPercentile(twenty, 95)), 19);
    assert.equal(valueOf(nearestRankPercentile(twenty, 99)), 20);
    assert.equal(valueOf(nearestRankPercentile([10, 20, 30, 40], 50)), 20);
    assert.equal(valueOf(nearestRankPercentile([7], 1)), 7);
    assert.equal(valueOf(nearestRankPercentile([1, 2, 3], 100)), 3);
  });

  test("no values or an invalid percentile: not applicable, never NaN", () => {
    assert.equal(valueOf(nearestRankPercentile([], 50)), null);
    assert.equal(valueOf(nearestRankPercentile([1], 0)), null);
    assert.equal(valueOf(nearestRankPercentile([1], 101)), null);
    assert.equal(valueOf(nearestRankPercentile([1], Number.NaN)), null);
    const empty = summarizeDistribution([]);
    assert.equal(empty.count, 0);
    assert.ok([empty.mean, empty.p50, empty.p95, empty.p99, empty.max].every((value) => !value.applicable));
  });

  test("summary of unsorted values; non-finite values are dropped", () => {
    const summary = summarizeDistribution([300, 100, 200, Number.NaN, 400]);
    assert.equal(summary.count, 4);
    assert.equal(valueOf(summary.mean), 250);
    assert.equal(valueOf(summary.p50), 200);
    assert.equal(valueOf(summary.p95), 400);
    assert.equal(valueOf(summary.max), 400);
  });
});
