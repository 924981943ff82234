/**
 * Where alert events go: a webhook, a Kafka topic, the alerts table. Each
 * delivery returns a Result; the notifier (alert-notifier.ts) retries the
 * retriable failures and counts the rest.
 */
import type { Result } from "../../core/result.js";
import type { AlertEvent } from "./alert-event.js";

export interface DeliveryFailure {
  retriable: boolean;
  message: string;
  retryAfterMs?: number;
}

export interface AlertDelivery {
  /** For counters and logs: "webhook https://hooks.example.com/…", "kafka ragscope_alerts", "clickhouse alerts". */
  readonly name: string;
  deliver(events: readonly AlertEvent[]): Promise<Result<void, DeliveryFailure>>;
  close?(): Promise<void>;
}
