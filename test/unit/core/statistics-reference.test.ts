/**
 * Acceptance: ragscope's statistics equal SciPy 1.17 / statsmodels 0.15 /
 * scikit-learn 1.9 on the inputs recorded in test/data/statistics/statistics.json
 * by test/data/statistics/record-statistics.py (command in its docstring):
 * the normal and Student-t distribution functions and quantiles, log-gamma, the
 * regularised incomplete gamma functions and the chi-square tail
 * (core/statistics/), the alert stage's Wilson and t intervals, the exact
 * McNemar test of `ragscope experiment compare`, Cohen's kappa (plain,
 * linear and quadratic weights) of the judge calibration, and the seed's
 * abstention precision / recall (no_answer_accuracy) / over-abstention rate.
 *
 * Tolerances are the documented accuracy of each method: Acklam's normal
 * quantile has relative error below 1.2e-9; the series and continued fractions
 * converge to about 1e-14 relative; the t functions lose digits with many degrees
 * of freedom (test/data/statistics/README.md).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { meanInterval, wilsonInterval } from "../../../collector/10-alert/confidence-interval.js";
import { chiSquareSurvival, regularizedGammaP, regularizedGammaQ } from "../../../core/statistics/incomplete-gamma.js";
import { logGamma } from "../../../core/statistics/log-gamma.js";
import { normalCdf, normalQuantile, normalTwoSidedP } from "../../../core/statistics/normal-distribution.js";
import { studentTDistribution, studentTQuantile } from "../../../core/statistics/student-t-distribution.js";
import { cohenKappa, type RatingPair } from "../../../evaluators/judge/calibration/cohen-kappa.js";
import { exactMcNemar } from "../../../experiments/compare/exact-mcnemar.js";
import { abstentionConfusion } from "../../../evaluators/rules/answer-abstention-confusion.js";
import type { MetricValue } from "../../../evaluators/metric-value.js";

interface Recorded {
  scipy: string;
  statsmodels: string;
  scikit_learn: string;
  normal_quantile: [number, number][];
  normal_cdf: [number, number][];
  normal_two_sided_p: [number, number][];
  student_t_cdf: [number, number, number][];
  student_t_quantile: [number, number, number][];
  log_gamma: [number, number][];
  regularized_gamma: [number, number, number, number][];
  chi_square_survival: [number, number, number][];
  wilson: { successes: number; count: number; confidence: number; lower: number; upper: number }[];
  mean_interval: { name: string; values: number[]; confidence: number; mean: number; lower: number | null; upper: number | null }[];
  exact_mcnemar: { baseline_only: number; candidate_only: number; p_value: number }[];
  cohen_kappa: { name: string; categories: string[]; pairs: [string, string][]; kappa: number | null; linear: number | null; quadratic: number | null }[];
  abstention: {
    name: string;
    observations: { abstained: boolean; answerable: boolean }[];
    precision: number | null;
    recall: number | null;
    over_abstention_rate: number | null;
  }[];
}

const recorded = JSON.parse(readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../data/statistics/statistics.json"), "utf8")) as Recorded;

/** |actual − expected| within `relative` of |expected|, or within `absolute` near zero. */
function assertNear(actual: number | null, expected: number, relative: number, what: string, absolute = 1e-300): void {
  assert.ok(actual !== null && Number.isFinite(actual), `${what}: got ${actual}, reference ${expected}`);
  const tolerance = Math.max(absolute, relative * Math.abs(expected));
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual}, reference ${expected} (difference ${Math.abs(actual - expected)} > ${tolerance})`);
}

describe(`distribution functions against SciPy ${recorded.scipy}`, () => {
  test("normal quantile (scipy.stats.norm.ppf), in all three regions of Acklam's approximation", () => {
    assert.ok(recorded.normal_quantile.length >= 20);
    for (const [p, expected] of recorded.normal_quantile) assertNear(normalQuantile(p), expected, 1.2e-9, `normal quantile ${p}`, 1e-15);
  });

  test("normal distribution function and two-sided tail, far tails included", () => {
    for (const [z, expected] of recorded.normal_cdf) assertNear(normalCdf(z), expected, 1e-12, `Φ(${z})`);
    for (const [z, expected] of recorded.normal_two_sided_p) assertNear(normalTwoSidedP(z), expected, 1e-12, `two-sided p of ${z}`);
  });

  test("Student-t distribution function (scipy.stats.t.cdf), 1 to 100000 degrees, fractional degrees", () => {
    assert.ok(recorded.student_t_cdf.length >= 100);
    // The log-gamma differences of the incomplete beta lose digits as the degrees grow: relative error
    // about 1e-10 at 100000 degrees (1e-7 at 1e8), far below the printed precision of a p-value.
    for (const [t, degrees, expected] of recorded.student_t_cdf) assertNear(studentTDistribution(t, degrees), expected, degrees > 1000 ? 1e-9 : 1e-11, `T(${t}; ${degrees})`);
  });

  test("Student-t quantile (scipy.stats.t.ppf)", () => {
    for (const [p, degrees, expected] of recorded.student_t_quantile) assertNear(studentTQuantile(p, degrees), expected, 1e-9, `t quantile ${p}, ${degrees} degrees`, 1e-12);
  });

  test("log-gamma (scipy.special.gammaln), regularised incomplete gamma (gammainc, gammaincc), chi-square tail", () => {
    for (const [x, expected] of recorded.log_gamma) assertNear(logGamma(x), expected, 1e-13, `log Γ(${x})`, 1e-14);
    for (const [a, x, lower, upper] of recorded.regularized_gamma) {
      assertNear(regularizedGammaP(a, x), lower, 1e-12, `P(${a}, ${x})`);
      assertNear(regularizedGammaQ(a, x), upper, 1e-12, `Q(${a}, ${x})`);
    }
    for (const [x, degrees, expected] of recorded.chi_square_survival) assertNear(chiSquareSurvival(x, degrees), expected, 1e-12, `P(χ²_${degrees} > ${x})`);
  });
});

describe(`alert intervals against statsmodels ${recorded.statsmodels} and SciPy ${recorded.scipy}`, () => {
  test("Wilson interval = proportion_confint(method='wilson'), at 0 and n successes, one sample, fractional successes", () => {
    for (const { successes, count, confidence, lower, upper } of recorded.wilson) {
      const interval = wilsonInterval(successes, count, confidence);
      const what = `Wilson ${successes}/${count} at ${confidence}`;
      // Acklam's z carries a relative error up to 1.2e-9 into the bounds.
      assertNear(interval.lower, lower, 1e-8, `${what} lower`, 1e-12);
      assertNear(interval.upper, upper, 1e-8, `${what} upper`, 1e-12);
    }
  });

  test("t interval of a mean = scipy.stats.t.interval(confidence, n − 1, mean, sem)", () => {
    for (const item of recorded.mean_interval) {
      const interval = meanInterval(item.values, item.confidence);
      assertNear(interval.mean, item.mean, 1e-14, `${item.name}: mean`, 1e-15);
      if (item.lower === null || item.upper === null) {
        // SciPy refuses a zero scale (all values equal) and returns NaN; the interval of
        // identical values is the value itself (test/data/statistics/README.md).
        assert.equal(interval.lower, item.mean, `${item.name}: lower`);
        assert.equal(interval.upper, item.mean, `${item.name}: upper`);
        continue;
      }
      assertNear(interval.lower, item.lower, 1e-9, `${item.name}: lower`, 1e-12);
      assertNear(interval.upper, item.upper, 1e-9, `${item.name}: upper`, 1e-12);
    }
  });
});

describe(`exact McNemar against statsmodels ${recorded.statsmodels} mcnemar(exact=True)`, () => {
  test("no flips, one flip, ties, one-sided flips, hundreds of flips", () => {
    for (const { baseline_only, candidate_only, p_value } of recorded.exact_mcnemar) {
      assertNear(exactMcNemar(baseline_only, candidate_only).pValue, p_value, 1e-12, `b = ${baseline_only}, c = ${candidate_only}`);
    }
  });
});

describe(`Cohen's kappa against scikit-learn ${recorded.scikit_learn} cohen_kappa_score`, () => {
  for (const item of recorded.cohen_kappa) {
    test(item.name, () => {
      const statistics = cohenKappa(item.pairs as RatingPair[], item.categories);
      for (const [name, actual, expected] of [
        ["kappa", statistics.kappa, item.kappa],
        ["linear weights", statistics.linearWeightedKappa, item.linear],
        ["quadratic weights", statistics.quadraticWeightedKappa, item.quadratic],
      ] as const) {
        // scikit-learn's NaN (undefined kappa) is ragscope's null with a reason.
        if (expected === null) assert.equal(actual, null, `${name}: undefined in scikit-learn`);
        else assertNear(actual, expected, 1e-12, name, 1e-15);
      }
    });
  }
});

describe(`abstention precision and recall against scikit-learn ${recorded.scikit_learn} precision_score / recall_score`, () => {
  const valueOrNull = (value: MetricValue) => (value.applicable ? value.value : null);
  for (const item of recorded.abstention) {
    test(item.name, () => {
      const confusion = abstentionConfusion(item.observations);
      for (const [name, actual, expected] of [
        ["precision", confusion.precision, item.precision],
        ["recall", confusion.recall, item.recall],
        ["over-abstention rate", confusion.overAbstentionRate, item.over_abstention_rate],
      ] as const) {
        // scikit-learn's zero_division=nan (an empty denominator) is ragscope's "not applicable".
        if (expected === null) assert.equal(valueOrNull(actual), null, `${name}: empty denominator`);
        else assertNear(valueOrNull(actual), expected, 1e-15, name, 1e-15);
      }
    });
  }
});
