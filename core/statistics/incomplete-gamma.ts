/**
 * The regularised incomplete gamma functions P(a, x) and Q(a, x) (series for
 * x < a + 1, continued fraction otherwise: Numerical Recipes §6.2), from
 * which the normal and chi-square tails are computed:
 *   Φ(z) = (1 + sign(z) · P(1/2, z²/2)) / 2   and   P(χ²_k > x) = Q(k/2, x/2).
 */
import { logGamma } from "./log-gamma.js";

/** P(a, x), the regularised lower incomplete gamma function. */
export function regularizedGammaP(a: number, x: number): number {
  if (x <= 0) return 0;
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 1000; n += 1) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-16) break;
    }
    return sum * Math.exp(-x + a * Math.log(x) - logGamma(a));
  }
  return 1 - regularizedGammaQ(a, x);
}

/** Q(a, x) = 1 − P(a, x), computed directly for large x so that small tails keep their digits. */
export function regularizedGammaQ(a: number, x: number): number {
  if (x < a + 1) return 1 - regularizedGammaP(a, x);
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i += 1) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x + a * Math.log(x) - logGamma(a)) * h;
}

/** P(χ²_k > x). */
export function chiSquareSurvival(x: number, degrees: number): number {
  return regularizedGammaQ(degrees / 2, x / 2);
}
