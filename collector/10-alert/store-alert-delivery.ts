/**
 * Delivers alert events to the store's AlertSink (ClickHouse: the `alerts`
 * table), as one of the notifier's deliveries.
 */
import type { Result } from "../../core/result.js";
import type { AlertSink } from "../../store/ports/alert-sink.js";
import type { AlertDelivery, DeliveryFailure } from "./alert-delivery.js";
import type { AlertEvent } from "./alert-event.js";

export class StoreAlertDelivery implements AlertDelivery {
  readonly name = "store alerts";

  constructor(private readonly sink: AlertSink) {}

  deliver(events: readonly AlertEvent[]): Promise<Result<void, DeliveryFailure>> {
    return this.sink.record(events);
  }
}
