/**
 * The guard against peeking: the experiment is a fixed-horizon test, and the
 * report decides nothing about a metric until each arm has the units needed
 * to detect the change the user cares about. For a rate with baseline p₀ and
 * an absolute change δ, two-sided level α and power 1 − β, equal arms:
 *   n per arm = 2 · p̄(1 − p̄) · (z₁₋α/₂ + z₁₋β)² / δ²,   p̄ = p₀ + δ/2,
 * the normal-approximation size statsmodels' NormalIndPower solves for with
 * effect size δ / √(p̄(1 − p̄)) (it also counts the far tail, a difference in
 * the fourth digit). For a mean, σ replaces √(p̄(1 − p̄)).
 */
import { normalQuantile } from "../../core/statistics/normal-distribution.js";

export function minimumSampleSizeForRate(baseline: number, change: number, alpha = 0.05, power = 0.8): number {
  const mean = baseline + change / 2;
  return minimumSampleSizeForMean(Math.sqrt(mean * (1 - mean)), change, alpha, power);
}

export function minimumSampleSizeForMean(standardDeviation: number, change: number, alpha = 0.05, power = 0.8): number {
  if (!(change !== 0 && Number.isFinite(change))) throw new RangeError("the change to detect must be a non-zero number");
  const z = normalQuantile(1 - alpha / 2) + normalQuantile(power);
  return (2 * standardDeviation ** 2 * z ** 2) / change ** 2;
}
