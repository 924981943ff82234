/**
 * Two arms that are each constant, at different values (the output tokens of
 * a fixed prompt, 120 in every control request and 95 in every variant one),
 * have no spread for Welch's test or a sample size. Seeing a difference in
 * every request is still evidence that depends on how many requests showed
 * it: two against two arises by chance in one of three random splits.
 *
 * The exact permutation test of the difference in means answers how often:
 * with every control value apart from every variant value, the observed split
 * is the most extreme of the C(n + m, n) ways to share the values among arms
 * of n and m, so its two-sided p-value is 2 / C(n + m, n) — SciPy's
 * `permutation_test` (independent, two-sided, exact) gives the same
 * (test/data/experiments/separated-arms.py).
 */

/** The exact two-sided permutation p-value of two completely separated arms of `control` and `variant` units. */
export function separatedArmsPValue(control: number, variant: number): number {
  const smaller = Math.min(control, variant);
  const total = control + variant;
  // 1 / C(total, smaller) as a product of ratios below 1: underflows towards 0 instead of overflowing.
  let inverse = 1;
  for (let index = 1; index <= smaller; index += 1) inverse *= index / (total - smaller + index);
  return Math.min(1, 2 * inverse);
}

/** The fewest units per arm (equal arms) at which a difference in every unit reaches `alpha`. */
export function separatedArmsSampleSize(alpha: number): number {
  let size = 1;
  while (separatedArmsPValue(size, size) >= alpha) size += 1;
  return size;
}
