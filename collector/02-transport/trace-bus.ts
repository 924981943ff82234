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
import type { LogEventRecord } from "../00-otlp/log-event-record.js";
import type { SpanRecord } from "../00-otlp/span-record.js";

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

/**
 * One trace's spans (or one part of a large trace), already decoded by the
 * receiver's decode thread: what a bus inside the process carries instead of
 * bytes. Re-encoding a trace only for the evaluation loop to decode it again
 * cost more than the rest of the receiving side (184 µs of the event loop's
 * ~700 per span); handing the records over costs the structured clone
 * from the decode thread (~17 µs per span on the event loop).
 */
export interface DecodedTrace {
  /** Lower-case hex trace id of every span in `spans`. */
  key: string;
  spans: SpanRecord[];
  /** Events of the trace's spans that came as OTLP log records (`POST /v1/logs`), for the assembler to join to them; absent when none. */
  logEvents?: LogEventRecord[];
  /** The heap the records hold, estimated (collector/05-assemble/estimate-span-bytes.ts) with their stored texts: what a bus bounded in bytes counts. */
  bytes: number;
}

export interface TracePublisher {
  publish(messages: BusMessage[]): Promise<Result<void, PublishFailure>>;
  /**
   * Present on a bus that lives in the receiver's process (the in-process
   * bus): the receiver then publishes decoded span records instead of bytes.
   * Same answers as `publish`. A bus that crosses a process (Kafka) has bytes
   * only.
   */
  publishDecoded?(traces: DecodedTrace[]): Promise<Result<void, PublishFailure>>;
  /**
   * Present on a bus with a bounded queue in the receiver's process: why it
   * takes nothing at the moment (its queue is at a bound), else null. The
   * receiver asks before it reads a request's body, so that refusing a
   * request while the queue is full costs neither the read nor the decode —
   * the work an overloaded process can least spare. A request that arrives
   * while there is room is read, and may still be refused by `publish` when
   * it does not fit. Kafka's publisher has it too: while Kafka is known to be
   * unreachable (broker-availability.ts) it refuses at once, rather than
   * holding the request through kafkajs's retries.
   */
  refusal?(): PublishFailure | null;
  /**
   * The largest message the bus takes, in bytes, when it has such a limit
   * (Kafka: RAGSCOPE_KAFKA_MAX_MESSAGE_BYTES). The receiver cuts a large
   * trace into messages below it, so that only a single span larger than the
   * limit is ever refused.
   */
  readonly maxMessageBytes?: number;
}
