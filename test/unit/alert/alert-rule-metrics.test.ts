/**
 * The alert rule gauges of /metrics (collector/wiring/observe/alert-rule-metrics.ts)
 * read from a real evaluator and notifier, the clock injected, for the cases
 * a served process reaches only across a restart or after minutes:
 *
 * One rule, faithfulness ">= 0.92", min_samples 5, a 1-minute window.
 * 1. Restored firing from a saved state, its window empty (the windows are
 *    not restored): the state set says firing (1), not insufficient_samples,
 *    since the alert is still firing; 0 samples and no mean series.
 * 2. Five samples of 1 at t = 10 s: Wilson 95 % interval of 5 successes in 5
 *    = [5/(5 + z²), 1] = [5/8.8415, 1] = [0.5655, 1], not wholly below 0.92,
 *    and the mean 1 is above 0.92 + the 0.01 hysteresis: it resolves, ok (1),
 *    5 samples, mean 1, lower 0.5655, upper 1.
 * 3. The clock at t = 71 s (61 s after the samples, nothing new observed):
 *    the window slid past them, 0 samples, insufficient_samples (1), the mean
 *    series gone rather than a stale 1.
 * Without alerts (no gate file) the gauges have no series.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { AlertEvaluator } from "../../../collector/10-alert/alert-evaluator.js";
import { AlertNotifier } from "../../../collector/10-alert/alert-notifier.js";
import type { AlertRule } from "../../../collector/10-alert/alert-rule.js";
import { registerAlertRuleMetrics } from "../../../collector/wiring/observe/alert-rule-metrics.js";
import { MetricsRegistry, readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { parseThreshold } from "../../../evaluators/threshold.js";

const threshold = parseThreshold(">= 0.92");
assert.ok(threshold.ok);
const rule: AlertRule = { id: "generation.faithfulness", metric: "faithfulness", threshold: threshold.value, windowMs: 60_000, windowSamples: null, minSamples: 5, confidence: 0.95, statistic: "auto", hysteresis: 0.01, maxTraceIds: 5 };
const LABELS = { rule_id: rule.id, metric: rule.metric };
const START = Date.parse("2026-07-08T10:00:00.000Z");

function states(text: string): Record<string, number | null> {
  return Object.fromEntries(["firing", "insufficient_samples", "ok"].map((state) => [state, readSample(text, "ragscope_alert_rule_state", { ...LABELS, state })]));
}

test("a restored firing alert stays firing on /metrics with an empty window; resolved, then slid out, it reads ok, then insufficient_samples", () => {
  let now = START;
  const evaluator = new AlertEvaluator([rule]);
  evaluator.restore([{ ruleId: rule.id, firing: { alertId: "alert_before_restart", firedAt: START - 3_600_000 }, updatedAt: START - 3_600_000 }]);
  const notifier = new AlertNotifier({ evaluator, deliveries: [], retry: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 1, deadlineMs: 10 }, tickMs: 0, clock: () => now, log: () => {} });
  const registry = new MetricsRegistry();
  registerAlertRuleMetrics(registry, notifier);

  let text = registry.render();
  assert.deepEqual(states(text), { firing: 1, insufficient_samples: 0, ok: 0 });
  assert.equal(readSample(text, "ragscope_alert_rule_window_samples", LABELS), 0);
  assert.equal(readSample(text, "ragscope_alert_rule_window_mean", LABELS), null);

  now = START + 10_000;
  notifier.observe(Array.from({ length: 5 }, (_, index) => ({ metric: "faithfulness", value: 1, caseResultId: `cr_${index}`, traceId: `trace_${index}`, serviceName: null, tenantId: null, route: null, heuristicJudgement: false })));
  assert.equal(notifier.counters.resolved, 1);
  text = registry.render();
  assert.deepEqual(states(text), { firing: 0, insufficient_samples: 0, ok: 1 });
  assert.equal(readSample(text, "ragscope_alert_rule_window_samples", LABELS), 5);
  assert.equal(readSample(text, "ragscope_alert_rule_window_mean", LABELS), 1);
  assert.ok(Math.abs(readSample(text, "ragscope_alert_rule_window_interval_lower", LABELS)! - 0.5655) < 1e-4);
  assert.equal(readSample(text, "ragscope_alert_rule_window_interval_upper", LABELS), 1);

  now = START + 71_000;
  text = registry.render();
  assert.deepEqual(states(text), { firing: 0, insufficient_samples: 1, ok: 0 });
  assert.equal(readSample(text, "ragscope_alert_rule_window_samples", LABELS), 0);
  assert.equal(readSample(text, "ragscope_alert_rule_window_mean", LABELS), null);
});

test("without alert rules the gauges are declared and have no series", () => {
  const registry = new MetricsRegistry();
  registerAlertRuleMetrics(registry, null);
  const series = registry
    .render()
    .split("\n")
    .filter((line) => line.startsWith("ragscope_alert_"));
  assert.deepEqual(series, []);
  assert.ok(registry.has("ragscope_alert_rule_state"));
});
