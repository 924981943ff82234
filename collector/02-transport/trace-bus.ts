/**
 * The bus between receiving and evaluating.
 *
 * Embedded, it is an in-process bounded queue; in production, a Kafka topic
 * (`otlp_spans`) in the format the OpenTelemetry Collector's Kafka exporter
 * writes (shared/reference/interop.md §4): the value is an OTLP
 * ExportTraceServiceRequest (protobuf or JSON), the key the lower-case hex
 * trace id, or none.
 */
import type { Result } from "../../core/result.js";

export type BusEncoding = "otlp_proto" | "otlp_json";

export interface BusMessage {
  /** Lower-case hex trace id, or null when the producer did not key the message. */
  key: string | null;
  value: Uint8Array;
  headers?: Record<string, string>;
}

export interface PublishFailure {
  /** True when the same publish may succeed later (broker unavailable, queue full). */
  retriable: boolean;
  message: string;
  /** How long the caller should wait before retrying, when the bus knows. */
  retryAfterMs?: number;
  /** True when these messages can never be taken together (more than the bus holds at all): retrying cannot help. */
  tooLarge?: boolean;
}

/** Where in the bus a delivered message sits, for committing progress. */
export interface BusPosition {
  partition: number;
  offset: string;
}

export interface DeliveredMessage extends BusMessage {
  position: BusPosition;
}

export interface TracePublisher {
  publish(messages: BusMessage[]): Promise<Result<void, PublishFailure>>;
}
