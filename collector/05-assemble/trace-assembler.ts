/**
 * Buffers spans per trace until the trace can be rebuilt.
 *
 * Spans of one trace arrive in any order and in several requests or messages.
 * A trace is complete when its root has ended (OTLP exports a span only once
 * it ended, so "received" means "ended") and a quiet period has passed with no
 * new span. A trace whose root never comes is released at its deadline as
 * partial, and flagged — never dropped. Memory is bounded in spans and in
 * bytes: past `maxOpenSpans` or `maxOpenBytes` (estimate-span-bytes.ts) the
 * oldest open traces are released early, also flagged partial.
 *
 * Spans that arrive for a trace released a moment ago re-open it with all its
 * spans (kept for a bounded number of recent traces, and bytes), so the
 * re-evaluation replaces the earlier result instead of producing a second,
 * smaller one.
 *
 * Spans are grouped by trace id within their authenticated tenant (the
 * receiver's stamp, stamp-tenant.ts): a trace id is chosen by the client, so
 * two tenants may send the same one — by chance, or when one tenant's service
 * calls another's with a `traceparent` header, or on purpose. Grouping by the
 * trace id alone merged one tenant's spans into another's trace, where they
 * were read and rewrote its result.
 *
 * Events that came as OTLP log records (log-event-record.ts) are held with
 * their trace as its spans are — they keep an open trace open, and open or
 * re-open one as a span does — and are joined to their spans when the trace
 * is released: each becomes an event of the span its span id names, after
 * the span's own. One whose span is not in the trace is counted, and kept
 * with the trace for a span that comes late; a trace of events alone (its
 * spans never came, or went to a trace already forgotten) is released as
 * nothing to evaluate, its events counted.
 *
 * Time is passed in (`now`) rather than read, so tests and replays control
 * it. The evaluation loop passes when each span was received where its
 * transport knows (the in-process bus), and releases by the time through
 * which it has read everything (source-driver.ts readThrough): a span that
 * waited in the queue while the loop was busy has had its quiet period
 * running meanwhile.
 */
import { Ragscope, RagStage } from "../../contracts/span-attributes.js";
import type { LogEventRecord } from "../00-otlp/log-event-record.js";
import type { SpanEventRecord, SpanRecord } from "../00-otlp/span-record.js";
import { estimateLogEventBytes, estimateSpanBytes } from "./estimate-span-bytes.js";

export interface AssemblerOptions {
  /** Wait this long after the last span of a trace whose root has arrived. */
  quietPeriodMs: number;
  /** Release a trace this long after its first span even without a root. */
  maxTraceWaitMs: number;
  /** Bound on spans held in open traces, all traces together. */
  maxOpenSpans: number;
  /** How many released traces are remembered so that late spans re-open them. */
  recentTraceMemory: number;
  /** Bound on the estimated bytes of spans in open traces, all traces together; 256 MiB when not given. */
  maxOpenBytes?: number;
  /** Bound on the estimated bytes of spans of remembered (released) traces; 64 MiB when not given. */
  maxRecentBytes?: number;
}

export const defaultAssemblerOptions: AssemblerOptions = {
  quietPeriodMs: 2_000,
  maxTraceWaitMs: 60_000,
  maxOpenSpans: 200_000,
  recentTraceMemory: 2_000,
  maxOpenBytes: 256 * 1024 * 1024,
  maxRecentBytes: 64 * 1024 * 1024,
};

export type ReleaseReason = "complete" | "deadline" | "memory_bound" | "flush";

export interface AssembledTrace<Source> {
  traceId: string;
  spans: SpanRecord[];
  /** False when released without its root (deadline, memory bound, flush). */
  complete: boolean;
  reason: ReleaseReason;
  /** True when late spans re-opened a trace that had been released before. */
  reopened: boolean;
  /** Where the spans came from (bus positions), for committing progress. */
  sources: Source[];
  /** Estimated heap of `spans` (estimate-span-bytes.ts): what bounds a sink write in bytes. */
  bytes: number;
  /** When its last span was received (the `now` passed to `add`): where its freshness is counted from. */
  lastSpanAt: number;
}

interface OpenTrace<Source> {
  traceId: string;
  spans: Map<string, SpanRecord>;
  /** Events that came as log records, by a key of what they hold (logEventKey): a record delivered twice is kept once. */
  logEvents: Map<string, LogEventRecord>;
  /** Estimated bytes of `spans`. */
  bytes: number;
  firstSeenAt: number;
  lastSpanAt: number;
  hasRoot: boolean;
  reopened: boolean;
  sources: Source[];
}

/** The tenant the receiver authenticated for a span (stamp-tenant.ts), or null. */
function authenticatedTenantOf(span: SpanRecord): string | null {
  const tenant = span.resource[Ragscope.authenticatedTenant];
  return typeof tenant === "string" ? tenant : null;
}

/** Where a span is grouped: its trace id, within its authenticated tenant (NUL cannot occur in either). */
function assemblyKey(traceId: string, tenant: string | null): string {
  return tenant === null ? traceId : `${tenant}\u0000${traceId}`;
}

/**
 * The identity a released trace had in the assembler (its trace id within its authenticated tenant), for whoever
 * remembers something per trace: the same trace id from two tenants is two traces. Every span of an assembled trace
 * carries the same tenant, so its first span says which.
 */
export function assembledTraceKey(trace: Pick<AssembledTrace<unknown>, "traceId" | "spans">): string {
  const first = trace.spans[0];
  return assemblyKey(trace.traceId, first === undefined ? null : authenticatedTenantOf(first));
}

/** What makes two log records the same event: the same span, name, time, attributes and body (a record sent again). */
function logEventKey(event: LogEventRecord): string {
  return JSON.stringify([event.spanId, event.name, event.timeUnixNano.toString(), event.attributes, event.body]);
}

/** A root: no parent, or the span that records the whole RAG request. */
export function isRootSpan(span: SpanRecord): boolean {
  return span.parentSpanId === "" || span.attributes[Ragscope.stage] === RagStage.request;
}

export class TraceAssembler<Source = never> {
  private readonly open = new Map<string, OpenTrace<Source>>();
  private readonly recent = new Map<string, { spans: SpanRecord[]; logEvents: Map<string, LogEventRecord>; bytes: number }>();
  private openSpanCount = 0;
  private openByteCount = 0;
  private recentByteCount = 0;
  private readonly maxOpenBytes: number;
  private readonly maxRecentBytes: number;
  readonly counters = {
    spansAccepted: 0,
    duplicateSpans: 0,
    tracesReleased: 0,
    partialTraces: 0,
    reopenedTraces: 0,
    memoryBoundReleases: 0,
    /** Events that came as log records, taken in (a record sent again counted once, under duplicateLogEvents). */
    logEventsAccepted: 0,
    duplicateLogEvents: 0,
    /** Log events released with a trace that has no span of their span id: kept with it, but read by nothing. */
    logEventsWithoutSpan: 0,
    /** Log events of a trace released with no span at all: nothing to evaluate, so nothing reads them. */
    logEventsWithoutTrace: 0,
  };

  constructor(private readonly options: AssemblerOptions = defaultAssemblerOptions) {
    this.maxOpenBytes = options.maxOpenBytes ?? defaultAssemblerOptions.maxOpenBytes!;
    this.maxRecentBytes = options.maxRecentBytes ?? defaultAssemblerOptions.maxRecentBytes!;
  }

  get openTraces(): number {
    return this.open.size;
  }

  get openSpans(): number {
    return this.openSpanCount;
  }

  /** Estimated bytes of the spans in open traces. */
  get openBytes(): number {
    return this.openByteCount;
  }

  /** Estimated bytes of the spans kept for recently released traces. */
  get recentBytes(): number {
    return this.recentByteCount;
  }

  /**
   * Adds spans. The same span (trace id + span id) received twice is kept
   * once, the last copy winning, so at-least-once delivery does not double it.
   */
  add(spans: readonly SpanRecord[], now: number, source?: Source, logEvents: readonly LogEventRecord[] = []): void {
    const touched = new Set<OpenTrace<Source>>();
    for (const span of spans) {
      const trace = this.openTrace(assemblyKey(span.traceId, authenticatedTenantOf(span)), span.traceId, now);
      const bytes = estimateSpanBytes(span);
      const replaced = trace.spans.get(span.spanId);
      if (replaced !== undefined) {
        this.counters.duplicateSpans += 1;
        const replacedBytes = estimateSpanBytes(replaced);
        trace.bytes -= replacedBytes;
        this.openByteCount -= replacedBytes;
      } else this.openSpanCount += 1;
      trace.bytes += bytes;
      this.openByteCount += bytes;
      trace.spans.set(span.spanId, span);
      // `now` is when the span was received; a message read out of that order never moves the quiet period back.
      trace.lastSpanAt = Math.max(trace.lastSpanAt, now);
      if (isRootSpan(span)) trace.hasRoot = true;
      this.counters.spansAccepted += 1;
      touched.add(trace);
    }
    for (const event of logEvents) {
      const trace = this.openTrace(assemblyKey(event.traceId, event.tenant), event.traceId, now);
      const key = logEventKey(event);
      if (trace.logEvents.has(key)) this.counters.duplicateLogEvents += 1;
      else {
        const bytes = estimateLogEventBytes(event);
        trace.logEvents.set(key, event);
        trace.bytes += bytes;
        this.openByteCount += bytes;
        this.counters.logEventsAccepted += 1;
      }
      // An event is activity of its trace as a span is: the quiet period counts from the last of either.
      trace.lastSpanAt = Math.max(trace.lastSpanAt, now);
      touched.add(trace);
    }
    if (source !== undefined) for (const trace of touched) trace.sources.push(source);
  }

  /** The open trace under `key`, opened (or re-opened with what was remembered of it) when there is none. */
  private openTrace(key: string, traceId: string, now: number): OpenTrace<Source> {
    const existing = this.open.get(key);
    if (existing) return existing;
    const trace: OpenTrace<Source> = { traceId, spans: new Map(), logEvents: new Map(), bytes: 0, firstSeenAt: now, lastSpanAt: now, hasRoot: false, reopened: false, sources: [] };
    const earlier = this.recent.get(key);
    if (earlier) {
      this.recent.delete(key);
      this.recentByteCount -= earlier.bytes;
      // Re-opened only when it was evaluated before: a trace remembered with log events alone never was.
      trace.reopened = earlier.spans.length > 0;
      if (trace.reopened) this.counters.reopenedTraces += 1;
      for (const previous of earlier.spans) trace.spans.set(previous.spanId, previous);
      for (const [eventKey, event] of earlier.logEvents) trace.logEvents.set(eventKey, event);
      this.openSpanCount += earlier.spans.length;
      trace.bytes = earlier.bytes;
      this.openByteCount += earlier.bytes;
      trace.hasRoot = earlier.spans.some(isRootSpan);
    }
    this.open.set(key, trace);
    return trace;
  }

  /** Releases the traces that are ready at `now`: complete, past deadline, or over the memory bound. */
  collectReady(now: number): AssembledTrace<Source>[] {
    const ready: (AssembledTrace<Source> | null)[] = [];
    for (const [key, trace] of this.open) {
      if (trace.hasRoot && now - trace.lastSpanAt >= this.options.quietPeriodMs) ready.push(this.release(key, trace, "complete"));
      else if (now - trace.firstSeenAt >= this.options.maxTraceWaitMs) ready.push(this.release(key, trace, "deadline"));
    }
    // Over the bound, log events whose spans have not come go first: releasing them loses nothing (they are
    // remembered, and joined when their spans come), while releasing a trace of spans evaluates it partial. A
    // Collector that samples traces but not logs sends many such events. Then the oldest traces (Map iteration is
    // insertion order).
    const withinBounds = () => this.openSpanCount <= this.options.maxOpenSpans && this.openByteCount <= this.maxOpenBytes;
    for (const [key, trace] of this.open) {
      if (withinBounds()) break;
      if (trace.spans.size > 0) continue;
      this.counters.memoryBoundReleases += 1;
      ready.push(this.release(key, trace, "memory_bound"));
    }
    for (const [key, trace] of this.open) {
      if (withinBounds()) break;
      this.counters.memoryBoundReleases += 1;
      ready.push(this.release(key, trace, "memory_bound"));
    }
    return ready.filter((trace) => trace !== null);
  }

  /** Releases every open trace (shutdown, end of an offline run). */
  flush(): AssembledTrace<Source>[] {
    return [...this.open].map(([key, trace]) => this.release(key, trace, trace.hasRoot ? "complete" : "flush")).filter((trace) => trace !== null);
  }

  /** The earliest time at which `collectReady` may release something, for timers. */
  nextDeadline(): number | null {
    let next: number | null = null;
    for (const trace of this.open.values()) {
      const due = trace.hasRoot ? Math.min(trace.lastSpanAt + this.options.quietPeriodMs, trace.firstSeenAt + this.options.maxTraceWaitMs) : trace.firstSeenAt + this.options.maxTraceWaitMs;
      if (next === null || due < next) next = due;
    }
    return next;
  }

  /** The trace taken out of the open ones, its log events joined to its spans; null for a trace of log events alone (counted). */
  private release(key: string, trace: OpenTrace<Source>, reason: ReleaseReason): AssembledTrace<Source> | null {
    this.open.delete(key);
    // Start time, then span id: spans that started in the same nanosecond (coarse
    // clocks) keep one order whatever order they arrived in.
    const spans = [...trace.spans.values()].sort((left, right) =>
      left.startTimeUnixNano !== right.startTimeUnixNano ? (left.startTimeUnixNano < right.startTimeUnixNano ? -1 : 1) : left.spanId < right.spanId ? -1 : left.spanId > right.spanId ? 1 : 0,
    );
    this.openSpanCount -= spans.length;
    this.openByteCount -= trace.bytes;
    // Remembered as received, the log events apart: a trace re-opened later joins them again, once.
    this.remember(key, spans, trace.logEvents, trace.bytes);
    if (spans.length === 0) {
      this.counters.logEventsWithoutTrace += trace.logEvents.size;
      return null;
    }
    const complete = reason === "complete" || trace.hasRoot;
    this.counters.tracesReleased += 1;
    if (!complete) this.counters.partialTraces += 1;
    return { traceId: trace.traceId, spans: this.joinLogEvents(spans, trace.logEvents), complete, reason, reopened: trace.reopened, sources: trace.sources, bytes: trace.bytes, lastSpanAt: trace.lastSpanAt };
  }

  /**
   * Each span with the log events of its span id after its own events, in time order: a copy of the span, so the
   * spans remembered for a re-opened trace stay as received, without the stored text made from it as received, so
   * the one stored for the trace page is made with them (stored-span-text.ts). Events of a span not in the trace are
   * counted.
   */
  private joinLogEvents(spans: SpanRecord[], logEvents: ReadonlyMap<string, LogEventRecord>): SpanRecord[] {
    if (logEvents.size === 0) return spans;
    const bySpan = new Map<string, LogEventRecord[]>();
    for (const event of logEvents.values()) {
      const list = bySpan.get(event.spanId);
      if (list === undefined) bySpan.set(event.spanId, [event]);
      else list.push(event);
    }
    const joined = spans.map((span) => {
      const events = bySpan.get(span.spanId);
      if (events === undefined) return span;
      bySpan.delete(span.spanId);
      const asSpanEvents = events
        .sort((left, right) => (left.timeUnixNano < right.timeUnixNano ? -1 : left.timeUnixNano > right.timeUnixNano ? 1 : 0))
        .map((event): SpanEventRecord => ({ name: event.name, timeUnixNano: event.timeUnixNano, attributes: event.attributes, body: event.body }));
      const { stored: _received, ...joinedSpan } = span;
      return { ...joinedSpan, events: [...span.events, ...asSpanEvents] };
    });
    for (const events of bySpan.values()) this.counters.logEventsWithoutSpan += events.length;
    return joined;
  }

  private remember(key: string, spans: SpanRecord[], logEvents: Map<string, LogEventRecord>, bytes: number): void {
    if (this.options.recentTraceMemory <= 0 || bytes > this.maxRecentBytes) return;
    this.recent.set(key, { spans, logEvents, bytes });
    this.recentByteCount += bytes;
    while (this.recent.size > this.options.recentTraceMemory || this.recentByteCount > this.maxRecentBytes) {
      const oldest = this.recent.entries().next().value;
      if (oldest === undefined) break;
      this.recent.delete(oldest[0]);
      this.recentByteCount -= oldest[1].bytes;
    }
  }
}
