/**
 * The Slack-compatible webhook payload of an alert event: `text` (the
 * notification fallback, what incoming webhooks require) and Block Kit
 * `blocks` (header, details, the traces behind it). Mattermost and other
 * Slack-compatible receivers read the same shape.
 */
import { formatFixed } from "../../evaluators/format-fixed.js";
import { labelOfMetric } from "../../evaluators/metric-catalog.js";
import { parseThreshold } from "../../evaluators/threshold.js";
import { formatAlertNumber } from "./alert-number.js";
import type { AlertEvent } from "./alert-event.js";

export interface SlackPayload {
  text: string;
  blocks: Record<string, unknown>[];
}

const SLACK_TEXT_LIMIT = 2900;

export function slackPayload(event: AlertEvent): SlackPayload {
  // The threshold as the rule states it; a number beside it is printed so that it reads on the side it is.
  const threshold = parseThreshold(event.threshold);
  const against = (value: number) => (threshold.ok ? formatAlertNumber(value, threshold.value.value) : round(value));
  const icon = event.state === "firing" ? ":rotating_light:" : ":white_check_mark:";
  const title = `${event.state === "firing" ? "FIRING" : "RESOLVED"}: ${labelOfMetric(event.metric, event.rule_id)} ${event.threshold}`;
  const details = [
    `*Metric:* \`${event.metric}\`${labelOfMetric(event.metric, "")} — mean ${against(event.value)}, ${round(event.confidence * 100)}% interval ${against(event.lower)}–${against(event.upper)} over ${event.sample_count} samples (${event.window})`,
    `*Threshold:* \`${event.threshold}\` · *Statistic:* ${event.statistic === "wilson" ? "Wilson score" : "Student t"}`,
    `*Since:* ${event.fired_at}${event.state === "resolved" ? ` · *Resolved:* ${event.at}` : ""}`,
    ...(event.heuristic_judgements_left_out === 0 ? [] : [`*Left out:* ${event.heuristic_judgements_left_out} heuristic judge measurement${event.heuristic_judgements_left_out === 1 ? "" : "s"} (a measurement, never a pass)`]),
  ].join("\n");
  const traces = event.trace_ids.length === 0 ? "no traces" : event.trace_ids.map((traceId) => `\`${traceId}\``).join(", ");
  return {
    text: `${icon} ${title} — ${event.message}`.slice(0, SLACK_TEXT_LIMIT),
    blocks: [
      { type: "header", text: { type: "plain_text", text: title.slice(0, 150), emoji: true } },
      { type: "section", text: { type: "mrkdwn", text: details.slice(0, SLACK_TEXT_LIMIT) } },
      { type: "context", elements: [{ type: "mrkdwn", text: `*Traces:* ${traces}`.slice(0, SLACK_TEXT_LIMIT) }] },
    ],
  };
}

/** printf rounding (ties to even), as every other displayed value; toFixed would send an exact tie such as 0.0625 up. */
function round(value: number): string {
  return Number.isInteger(value) ? String(value) : formatFixed(value, 3);
}
