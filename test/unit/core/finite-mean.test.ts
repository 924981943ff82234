/**
 * Means of values whose sum goes beyond the largest number (a trace may carry
 * any finite count or cost): the mean is still a number, and an ordinary
 * mean keeps the digits of the plain sum divided once.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { finiteMean, finiteSum } from "../../../core/finite-mean.js";
import { pairedBootstrap } from "../../../experiments/compare/paired-bootstrap.js";

test("two values of 1e308 average 1e308, where their sum is Infinity", () => {
  assert.equal(1e308 + 1e308, Infinity);
  assert.equal(finiteMean([1e308, 1e308]), 1e308);
  assert.equal(finiteMean([-1e308, -1e308, -1e308]), -1e308);
  assert.equal(finiteSum([1e308, 1e308]), null);
  assert.equal(finiteSum([1e308, -1e308, 5]), 5);
});

test("values at the edge of the range: shares that round past the largest number are brought back within it", () => {
  const largest = Number.MAX_VALUE;
  assert.equal(largest / 3 + largest / 3 + largest / 3, Infinity, "the shares' sum rounds past it");
  assert.equal(finiteMean([largest, largest, largest]), largest);
  assert.equal(finiteMean([-largest, -largest, -largest]), -largest);
  const interval = pairedBootstrap(Array.from({ length: 12 }, () => largest), Array.from({ length: 12 }, () => 0), { resamples: 50, seed: 3 });
  assert.deepEqual([interval!.meanDifference, interval!.low, interval!.high], [largest, largest, largest]);
});

test("an ordinary mean is the plain sum divided once, digit for digit", () => {
  assert.equal(finiteMean([0.1, 0.2, 0.3]), (0.1 + 0.2 + 0.3) / 3);
  assert.equal(finiteMean([1, 2, 4]), 7 / 3);
  assert.throws(() => finiteMean([]), RangeError);
});

test("paired bootstrap of differences of 1e308: every resample's mean, and so the interval, is 1e308, not Infinity", () => {
  const interval = pairedBootstrap(Array.from({ length: 12 }, () => 1e308), Array.from({ length: 12 }, () => 0), { resamples: 200, seed: 7 });
  assert.ok(interval !== null);
  assert.deepEqual([interval.meanDifference, interval.low, interval.high], [1e308, 1e308, 1e308]);
});
