/**
 * The experiment statistics against SciPy and statsmodels: inputs and
 * expected values both come from test/data/experiments/reference-statistics.json,
 * written by reference-statistics.py beside it (the command is in its header).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chiSquareSurvival } from "../../../../core/statistics/incomplete-gamma.js";
import { normalCdf } from "../../../../core/statistics/normal-distribution.js";
import { clusterBootstrap } from "../../../../evaluators/experiments/cluster-bootstrap.js";
import { clusteredDifference } from "../../../../evaluators/experiments/clustered-difference.js";
import { minimumSampleSizeForRate } from "../../../../evaluators/experiments/minimum-sample-size.js";
import { separatedArmsPValue, separatedArmsSampleSize } from "../../../../evaluators/experiments/separated-arms-test.js";
import { sampleRatioMismatch } from "../../../../evaluators/experiments/sample-ratio-mismatch.js";
import { twoProportionTest } from "../../../../evaluators/experiments/two-proportion-test.js";
import { unitTotals } from "../../../../evaluators/experiments/unit-totals.js";
import { welchTest } from "../../../../evaluators/experiments/welch-test.js";

interface Reference {
  two_proportion: { control: [number, number]; variant: [number, number]; z: number; p_value: number; lower: number; upper: number }[];
  welch: { control: number[]; variant: number[]; t: number; p_value: number; df: number; lower: number; upper: number }[];
  clustered: { rows: [number, string, number][]; difference: number; standard_error: number; p_value: number; lower: number; upper: number }[];
  srm: { counts: number[]; weights: number[]; chi_square: number; p_value: number }[];
  sample_size: { baseline: number; change: number; alpha: number; power: number; per_arm: number }[];
  distributions: { normal_cdf: [number, number][]; chi_square_survival: [number, number, number][] };
  bootstrap: { control: number[]; variant: number[]; lower: number; upper: number };
}

const reference = JSON.parse(readFileSync(fileURLToPath(new URL("../../../data/experiments/reference-statistics.json", import.meta.url)), "utf8")) as Reference;

function close(actual: number | null, expected: number, relative: number, label: string): void {
  assert.ok(actual !== null, label);
  const tolerance = relative * Math.max(1e-12, Math.abs(expected));
  assert.ok(Math.abs(actual - expected) <= tolerance, `${label}: ${actual} vs ${expected}`);
}

describe("experiment statistics against SciPy / statsmodels", () => {
  test("normal distribution function and chi-square tail", () => {
    for (const [z, expected] of reference.distributions.normal_cdf) close(normalCdf(z), expected, 1e-9, `Φ(${z})`);
    for (const [x, degrees, expected] of reference.distributions.chi_square_survival) close(chiSquareSurvival(x, degrees), expected, 1e-9, `χ²(${x}, ${degrees})`);
  });

  test("two proportions: pooled z p-value, Wald interval (proportions_ztest, confint_proportions_2indep)", () => {
    for (const item of reference.two_proportion) {
      const result = twoProportionTest({ successes: item.control[0], count: item.control[1] }, { successes: item.variant[0], count: item.variant[1] });
      close(result.pValue, item.p_value, 1e-8, `p ${JSON.stringify(item.control)}`);
      close(result.lower, item.lower, 1e-6, "lower");
      close(result.upper, item.upper, 1e-8, "upper");
    }
  });

  test("Welch's t test (ttest_ind equal_var=False)", () => {
    for (const item of reference.welch) {
      const result = welchTest(item.control, item.variant);
      close(result.degreesOfFreedom, item.df, 1e-9, "df");
      close(result.pValue, item.p_value, 1e-7, "p");
      close(result.lower, item.lower, 1e-7, "lower");
      close(result.upper, item.upper, 1e-7, "upper");
    }
  });

  test("clustered by unit: OLS with cluster-robust (CR0) errors", () => {
    for (const item of reference.clustered) {
      const arm = (index: number) => unitTotals(item.rows.filter((row) => row[0] === index).map(([, unit, value]) => ({ unit, value })));
      const result = clusteredDifference(arm(0), arm(1));
      close(result.difference, item.difference, 1e-9, "difference");
      close(result.pValue, item.p_value, 1e-7, "p");
      close(result.lower, item.lower, 1e-7, "lower");
      close(result.upper, item.upper, 1e-7, "upper");
    }
  });

  test("sample ratio mismatch (chisquare)", () => {
    for (const item of reference.srm) {
      const result = sampleRatioMismatch(item.counts, item.weights);
      close(result.chiSquare, item.chi_square, 1e-12, `χ² ${item.counts.join("/")}`);
      if (item.p_value === 1) assert.equal(result.pValue, 1);
      else close(result.pValue, item.p_value, 1e-8, `p ${item.counts.join("/")}`);
      assert.equal(result.mismatch, item.p_value < 0.001);
    }
  });

  test("minimum sample size per arm (NormalIndPower.solve_power)", () => {
    for (const item of reference.sample_size) close(minimumSampleSizeForRate(item.baseline, item.change, item.alpha, item.power), item.per_arm, 1e-3, `n ${item.baseline}+${item.change}`);
  });

  test("minimum sample size with the control at a bound (rate 0 or 1, and 0.95 whose change passes 1): statsmodels' NormalIndPower at the inward alternative", () => {
    const boundary = JSON.parse(readFileSync(fileURLToPath(new URL("../../../data/experiments/boundary-sample-size.json", import.meta.url)), "utf8")) as { rate: { baseline: number; change: number; alpha: number; power: number; per_arm: number }[] };
    for (const item of boundary.rate) close(minimumSampleSizeForRate(item.baseline, item.change, item.alpha, item.power), item.per_arm, 1e-3, `n ${item.baseline}±${item.change}`);
  });

  test("bootstrap with one request per unit: SciPy's percentile interval within Monte-Carlo error", () => {
    const units = (values: number[], prefix: string) => values.map((value, index) => ({ unit: `${prefix}${index}`, sum: value, count: 1 }));
    const result = clusterBootstrap(units(reference.bootstrap.control, "c"), units(reference.bootstrap.variant, "v"), { resamples: 20_000, seed: 11 });
    // The interval's half-width is ~0.16; two independent 20 000-resample runs agree to ~0.005.
    assert.ok(Math.abs(result.lower - reference.bootstrap.lower) < 0.01, `${result.lower} vs ${reference.bootstrap.lower}`);
    assert.ok(Math.abs(result.upper - reference.bootstrap.upper) < 0.01, `${result.upper} vs ${reference.bootstrap.upper}`);
  });
  test("two constant arms at different values: SciPy's exact permutation test (permutation_test, independent, two-sided)", () => {
    const separated = JSON.parse(readFileSync(fileURLToPath(new URL("../../../data/experiments/separated-arms.json", import.meta.url)), "utf8")) as { cases: { control: number; variant: number; p_value: number }[] };
    for (const item of separated.cases) close(separatedArmsPValue(item.control, item.variant), item.p_value, 1e-12, `p ${item.control}/${item.variant}`);
    // SciPy's p-values for three and four requests per arm bracket alpha 0.05: four per arm is the fewest that decides.
    const perArm = (size: number) => separated.cases.find((item) => item.control === size && item.variant === size)!.p_value;
    assert.ok(perArm(3) >= 0.05 && perArm(4) < 0.05);
    assert.equal(separatedArmsSampleSize(0.05), 4);
  });
});
