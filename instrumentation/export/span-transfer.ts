/**
 * Spans as plain data, to hand a batch to the export worker
 * (export-worker.ts) in one `postMessage`: a ReadableSpan carries functions
 * (`spanContext()`), class instances (the resource, trace states) and shared
 * objects, none of which the structured clone can pass. What goes across is
 * what the OTLP encoders read, nothing more; the resources and scopes of a
 * batch are sent once each and referred to by index (a batch usually has one
 * of each).
 *
 * On the worker's side `toReadableSpans` gives the encoders objects with the
 * ReadableSpan shape back.
 */
import type { Attributes, HrTime, Link, SpanContext, SpanKind, SpanStatus, TraceState } from "@opentelemetry/api";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-base";

type Resource = ReadableSpan["resource"];
type Scope = ReadableSpan["instrumentationScope"];

interface PlainSpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote: boolean | undefined;
  traceState: string | undefined;
}

interface PlainLink {
  context: PlainSpanContext;
  attributes: Attributes | undefined;
  droppedAttributesCount: number | undefined;
}

export interface PlainSpan {
  name: string;
  kind: SpanKind;
  context: PlainSpanContext;
  parentContext: PlainSpanContext | undefined;
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  status: SpanStatus;
  attributes: Attributes;
  events: TimedEvent[];
  links: PlainLink[];
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
  resource: number;
  scope: number;
}

export interface PlainResource {
  attributes: Attributes;
  schemaUrl: string | undefined;
}

/** One export's spans, ready for `postMessage`. */
export interface PlainBatch {
  resources: PlainResource[];
  scopes: Scope[];
  spans: PlainSpan[];
}

export function toPlainBatch(spans: readonly ReadableSpan[]): PlainBatch {
  const resources: PlainResource[] = [];
  const scopes: Scope[] = [];
  const resourceIndex = new Map<Resource, number>();
  const scopeIndex = new Map<Scope, number>();
  const plain: PlainSpan[] = new Array<PlainSpan>(spans.length);
  for (let index = 0; index < spans.length; index += 1) {
    const span = spans[index]!;
    let resource = resourceIndex.get(span.resource);
    if (resource === undefined) {
      resource = resources.push({ attributes: span.resource.attributes, schemaUrl: span.resource.schemaUrl }) - 1;
      resourceIndex.set(span.resource, resource);
    }
    let scope = scopeIndex.get(span.instrumentationScope);
    if (scope === undefined) {
      const { name, version, schemaUrl } = span.instrumentationScope;
      scope = scopes.push({ name, version, schemaUrl }) - 1;
      scopeIndex.set(span.instrumentationScope, scope);
    }
    plain[index] = {
      name: span.name,
      kind: span.kind,
      context: plainContext(span.spanContext()),
      parentContext: span.parentSpanContext === undefined ? undefined : plainContext(span.parentSpanContext),
      startTime: span.startTime,
      endTime: span.endTime,
      duration: span.duration,
      status: span.status,
      attributes: span.attributes,
      // Events are plain objects already; links hold span contexts.
      events: span.events,
      links: span.links.length === 0 ? [] : span.links.map((link) => ({ context: plainContext(link.context), attributes: link.attributes, droppedAttributesCount: link.droppedAttributesCount })),
      droppedAttributesCount: span.droppedAttributesCount,
      droppedEventsCount: span.droppedEventsCount,
      droppedLinksCount: span.droppedLinksCount,
      resource,
      scope,
    };
  }
  return { resources, scopes, spans: plain };
}

/** The batch as ReadableSpan-shaped objects for the encoders (and the redactor). */
export function toReadableSpans(batch: PlainBatch): ReadableSpan[] {
  const resources = batch.resources.map((resource) => resourceOf(resource));
  return batch.spans.map((span) => {
    const context = spanContextOf(span.context);
    const links: Link[] = span.links.map((link) => ({ context: spanContextOf(link.context), attributes: link.attributes, droppedAttributesCount: link.droppedAttributesCount }));
    return {
      name: span.name,
      kind: span.kind,
      spanContext: () => context,
      parentSpanContext: span.parentContext === undefined ? undefined : spanContextOf(span.parentContext),
      startTime: span.startTime,
      endTime: span.endTime,
      status: span.status,
      attributes: span.attributes,
      links,
      events: span.events,
      duration: span.duration,
      ended: true,
      resource: resources[span.resource]!,
      instrumentationScope: batch.scopes[span.scope]!,
      droppedAttributesCount: span.droppedAttributesCount,
      droppedEventsCount: span.droppedEventsCount,
      droppedLinksCount: span.droppedLinksCount,
    };
  });
}

function plainContext(context: SpanContext): PlainSpanContext {
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    traceFlags: context.traceFlags,
    isRemote: context.isRemote,
    traceState: context.traceState?.serialize(),
  };
}

function spanContextOf(plain: PlainSpanContext): SpanContext {
  return {
    traceId: plain.traceId,
    spanId: plain.spanId,
    traceFlags: plain.traceFlags,
    ...(plain.isRemote !== undefined ? { isRemote: plain.isRemote } : {}),
    ...(plain.traceState !== undefined ? { traceState: serializedTraceState(plain.traceState) } : {}),
  };
}

/** The encoders only serialize a trace state: the text it came as is enough. */
function serializedTraceState(text: string): TraceState {
  const unsupported = (): never => {
    throw new Error("a trace state that crossed to the export worker can only be serialized");
  };
  return { serialize: () => text, get: unsupported, set: unsupported, unset: unsupported };
}

/** What the encoders read of a resource: its attributes and schema URL. */
function resourceOf(plain: PlainResource): Resource {
  const resource = {
    attributes: plain.attributes,
    schemaUrl: plain.schemaUrl,
    asyncAttributesPending: false,
    waitForAsyncAttributes: async () => undefined,
    merge: () => resource,
    getRawAttributes: () => Object.entries(plain.attributes),
  };
  return resource as unknown as Resource;
}
