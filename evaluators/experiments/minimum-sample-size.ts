/**
 * The guard against peeking: the experiment is a fixed-horizon test, and the
 * report decides nothing about a metric until each arm has the units needed
 * to detect the change the user cares about. For a rate with baseline p₀ and
 * an absolute change δ, two-sided level α and power 1 − β, equal arms:
 *   n per arm = 2 · p̄(1 − p̄) · (z₁₋α/₂ + z₁₋β)² / δ²,   p̄ = (p₀ + p₁)/2,
 * the normal-approximation size statsmodels' NormalIndPower solves for with
 * effect size δ / √(p̄(1 − p̄)) (it also counts the far tail, a difference in
 * the fourth digit). For a mean, σ replaces √(p̄(1 − p̄)).
 *
 * The alternative p₁ is p₀ + δ, or p₀ − δ when p₀ + δ passes 1: a rate can
 * only move inwards from its bound. Sizing at p̄ rather than at p₀ is what
 * keeps a control at exactly 0 or 1 (no leak in any request, every citation
 * valid) sizeable: p₀(1 − p₀) is 0 there, and a size built on it would be
 * 0/0, so such a metric could never be decided. Checked against statsmodels
 * (test/data/experiments/boundary-sample-size.py).
 */
import { normalQuantile } from "../../core/statistics/normal-distribution.js";

/** The rate the change moves the baseline to: up, unless that passes 1. */
export function alternativeRate(baseline: number, change: number): number {
  return baseline + change <= 1 ? baseline + change : baseline - change;
}

export function minimumSampleSizeForRate(baseline: number, change: number, alpha = 0.05, power = 0.8): number {
  if (!(baseline >= 0 && baseline <= 1)) throw new RangeError("a rate's baseline lies between 0 and 1");
  if (!(change > 0 && change <= Math.max(baseline, 1 - baseline))) throw new RangeError("the change to detect must be positive and keep the rate between 0 and 1");
  const mean = (baseline + alternativeRate(baseline, change)) / 2;
  return minimumSampleSizeForMean(Math.sqrt(mean * (1 - mean)), change, alpha, power);
}

export function minimumSampleSizeForMean(standardDeviation: number, change: number, alpha = 0.05, power = 0.8): number {
  if (!(change !== 0 && Number.isFinite(change))) throw new RangeError("the change to detect must be a non-zero number");
  const z = normalQuantile(1 - alpha / 2) + normalQuantile(power);
  return (2 * standardDeviation ** 2 * z ** 2) / change ** 2;
}
