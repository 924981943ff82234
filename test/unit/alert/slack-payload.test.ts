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
  // Exact binary ties at 3 decimals: 1/16 and 9/16 (toFixed gives 0.063 and 0.563).
  value: 0.0625,
  lower: 0.0078125,
  upper: 0.5625,
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
  test("mean and interval rounded to 3 decimals with ties to even", () => {
    const details = JSON.stringify(slackPayload(event).blocks[1]);
    assert.match(details, /mean 0\.062, 95% interval 0\.008–0\.562 over 16 samples/);
  });
});
