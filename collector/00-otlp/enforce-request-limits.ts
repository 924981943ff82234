/**
 * The receiver's limits on what one request may hold (SECURITY.md "Limits").
 *
 * Counts that make a request too large to keep — spans per request, spans of
 * one trace, attributes per span, event or link — refuse the whole request
 * (413): the client learns it at once and can send smaller batches, and
 * nothing is half-stored. An attribute value longer than the limit is
 * truncated instead (a single large context or document should not cost the
 * whole batch), at a code-point boundary, and the span records which keys
 * were cut in `ragscope.truncated_attributes`, so the Case Result lists them.
 * Events and links past their count and attributes with an over-long key are
 * dropped the same way, flagged on the span (per-span-bounds.ts). A span or
 * event name longer than its limit is truncated as a value is, and listed in
 * `ragscope.truncated_names`. The items of the whole request are held to
 * their bound (count-request-items.ts) once its events and links are cut.
 */
import { failure, success, type Result } from "../../core/result.js";
import { countDocumentItems } from "./count-request-items.js";
import { dropLongKeys, eventPlace, keepFirstEventsAndLinks, linkPlace, recordDrops, type DroppedItems, type PerSpanBounds } from "./per-span-bounds.js";
import type { AnyValue, KeyValue, SpanDocument, TracesDocument } from "./traces-document.js";

/** The span attribute that lists the keys whose values the receiver truncated. */
export const truncatedAttributesKey = "ragscope.truncated_attributes";
/**
 * The span attribute (string[]) that lists the names the receiver truncated: `name (<bytes> bytes)` for the span's own,
 * `event <index>: name (<bytes> bytes)` for an event's, each with the name's length before it was cut.
 */
export const truncatedNamesKey = "ragscope.truncated_names";

export interface RequestLimits extends PerSpanBounds {
  maxSpansPerRequest: number;
  maxSpansPerTrace: number;
  /** Attributes on one span, one of its events or one of its links. */
  maxAttributesPerSpan: number;
  maxAttributeValueBytes: number;
  /** Spans, events, links and attributes in the whole request (count-request-items.ts). */
  maxItemsPerRequest: number;
  /** UTF-8 bytes of a span's or an event's name. */
  maxNameBytes: number;
}

export interface LimitsApplied {
  /** Attribute values cut to the limit, all spans together. */
  truncatedValues: number;
  /** Events left out past maxEventsPerSpan, all spans together (those left out before decoding included). */
  droppedEvents: number;
  /** Links left out past maxLinksPerSpan, all spans together (those left out before decoding included). */
  droppedLinks: number;
  /** Attributes dropped for a key over maxAttributeKeyBytes: a resource's or a scope's once, though listed on each of its spans. */
  droppedAttributes: number;
  /** Span and event names cut to maxNameBytes, all spans together. */
  truncatedNames: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Applies the limits to the decoded request in place. `droppedBeforeDecoding`: events and links a span lost before it
 * was decoded (cut-protobuf-events-and-links.ts), recorded on it with those dropped here.
 */
export function enforceRequestLimits(document: TracesDocument, limits: RequestLimits, droppedBeforeDecoding?: ReadonlyMap<SpanDocument, DroppedItems>): Result<LimitsApplied, string> {
  let spans = 0;
  const spansPerTrace = new Map<string, number>();
  const droppedItems = new Map<SpanDocument, DroppedItems>();
  for (const resourceSpans of document.resourceSpans) {
    for (const scopeSpans of resourceSpans.scopeSpans) {
      spans += scopeSpans.spans.length;
      if (spans > limits.maxSpansPerRequest) {
        return failure(`the request holds more than ${limits.maxSpansPerRequest} spans (RAGSCOPE_MAX_SPANS_PER_REQUEST); send smaller batches (OTEL_BSP_MAX_EXPORT_BATCH_SIZE on the client) or raise the limit`);
      }
      for (const span of scopeSpans.spans) {
        const count = (spansPerTrace.get(span.traceId) ?? 0) + 1;
        spansPerTrace.set(span.traceId, count);
        if (count > limits.maxSpansPerTrace) {
          return failure(`trace ${span.traceId} has more than ${limits.maxSpansPerTrace} spans in one request (RAGSCOPE_MAX_SPANS_PER_TRACE); a RAG request should not need that many, or raise the limit`);
        }
        // The attribute count is held to the events and links the span keeps: one left out cannot refuse the request.
        const dropped = keepFirstEventsAndLinks(span, limits);
        const before = droppedBeforeDecoding?.get(span);
        droppedItems.set(span, before === undefined ? dropped : { events: before.events + dropped.events, links: before.links + dropped.links });
        if (
          span.attributes.length > limits.maxAttributesPerSpan ||
          span.events.some((event) => event.attributes.length > limits.maxAttributesPerSpan) ||
          span.links.some((link) => link.attributes.length > limits.maxAttributesPerSpan)
        ) {
          return failure(`span ${span.spanId} of trace ${span.traceId} has more than ${limits.maxAttributesPerSpan} attributes on it or on one of its events or links (RAGSCOPE_MAX_ATTRIBUTES_PER_SPAN); set an attribute count limit in the SDK (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT) or raise the limit`);
        }
      }
    }
  }
  // Before anything is converted further (the span records copy each resource's attributes onto every span).
  const items = countDocumentItems(document, limits.maxItemsPerRequest);
  if (items.kind === "over") return failure(items.message);
  const applied: LimitsApplied = { truncatedValues: 0, droppedEvents: 0, droppedLinks: 0, droppedAttributes: 0, truncatedNames: 0 };
  const maxKeyBytes = limits.maxAttributeKeyBytes;
  for (const resourceSpans of document.resourceSpans) {
    const resourceKeys = dropLongKeys(resourceSpans.resource, maxKeyBytes, "resource: ");
    applied.droppedAttributes += resourceKeys.length;
    applied.truncatedValues += truncateAll(resourceSpans.resource.attributes, limits.maxAttributeValueBytes).length;
    for (const scopeSpans of resourceSpans.scopeSpans) {
      const scopeKeys = dropLongKeys(scopeSpans.scope, maxKeyBytes, "scope: ");
      applied.droppedAttributes += scopeKeys.length;
      for (const span of scopeSpans.spans) {
        const spanKeys = dropLongKeys(span, maxKeyBytes, "");
        const droppedSpanAttributes = spanKeys.length;
        for (const event of span.events) spanKeys.push(...dropLongKeys(event, maxKeyBytes, eventPlace(event.name)));
        for (const link of span.links) spanKeys.push(...dropLongKeys(link, maxKeyBytes, linkPlace(link.spanId)));
        applied.droppedAttributes += spanKeys.length;
        const dropped = droppedItems.get(span) ?? { events: 0, links: 0 };
        applied.droppedEvents += dropped.events;
        applied.droppedLinks += dropped.links;
        // A resource's or a scope's dropped keys are listed on each of its spans: records carry no resource or scope of their own to flag.
        recordDrops(span, dropped, [resourceKeys, scopeKeys, spanKeys], droppedSpanAttributes);
        applied.truncatedNames += truncateNames(span, limits.maxNameBytes);
        const truncated = truncateAll(span.attributes, limits.maxAttributeValueBytes);
        for (const event of span.events) {
          for (const key of truncateAll(event.attributes, limits.maxAttributeValueBytes)) truncated.push(`${event.name}: ${key}`);
        }
        if (truncated.length === 0) continue;
        applied.truncatedValues += truncated.length;
        const keys = [...new Set(truncated)];
        span.attributes = span.attributes.filter((attribute) => attribute.key !== truncatedAttributesKey);
        span.attributes.push({ key: truncatedAttributesKey, value: { arrayValue: { values: keys.map((key) => ({ stringValue: key })) } } });
      }
    }
  }
  return success(applied);
}

/** Cuts the span's and its events' names to `maxBytes`, listing them on the span; how many were cut. */
function truncateNames(span: SpanDocument, maxBytes: number): number {
  const cut: string[] = [];
  const name = truncateText(span.name, maxBytes);
  if (name !== null) {
    cut.push(`name (${Buffer.byteLength(span.name, "utf8")} bytes)`);
    span.name = name;
  }
  for (const [index, event] of span.events.entries()) {
    const eventName = truncateText(event.name, maxBytes);
    if (eventName === null) continue;
    cut.push(`event ${index}: name (${Buffer.byteLength(event.name, "utf8")} bytes)`);
    event.name = eventName;
  }
  if (cut.length === 0) return 0;
  span.attributes = span.attributes.filter((attribute) => attribute.key !== truncatedNamesKey);
  span.attributes.push({ key: truncatedNamesKey, value: { arrayValue: { values: cut.map((entry) => ({ stringValue: entry })) } } });
  return cut.length;
}

/** `text` cut to `maxBytes` of UTF-8 at a code-point boundary, or null when it fits. */
export function truncateText(text: string, maxBytes: number): string | null {
  // A UTF-16 string never takes fewer UTF-8 bytes than code units: short strings need no encoding.
  if (text.length * 3 <= maxBytes) return null;
  const bytes = encoder.encode(text);
  if (bytes.byteLength <= maxBytes) return null;
  let end = maxBytes;
  // Back up to the start of a code point: continuation bytes are 10xxxxxx.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return decoder.decode(bytes.subarray(0, end));
}

/** Truncates every value of the list in place; returns the keys that were cut. */
function truncateAll(attributes: KeyValue[], maxBytes: number): string[] {
  const keys: string[] = [];
  for (const attribute of attributes) {
    if (attribute.value === null) continue;
    const cut = truncateValue(attribute.value, maxBytes);
    if (cut !== null) {
      attribute.value = cut;
      keys.push(attribute.key);
    }
  }
  return keys;
}

/** The value cut to `maxBytes` (each string or bytes leaf), or null when it fits. */
function truncateValue(value: AnyValue, maxBytes: number): AnyValue | null {
  if ("stringValue" in value) {
    const cut = truncateText(value.stringValue, maxBytes);
    return cut === null ? null : { stringValue: cut };
  }
  if ("bytesValue" in value) return value.bytesValue.byteLength <= maxBytes ? null : { bytesValue: value.bytesValue.slice(0, maxBytes) };
  if ("arrayValue" in value) {
    let changed = false;
    const values = value.arrayValue.values.map((item) => {
      const cut = item === null ? null : truncateValue(item, maxBytes);
      if (cut === null) return item;
      changed = true;
      return cut;
    });
    return changed ? { arrayValue: { values } } : null;
  }
  if ("kvlistValue" in value) {
    const values = value.kvlistValue.values.map((entry) => ({ ...entry }));
    return truncateAll(values, maxBytes).length > 0 ? { kvlistValue: { values } } : null;
  }
  return null;
}
