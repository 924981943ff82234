/**
 * The difference of two request-level means when requests are grouped in
 * units (users or sessions) that were randomised: each arm's mean is the
 * ratio Σ sums / Σ counts over its units, and its variance the delta-method
 * (cluster-robust, "CR0") one,
 *   Var(R) = Σ_units (sum_u − R · count_u)² / (Σ count_u)²,
 * the two arms independent; a normal reference for the interval and p-value.
 * It equals OLS of the value on a variant indicator with standard errors
 * clustered by unit and no small-sample correction (statsmodels, cov_type
 * "cluster", use_correction False) — the check in test/data/experiments.
 * GrowthBook and Statsig use this delta method for ratio metrics. With few
 * units per arm it is optimistic; the report requires a minimum number of
 * units before it decides anything (experiment-report.ts).
 */
import type { Comparison } from "./comparison.js";
import { normalQuantile, normalTwoSidedP } from "../../core/statistics/normal-distribution.js";
import type { UnitTotal } from "./unit-totals.js";

function ratioAndVariance(units: readonly UnitTotal[]): { ratio: number; variance: number } {
  const sum = units.reduce((total, unit) => total + unit.sum, 0);
  const count = units.reduce((total, unit) => total + unit.count, 0);
  const ratio = sum / count;
  const squares = units.reduce((total, unit) => total + (unit.sum - ratio * unit.count) ** 2, 0);
  return { ratio, variance: squares / count ** 2 };
}

export function clusteredDifference(control: readonly UnitTotal[], variant: readonly UnitTotal[], confidence = 0.95): Comparison {
  if (control.length === 0 || variant.length === 0) throw new RangeError("a clustered comparison needs at least one unit in each arm");
  const a = ratioAndVariance(control);
  const b = ratioAndVariance(variant);
  const difference = b.ratio - a.ratio;
  const error = Math.sqrt(a.variance + b.variance);
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const pValue = error === 0 ? (difference === 0 ? 1 : 0) : normalTwoSidedP(difference / error);
  return { method: "clustered_delta", controlValue: a.ratio, variantValue: b.ratio, difference, lower: difference - z * error, upper: difference + z * error, pValue };
}
