/**
 * Confidence intervals for the mean of a window of metric values, so that an
 * alert fires only when the whole interval is on the wrong side of the
 * threshold (issue 6: "a few unlucky samples do not page anyone").
 *
 * - Wilson score interval (Wilson 1927) for proportions — values that are all
 *   0 or 1, a pass rate. Unlike the normal ("Wald") interval it stays inside
 *   [0, 1] and is not degenerate at 0 or n successes:
 *     centre = (p + z²/2n) / (1 + z²/n)
 *     half   = z · sqrt(p(1−p)/n + z²/4n²) / (1 + z²/n)
 * - Student's t interval for means of continuous values:
 *     mean ± t(1−α/2, n−1) · s / sqrt(n),   s the sample standard deviation.
 *
 * Quantiles: the normal one by Acklam's rational approximation (relative
 * error < 1.2e-9); the t one by bisection on the t distribution
 * function, computed from the regularised incomplete beta function (continued
 * fraction, Numerical Recipes §6.4).
 */

export interface Interval {
  lower: number;
  upper: number;
  mean: number;
  count: number;
}

// Acklam's coefficients.
const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];

/** The p-quantile of the standard normal distribution, 0 < p < 1. */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normal quantile needs 0 < p < 1, got ${p}`);
  const low = 0.02425;
  let x: number;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = (((((C[0]! * q + C[1]!) * q + C[2]!) * q + C[3]!) * q + C[4]!) * q + C[5]!) / ((((D[0]! * q + D[1]!) * q + D[2]!) * q + D[3]!) * q + 1);
  } else if (p <= 1 - low) {
    const q = p - 0.5;
    const r = q * q;
    x = ((((((A[0]! * r + A[1]!) * r + A[2]!) * r + A[3]!) * r + A[4]!) * r + A[5]!) * q) / (((((B[0]! * r + B[1]!) * r + B[2]!) * r + B[3]!) * r + B[4]!) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x = -(((((C[0]! * q + C[1]!) * q + C[2]!) * q + C[3]!) * q + C[4]!) * q + C[5]!) / ((((D[0]! * q + D[1]!) * q + D[2]!) * q + D[3]!) * q + 1);
  }
  return x;
}

/** ln Γ(x) by the Lanczos approximation (g = 7, n = 9); also used by the experiment statistics. */
export function logGamma(x: number): number {
  // Lanczos approximation (g = 7, n = 9).
  const g = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const shifted = x - 1;
  let sum = g[0]!;
  for (let index = 1; index < 9; index += 1) sum += g[index]! / (shifted + index);
  const t = shifted + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (shifted + 0.5) * Math.log(t) - t + Math.log(sum);
}

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

/** Two-sided Wilson score interval of a proportion (`successes` may be fractional: the sum of values in [0, 1]). */
export function wilsonInterval(successes: number, count: number, confidence: number): Interval {
  if (count < 1) throw new RangeError("an interval needs at least one sample");
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const proportion = successes / count;
  const z2 = z * z;
  const denominator = 1 + z2 / count;
  const centre = (proportion + z2 / (2 * count)) / denominator;
  const half = (z * Math.sqrt((proportion * (1 - proportion)) / count + z2 / (4 * count * count))) / denominator;
  // At 0 or n successes the bound is exactly 0 or 1; rounding must not move it.
  const lower = successes <= 0 ? 0 : Math.max(0, centre - half);
  const upper = successes >= count ? 1 : Math.min(1, centre + half);
  return { lower, upper, mean: proportion, count };
}

/** Two-sided Student-t interval of a mean; needs two values or more. */
export function meanInterval(values: readonly number[], confidence: number): Interval {
  const count = values.length;
  if (count < 2) throw new RangeError("a t interval needs at least two samples");
  const mean = values.reduce((total, value) => total + value, 0) / count;
  const variance = values.reduce((total, value) => total + (value - mean) ** 2, 0) / (count - 1);
  const half = studentTQuantile(1 - (1 - confidence) / 2, count - 1) * Math.sqrt(variance / count);
  return { lower: mean - half, upper: mean + half, mean, count };
}
