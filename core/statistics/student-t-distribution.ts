/**
 * Student's t distribution: P(T <= t) from the regularised incomplete beta
 * function (continued fraction, Numerical Recipes §6.4), and its quantile by
 * bisection on that function. Used by the alert stage's mean intervals and by
 * Welch's test in the experiment statistics.
 */
import { logGamma } from "./log-gamma.js";

function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m += 1) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

/** The regularised incomplete beta function I_x(a, b). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaContinuedFraction(a, b, x)) / a : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** P(T <= t) for Student's t with `degrees` degrees of freedom. */
export function studentTDistribution(t: number, degrees: number): number {
  const tail = 0.5 * incompleteBeta(degrees / (degrees + t * t), degrees / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The p-quantile of Student's t, 0 < p < 1, degrees >= 1. */
export function studentTQuantile(p: number, degrees: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`t quantile needs 0 < p < 1, got ${p}`);
  if (!(degrees >= 1)) throw new RangeError(`t quantile needs at least 1 degree of freedom, got ${degrees}`);
  if (p === 0.5) return 0;
  let low = -1e6;
  let high = 1e6;
  for (let iteration = 0; iteration < 200 && high - low > 1e-12 * Math.max(1, Math.abs(high)); iteration += 1) {
    const middle = (low + high) / 2;
    if (studentTDistribution(middle, degrees) < p) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}
