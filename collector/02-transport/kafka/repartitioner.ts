/**
 * Republishes the traces of a message that cannot be assembled where it was
 * read (see route-message.ts): one message per trace, OTLP protobuf, keyed by
 * the trace id, placed by the sarama-compatible hash of that key, to the
 * repartition topic (the input topic unless configured otherwise).
 *
 * Why: an evaluator assembles only the partitions assigned to it. Unkeyed
 * input spreads one trace over any partition, so two evaluators would each
 * see part of it and each write a partial Case Result under the same id.
 * After repartitioning, every span of a trace is in partition
 * hash(trace id) and meets the others in the one evaluator that owns it —
 * whatever the producer did.
 *
 * Log events (route-message.ts) are republished the same way, one message of log events per trace and tenant
 * (log-events-message.ts), so that they meet the trace's spans in its partition.
 *
 * The source message counts as done once every republished message is
 * acknowledged (acks = -1). A crash in between republishes it again; the
 * assembler keeps one copy of a span (trace id + span id), so the duplicate
 * changes nothing.
 */
import type { Result } from "../../../core/result.js";
import type { BusMessage, PublishFailure } from "../trace-bus.js";
import { encodeTraceRequest } from "../../00-otlp/index.js";
import { encodeLogEvents } from "../../00-otlp/encode-log-events.js";
import type { LogEventRecord } from "../../00-otlp/log-event-record.js";
import { logEventsHeaders } from "./log-events-message.js";
import type { TracesDocument } from "../../00-otlp/traces-document.js";
import type { KafkaTracePublisher } from "./kafka-trace-publisher.js";
import { contentTypeHeader, repartitionedFromHeader } from "./route-message.js";

export interface SourcePosition {
  topic: string;
  partition: number;
  offset: string;
}

export class Repartitioner {
  readonly counters = { sourceMessages: 0, traces: 0, spans: 0, logEvents: 0 };

  constructor(private readonly publisher: KafkaTracePublisher) {}

  messagesFor(traces: ReadonlyMap<string, TracesDocument>, source: SourcePosition): BusMessage[] {
    const origin = `${source.topic}/${source.partition}/${source.offset}`;
    return [...traces].map(([traceId, document]) => ({
      key: traceId,
      value: encodeTraceRequest(document),
      headers: { [contentTypeHeader]: "application/x-protobuf", [repartitionedFromHeader]: origin },
    }));
  }

  /** One message of log events per group (one trace's events within one tenant), keyed by the trace id. */
  logEventMessagesFor(groups: readonly LogEventRecord[][], source: SourcePosition): BusMessage[] {
    const origin = `${source.topic}/${source.partition}/${source.offset}`;
    return groups.map((events) => ({
      key: events[0]!.traceId,
      value: encodeLogEvents(events),
      headers: { ...logEventsHeaders(events[0]!.tenant), [repartitionedFromHeader]: origin },
    }));
  }

  /** One attempt, as republish. */
  async republishLogEvents(groups: readonly LogEventRecord[][], source: SourcePosition): Promise<Result<void, PublishFailure>> {
    const published = await this.publisher.publish(this.logEventMessagesFor(groups, source));
    if (published.ok) {
      this.counters.sourceMessages += 1;
      this.counters.logEvents += groups.reduce((sum, events) => sum + events.length, 0);
    }
    return published;
  }

  /** One attempt; the caller retries retriable failures (it also has to keep the group session alive meanwhile). */
  async republish(traces: ReadonlyMap<string, TracesDocument>, spanCount: number, source: SourcePosition): Promise<Result<void, PublishFailure>> {
    const published = await this.publisher.publish(this.messagesFor(traces, source));
    if (published.ok) {
      this.counters.sourceMessages += 1;
      this.counters.traces += traces.size;
      this.counters.spans += spanCount;
    }
    return published;
  }
}
