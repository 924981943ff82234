/**
 * Percentile bootstrap of the difference of request-level means, resampling
 * whole units (users or sessions) with replacement within each arm, so the
 * dependence of one unit's requests is kept. A seeded generator (mulberry32)
 * makes a report reproducible. With one request per unit it is the ordinary
 * percentile bootstrap (SciPy `bootstrap(method="percentile")` — compared
 * within Monte-Carlo tolerance in the tests).
 */
import { seededRandom } from "../../core/seeded-random.js";
import type { Comparison } from "./comparison.js";
import type { UnitTotal } from "./unit-totals.js";

function resampledRatio(units: readonly UnitTotal[], random: () => number): number {
  let sum = 0;
  let count = 0;
  for (let index = 0; index < units.length; index += 1) {
    const unit = units[Math.floor(random() * units.length)]!;
    sum += unit.sum;
    count += unit.count;
  }
  return sum / count;
}

function ratio(units: readonly UnitTotal[]): number {
  return units.reduce((total, unit) => total + unit.sum, 0) / units.reduce((total, unit) => total + unit.count, 0);
}

/** The q-quantile of sorted values, linear between order statistics (NumPy's default, which SciPy's percentile method uses). */
function quantile(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below);
}

export function clusterBootstrap(control: readonly UnitTotal[], variant: readonly UnitTotal[], options: { confidence?: number; resamples?: number; seed?: number } = {}): Comparison {
  if (control.length === 0 || variant.length === 0) throw new RangeError("a bootstrap needs at least one unit in each arm");
  const confidence = options.confidence ?? 0.95;
  const random = seededRandom(options.seed ?? 1);
  const differences: number[] = [];
  for (let index = 0; index < (options.resamples ?? 10_000); index += 1) differences.push(resampledRatio(variant, random) - resampledRatio(control, random));
  differences.sort((left, right) => left - right);
  const controlValue = ratio(control);
  const variantValue = ratio(variant);
  return {
    method: "cluster_bootstrap",
    controlValue,
    variantValue,
    difference: variantValue - controlValue,
    lower: quantile(differences, (1 - confidence) / 2),
    upper: quantile(differences, 1 - (1 - confidence) / 2),
    pValue: null,
  };
}
