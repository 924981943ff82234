/**
 * Posts alert events to a webhook: one POST per event, JSON body, either the
 * generic payload (`{ source: "ragscope", ...event }`) or the Slack-compatible
 * `{ text, blocks }` (slack-payload.ts). A 2xx is delivered; 408, 429 and 5xx
 * and network errors are retriable (a Retry-After header is honoured); other
 * statuses are not. Optional headers carry a receiver's token.
 */
import { failure, success, type Result } from "../../core/result.js";
import type { AlertDelivery, DeliveryFailure } from "./alert-delivery.js";
import type { AlertEvent } from "./alert-event.js";
import { slackPayload } from "./slack-payload.js";

export type WebhookFormat = "json" | "slack";

export interface WebhookAlertDeliveryOptions {
  url: string;
  format: WebhookFormat;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export class WebhookAlertDelivery implements AlertDelivery {
  readonly name: string;

  constructor(private readonly options: WebhookAlertDeliveryOptions) {
    // The path may hold a secret (Slack's hook URLs do): name the host only.
    this.name = `webhook ${new URL(options.url).host} (${options.format})`;
  }

  async deliver(events: readonly AlertEvent[]): Promise<Result<void, DeliveryFailure>> {
    for (const event of events) {
      const body = this.options.format === "slack" ? slackPayload(event) : { source: "ragscope", ...event };
      let response: Response;
      try {
        response = await fetch(this.options.url, {
          method: "POST",
          headers: { "content-type": "application/json", ...this.options.headers },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
        });
      } catch (error) {
        return failure({ retriable: true, message: `${this.name}: ${error instanceof Error ? error.message : String(error)}` });
      }
      // Drain the body so the connection can be reused.
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok) {
        const retriable = response.status === 408 || response.status === 429 || response.status >= 500;
        return failure({ retriable, message: `${this.name}: HTTP ${response.status}`, retryAfterMs: retryAfterMs(response.headers.get("retry-after")) });
      }
    }
    return success(undefined);
  }
}
