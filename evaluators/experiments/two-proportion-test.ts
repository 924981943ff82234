/**
 * Two independent proportions, variant minus control: the pooled two-sided z
 * test for the p-value (statsmodels `proportions_ztest`) and the unpooled Wald
 * interval for the difference (statsmodels `confint_proportions_2indep`,
 * method "wald"). The pooled variance is the right one under the null
 * hypothesis of no difference; the interval must not assume it.
 */
import type { Comparison } from "./comparison.js";
import { normalQuantile, normalTwoSidedP } from "../../core/statistics/normal-distribution.js";

export interface ProportionCounts {
  readonly successes: number;
  readonly count: number;
}

export function twoProportionTest(control: ProportionCounts, variant: ProportionCounts, confidence = 0.95): Comparison {
  const controlRate = control.successes / control.count;
  const variantRate = variant.successes / variant.count;
  const difference = variantRate - controlRate;
  const pooled = (control.successes + variant.successes) / (control.count + variant.count);
  const pooledError = Math.sqrt(pooled * (1 - pooled) * (1 / control.count + 1 / variant.count));
  const pValue = pooledError === 0 ? (difference === 0 ? 1 : 0) : normalTwoSidedP(difference / pooledError);
  const error = Math.sqrt((controlRate * (1 - controlRate)) / control.count + (variantRate * (1 - variantRate)) / variant.count);
  const z = normalQuantile(1 - (1 - confidence) / 2);
  return { method: "two_proportion_z", controlValue: controlRate, variantValue: variantRate, difference, lower: difference - z * error, upper: difference + z * error, pValue };
}
