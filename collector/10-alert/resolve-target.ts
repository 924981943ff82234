/**
 * When a firing alert has recovered: its window's mean is back on the right side of the threshold by the hysteresis
 * margin, so that a mean hovering at the threshold does not flap between firing and resolved.
 *
 * The margin is a fraction of the threshold (0.01: ">= 0.92" resolves at a mean of 0.9292, "<= 2000" ms at 1980,
 * a cost's "<= 0.005" at 0.00495), since one setting serves rules on rates, milliseconds and costs. It was a
 * fixed 0.01 on every scale: a cost's "<= 0.005" resolved only at a mean of -0.005, a rate's "= 0" after one leak in
 * a hundred. The target never lies past the values the metric can take (evaluators/metric-ranges.ts): ">= 1" on a
 * rate resolves at a mean of 1, "<= 0" on a count at 0. Before, such rules could fire and never resolve.
 */
import type { MetricRange } from "../../evaluators/metric-ranges.js";
import { satisfies, type Threshold } from "../../evaluators/threshold.js";

/** The mean meets the threshold and is past it by `margin` × |threshold|, the target kept within `range`. */
export function meanRecovered(mean: number, threshold: Threshold, margin: number, range: MetricRange | undefined): boolean {
  if (!satisfies(mean, threshold) && threshold.comparator !== "=") return false;
  const distance = margin * Math.abs(threshold.value);
  switch (threshold.comparator) {
    case ">=":
    case ">":
      return satisfies(mean, { ...threshold, comparator: ">=", value: Math.min(threshold.value + distance, range?.[1] ?? Number.POSITIVE_INFINITY) });
    case "<=":
    case "<":
      return satisfies(mean, { ...threshold, comparator: "<=", value: Math.max(threshold.value - distance, range?.[0] ?? Number.NEGATIVE_INFINITY) });
    case "=":
      // Within the margin; "= 0" (no permission leak at all) resolves only once no sample of the window is off it.
      return Math.abs(mean - threshold.value) <= distance + 1e-9;
    case "!=":
      return Math.abs(mean - threshold.value) > distance;
  }
}
