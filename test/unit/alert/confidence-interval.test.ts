/**
 * Quantiles against published table values, and intervals worked out by hand.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { meanInterval, wilsonInterval } from "../../../collector/10-alert/confidence-interval.js";
import { normalQuantile } from "../../../core/statistics/normal-distribution.js";
import { studentTQuantile } from "../../../core/statistics/student-t-distribution.js";

const close = (actual: number, expected: number, tolerance: number, what: string) => assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} is not ${expected} ± ${tolerance}`);

describe("confidence intervals", () => {
  test("normal and Student-t quantiles match the tables", () => {
    close(normalQuantile(0.975), 1.959964, 1e-6, "z 0.975");
    close(normalQuantile(0.995), 2.575829, 1e-6, "z 0.995");
    close(normalQuantile(0.05), -1.644854, 1e-6, "z 0.05");
    close(studentTQuantile(0.975, 1), 12.706205, 1e-5, "t 0.975, 1 df");
    close(studentTQuantile(0.975, 9), 2.262157, 1e-6, "t 0.975, 9 df");
    close(studentTQuantile(0.975, 19), 2.093024, 1e-6, "t 0.975, 19 df");
    close(studentTQuantile(0.95, 30), 1.697261, 1e-6, "t 0.95, 30 df");
  });

  test("Wilson: 17 passes in 20 at 95 % is 0.6396–0.9476, so 0.92 is inside", () => {
    // p = 0.85, z² = 3.8415, denominator 1 + z²/20 = 1.19207; centre (0.85 + 0.09604) / 1.19207 = 0.79359;
    // half = 1.95996 · sqrt(0.85 · 0.15 / 20 + 3.8415 / 1600) / 1.19207 = 0.15402.
    const interval = wilsonInterval(17, 20, 0.95);
    close(interval.lower, 0.63958, 1e-4, "lower");
    close(interval.upper, 0.94763, 1e-4, "upper");
    assert.equal(interval.mean, 0.85);
    const none = wilsonInterval(0, 20, 0.95);
    assert.equal(none.lower, 0);
    close(none.upper, 3.8415 / 20 / 1.19207, 1e-4, "upper at 0 of 20");
    assert.equal(wilsonInterval(20, 20, 0.95).upper, 1);
  });

  test("t: the mean of 1..5 at 95 % is 3 ± 2.776 · sqrt(2.5/5)", () => {
    const interval = meanInterval([1, 2, 3, 4, 5], 0.95);
    close(interval.lower, 3 - 2.776445 * Math.sqrt(0.5), 1e-5, "lower");
    close(interval.upper, 3 + 2.776445 * Math.sqrt(0.5), 1e-5, "upper");
    assert.throws(() => meanInterval([1], 0.95), /at least two/);
  });
});
