/**
 * One OTLP log record that is an event of a span: what ragscope keeps of an OpenTelemetry logs export.
 *
 * Instrumentations that follow the GenAI conventions' event path send a call's messages as log records beside its
 * span, joined to it by trace and span id (opentelemetry-instrumentation-openai-v2's `gen_ai.choice` records, whose
 * body is the choice; opentelemetry-util-genai's `gen_ai.client.inference.operation.details`, whose attributes are the
 * call's messages). The assembler attaches each to its span as an event (trace-assembler.ts), where the span readers
 * find it as they find a span event.
 *
 * Ids are lower-case hex, times nanoseconds since the epoch (bigint), as in span-record.ts.
 */
import type { AttributeValue, Attributes } from "./span-record.js";

export interface LogEventRecord {
  /** 32 lower-case hex characters. */
  traceId: string;
  /** 16 lower-case hex characters: the span the event belongs to. */
  spanId: string;
  /** LogRecord.event_name, or, from SDKs that predate that field, the record's `event.name` attribute. */
  name: string;
  /** LogRecord.time_unix_nano, or its observed_time_unix_nano when unset (0). */
  timeUnixNano: bigint;
  /** The record's attributes (without `event.name` when the name came from it). */
  attributes: Attributes;
  /** The record's body (an AnyValue: a kvlist reads as an object); null when unset. */
  body: AttributeValue;
  /** The tenant the receiver authenticated for the request (stamp-tenant.ts), or null: the assembler groups by it as it groups spans. */
  tenant: string | null;
}
