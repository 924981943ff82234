/**
 * Welch's t test of two means, variant minus control, with the
 * Welch–Satterthwaite degrees of freedom (SciPy `ttest_ind(equal_var=False)`
 * and its `confidence_interval`). Each arm needs two values or more.
 */
import type { Comparison } from "./comparison.js";
import { studentTDistribution, studentTQuantile } from "../../core/statistics/student-t-distribution.js";

function meanAndVariance(values: readonly number[]): { mean: number; variance: number } {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1);
  return { mean, variance };
}

export interface WelchComparison extends Comparison {
  readonly degreesOfFreedom: number;
}

export function welchTest(control: readonly number[], variant: readonly number[], confidence = 0.95): WelchComparison {
  if (control.length < 2 || variant.length < 2) throw new RangeError("Welch's test needs at least two values in each arm");
  const a = meanAndVariance(control);
  const b = meanAndVariance(variant);
  const shareA = a.variance / control.length;
  const shareB = b.variance / variant.length;
  const error = Math.sqrt(shareA + shareB);
  const degrees = (shareA + shareB) ** 2 / (shareA ** 2 / (control.length - 1) + shareB ** 2 / (variant.length - 1));
  const difference = b.mean - a.mean;
  const t = difference / error;
  const pValue = error === 0 ? (difference === 0 ? 1 : 0) : 2 * studentTDistribution(-Math.abs(t), degrees);
  const quantile = studentTQuantile(1 - (1 - confidence) / 2, degrees);
  return { method: "welch_t", controlValue: a.mean, variantValue: b.mean, difference, lower: difference - quantile * error, upper: difference + quantile * error, pValue, degreesOfFreedom: degrees };
}
