/**
 * Publishes alert events to a Kafka topic (default `ragscope_alerts`): key =
 * alert_id (a firing and its resolution land on one partition, in order),
 * value = the event's JSON, header `ragscope-alert-state`.
 */
import { Partitioners, type Kafka, type Producer } from "kafkajs";
import { failure, success, type Result } from "../../core/result.js";
import type { AlertDelivery, DeliveryFailure } from "./alert-delivery.js";
import type { AlertEvent } from "./alert-event.js";

export const DEFAULT_ALERT_TOPIC = "ragscope_alerts";

export class KafkaAlertDelivery implements AlertDelivery {
  readonly name: string;
  private readonly producer: Producer;
  private connected: Promise<void> | null = null;

  constructor(kafka: Kafka, private readonly topic: string = DEFAULT_ALERT_TOPIC) {
    this.name = `kafka ${topic}`;
    this.producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  }

  async deliver(events: readonly AlertEvent[]): Promise<Result<void, DeliveryFailure>> {
    if (events.length === 0) return success(undefined);
    try {
      this.connected ??= this.producer.connect();
      await this.connected;
      await this.producer.send({
        topic: this.topic,
        acks: -1,
        messages: events.map((event) => ({ key: event.alert_id, value: JSON.stringify(event), headers: { "ragscope-alert-state": event.state } })),
      });
    } catch (error) {
      this.connected = null;
      return failure({ retriable: (error as { retriable?: boolean }).retriable !== false, message: `${this.name}: ${error instanceof Error ? error.message : String(error)}` });
    }
    return success(undefined);
  }

  async close(): Promise<void> {
    if (this.connected !== null) await this.producer.disconnect();
    this.connected = null;
  }
}
