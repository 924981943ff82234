/**
 * The Slack payload's numbers are rounded as printf does (ties to even,
 * evaluators/format-fixed.ts), like every other value ragscope displays.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { AlertEvent } from "../../../collector/10-alert/alert-event.js";
import { slackPayload } from "../../../collector/10-alert/slack-payload.js";

const event: AlertEvent = {
  event_id: "ev_1",
  alert_id: "al_1",
  rule_id: "generation.faithfulness",
  metric: "faithfulness",
  state: "firing",
  threshold: ">= 0.92",
  statistic: "wilson",
  // Exact binary ties at 4 decimals: 1/32 and 5/32 (toFixed gives 0.0313 and 0.1563).
  value: 0.03125,
  lower: 0.0078125,
  upper: 0.15625,
  confidence: 0.95,
  sample_count: 16,
  heuristic_judgements_left_out: 0,
  window: "last 16 samples",
  trace_ids: ["trace_1"],
  at: "2026-07-08T10:00:00.000Z",
  fired_at: "2026-07-08T10:00:00.000Z",
  message: "generation.faithfulness is failing",
};

describe("Slack payload", () => {
  test("mean and interval rounded to 4 decimals with ties to even, as the alert's message", () => {
    const details = JSON.stringify(slackPayload(event).blocks[1]);
    assert.match(details, /mean 0\.0312, 95% interval 0\.0078–0\.1562 over 16 samples/);
  });

  test("a small value is not written as 0, and a bound is never written on the threshold it fails", () => {
    // A cost alert: every bound above "<= 0.00025". At 4 decimals all three read 0.0003 or 0.0002; at two significant
    // digits the lower bound reads 0.00025, the threshold itself.
    const cost = { ...event, rule_id: "performance.average_cost", metric: "cost", threshold: "<= 0.00025", statistic: "t" as const, value: 0.000315, lower: 0.000251, upper: 0.000398 };
    const details = JSON.stringify(slackPayload(cost).blocks[1]);
    // The upper bound 0.000398 keeps its two significant digits, the zero one of them: 0.00040, not 0.0004.
    assert.match(details, /mean 0\.00032, 95% interval 0\.000251–0\.00040 over 16 samples/);
  });

  test("a large value near its threshold keeps decimals, not three significant digits", () => {
    // A latency mean a hair under "<= 1235" ms while the interval's upper bound is past it: 1235 at 4 decimals.
    const latency = { ...event, rule_id: "performance.average_latency_ms", metric: "latency_ms", threshold: "<= 1235", statistic: "t" as const, value: 1234.99996, lower: 1234.9, upper: 1235.5 };
    const details = JSON.stringify(slackPayload(latency).blocks[1]);
    assert.match(details, /mean 1234\.99996, 95% interval 1234\.9–1235\.5 over 16 samples/);
  });
});
