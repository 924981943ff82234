/** Assertions on MetricValue shared by the text-metric tests. */
import assert from "node:assert/strict";
import type { MetricValue } from "../../../../evaluators/metric-value.js";

export function valueOf(metric: MetricValue): number {
  assert.ok(metric.applicable, `expected an applicable value, got not applicable: ${metric.applicable ? "" : metric.reason}`);
  assert.ok(Number.isFinite(metric.value), "a metric value must be finite");
  return metric.value;
}

export function assertClose(metric: MetricValue, expected: number, tolerance = 1e-9): void {
  const actual = valueOf(metric);
  assert.ok(Math.abs(actual - expected) <= tolerance, `expected ${expected}, got ${actual}`);
}

export function assertNotApplicable(metric: MetricValue): void {
  assert.equal(metric.applicable, false, `expected not applicable, got ${metric.applicable ? metric.value : ""}`);
}
