/**
 * The receiver's bound on what one request decodes into (SECURITY.md
 * "Limits"): at most `maxItemsPerRequest` items — spans, span events, span
 * links and attributes — counted on the body before anything is decoded, so a
 * request over it is refused (413) having cost at most one pass over its
 * bytes (none when its size alone shows it within the bound).
 *
 * Why: the body size bounds the bytes, not the objects they decode into. An
 * event can be two bytes on the wire and a few hundred in memory: 16,000
 * spans of 1,000 empty events each (a 32 MB body, every span within
 * RAGSCOPE_MAX_EVENTS_PER_SPAN) took serve to 5.7 GB of RSS and 76 s; one
 * attribute holding an array of 16 million empty values (32 MB) to 1.2 GB;
 * a resource of 1,024 attributes over 100,000 spans (7 MB: every span record
 * carries its resource's attributes) to 4.5 GB before the decode thread ran
 * out of heap. Each of those is far more items than any real export.
 *
 * What counts, as the decoded request holds it:
 * - each span, each event and link a span keeps (those past
 *   RAGSCOPE_MAX_EVENTS_PER_SPAN / RAGSCOPE_MAX_LINKS_PER_SPAN are stepped
 *   over, never decoded: cut-protobuf-events-and-links.ts);
 * - each attribute of a span, event, link, resource or scope, and inside an
 *   attribute's value each element of an array and each entry of a key-value
 *   list, at every depth;
 * - a resource's attributes once, and again for each of its spans, since each
 *   span record carries a copy of them.
 *
 * Protobuf: the count reads the body as protobufjs does (the same fields, a
 * field of another wire type skipped, groups stepped over, a message given
 * twice counted twice as protobufjs merges it), so it is the decoded
 * request's count. Where protobufjs refuses the bytes, the count stops and
 * says "within": everything before that point was counted and found within
 * the bound, and protobufjs refuses the request at the same point, so nothing
 * past it is ever decoded.
 *
 * OTLP/JSON is parsed whole by JSON.parse before any field is read, so its
 * body is bounded before parsing by what JSON.parse makes: objects and arrays,
 * counted on the bytes (outside strings), at most JSON_CONTAINERS_PER_ITEM
 * per item allowed. JSON writes an attribute as two objects
 * (`{"key":…,"value":{…}}`), an array element as one, an event with its
 * attribute list as two. Once parsed, the document is counted as above
 * (countDocumentItems, in enforce-request-limits.ts), which holds a JSON
 * resource's copies to the same bound.
 */
import { decline, LENGTH_DELIMITED, ProtobufWireCursor, unlessDeclined } from "./protobuf-wire-cursor.js";
import type { AnyValue, KeyValue, TracesDocument } from "./traces-document.js";

/**
 * The default (RAGSCOPE_MAX_ITEMS_PER_REQUEST). An item costs serve 400-500 bytes decoded whatever it is (measured
 * from an idle serve: 500,000 empty events +233 MiB, a million +431 MiB; 450,000 short attributes, a 20 MB body,
 * +235 to +248 MiB), so the bound is a bound on a request's decoded memory: ~250 MiB at 500,000. Real exports are far
 * below it: an OpenTelemetry SDK batch is 512 spans (the ragscope SDK's at most 1,024 spans and 4 MiB) of tens of
 * attributes; an OpenTelemetry Collector batch 8,192 spans; a retrieval of 1,000 chunks ~12,000 attributes, or 5,000
 * items as OpenLLMetry's one event per hit. A batch of 100,000 spans (RAGSCOPE_MAX_SPANS_PER_REQUEST) fits with four
 * items a span: raise both for such batches.
 */
export const DEFAULT_MAX_ITEMS_PER_REQUEST = 500_000;

/**
 * JSON objects and arrays a body may hold for each item the bound allows. An attribute takes two, an event with its
 * attribute list two, an array element one; a span with its attribute, event and link lists and its status five.
 * Three keeps every realistic request (attributes dominate) within the same bound as its protobuf twin.
 */
export const JSON_CONTAINERS_PER_ITEM = 3;

export interface ItemBounds {
  maxItemsPerRequest: number;
  maxEventsPerSpan: number;
  maxLinksPerSpan: number;
}

/** What was counted when the bound was passed, for the refusal. */
export interface ItemTally {
  spans: number;
  events: number;
  links: number;
  /** Attributes of spans, events, links, resources and scopes, and the entries of key-value lists inside their values. */
  attributes: number;
  /** Elements of array values. */
  elements: number;
  /** A resource's attributes again for each of its spans (each span record carries them). */
  resourceCopies: number;
}

export type ItemCount =
  /** Within the bound (at most `items`), or unreadable at a point protobufjs refuses, all before it within the bound. */
  | { kind: "within"; items: number }
  | { kind: "over"; message: string };

/** The count of a protobuf request against the bound, stopped as soon as it passes it. */
export function countProtobufItems(body: Uint8Array, bounds: ItemBounds): ItemCount {
  // Most requests are far below the bound by their bytes alone (a body of up to two bytes an allowed item).
  const most = mostItems(body, bounds);
  if (most <= bounds.maxItemsPerRequest) return { kind: "within", items: most };
  const counter = new ProtobufItemCounter(body, bounds);
  try {
    unlessDeclined(() => counter.read());
  } catch (error) {
    if (error !== passed) throw error;
    return { kind: "over", message: overMessage(bounds.maxItemsPerRequest, counter.tally, counter.place()) };
  }
  return { kind: "within", items: counter.items };
}

/** The shape's bound on the items (ProtobufItemCounter.mostItems); infinite when the shape does not tell. */
function mostItems(body: Uint8Array, bounds: ItemBounds): number {
  try {
    return unlessDeclined(() => new ProtobufItemCounter(body, bounds).mostItems()) ?? Number.POSITIVE_INFINITY;
  } catch (error) {
    // The resources alone hold more items than the bound: the count says where.
    if (error === passed) return Number.POSITIVE_INFINITY;
    throw error;
  }
}

/**
 * The count of an OTLP/JSON body against the bound, before it is parsed: its objects and arrays, at most
 * JSON_CONTAINERS_PER_ITEM per item. Every object or array takes two bytes at least, so a body of at most twice the
 * allowed number of bytes is not read.
 */
export function countJsonContainers(body: Uint8Array, bounds: Pick<ItemBounds, "maxItemsPerRequest">): ItemCount {
  const allowed = bounds.maxItemsPerRequest * JSON_CONTAINERS_PER_ITEM;
  if (body.byteLength / 2 <= allowed) return { kind: "within", items: 0 };
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let containers = 0;
  let index = 0;
  const end = bytes.byteLength;
  while (index < end) {
    const byte = bytes[index]!;
    if (byte === QUOTE) {
      index = endOfJsonString(bytes, index);
      continue;
    }
    if ((byte === OPEN_OBJECT || byte === OPEN_ARRAY) && (containers += 1) > allowed) {
      return {
        kind: "over",
        message: `the OTLP/JSON body holds more than ${allowed} objects and arrays (passed at byte ${index} of ${end}), more than ${JSON_CONTAINERS_PER_ITEM} for each of the ${bounds.maxItemsPerRequest} items a request may hold (RAGSCOPE_MAX_ITEMS_PER_REQUEST: spans, span events, span links and attributes, each element of an array value counted); ${HOW_TO_FIX}`,
      };
    }
    index += 1;
  }
  return { kind: "within", items: containers };
}

/**
 * The items of a decoded request, counted as on the wire (the events and links it keeps: call it after they were cut
 * to their bounds), with the refusal when there are more than `maxItems`. The count stops once past the bound.
 */
export function countDocumentItems(document: TracesDocument, maxItems: number): ItemCount {
  const tally: ItemTally = { spans: 0, events: 0, links: 0, attributes: 0, elements: 0, resourceCopies: 0 };
  let items = 0;
  const over = (place: string): ItemCount => ({ kind: "over", message: overMessage(maxItems, tally, place) });
  for (const [resourceIndex, resourceSpans] of document.resourceSpans.entries()) {
    const resourceItems = attributeItems(resourceSpans.resource.attributes, tally);
    items += resourceItems;
    if (items > maxItems) return over(`resourceSpans[${resourceIndex}].resource`);
    for (const [scopeIndex, scopeSpans] of resourceSpans.scopeSpans.entries()) {
      items += attributeItems(scopeSpans.scope.attributes, tally);
      if (items > maxItems) return over(`resourceSpans[${resourceIndex}].scopeSpans[${scopeIndex}].scope`);
      for (const [spanIndex, span] of scopeSpans.spans.entries()) {
        let attributes = attributeItems(span.attributes, tally);
        for (const event of span.events) attributes += attributeItems(event.attributes, tally);
        for (const link of span.links) attributes += attributeItems(link.attributes, tally);
        tally.spans += 1;
        tally.events += span.events.length;
        tally.links += span.links.length;
        tally.resourceCopies += resourceItems;
        items += 1 + span.events.length + span.links.length + attributes + resourceItems;
        if (items > maxItems) return over(`resourceSpans[${resourceIndex}].scopeSpans[${scopeIndex}].spans[${spanIndex}] (trace ${span.traceId}, span ${span.spanId})`);
      }
    }
  }
  return { kind: "within", items };
}

const HOW_TO_FIX = "send smaller batches (OTEL_BSP_MAX_EXPORT_BATCH_SIZE on the client), fewer events or attributes per span, or raise the limit";

function overMessage(maxItems: number, tally: ItemTally, place: string): string {
  const copies = tally.resourceCopies > 0 ? `, ${tally.resourceCopies} copies of resource attributes (one for each span of the resource)` : "";
  return `the request holds more than ${maxItems} items (RAGSCOPE_MAX_ITEMS_PER_REQUEST: spans, span events, span links and attributes, each element of an array value counted); passed at ${place}, with ${tally.spans} spans, ${tally.events} events, ${tally.links} links, ${tally.attributes} attributes, ${tally.elements} array elements${copies} counted; ${HOW_TO_FIX}`;
}

/** Adds the attributes of a list, with the entries and elements inside their values, to the tally; returns how many. */
function attributeItems(attributes: readonly KeyValue[], tally: ItemTally): number {
  let items = attributes.length;
  tally.attributes += attributes.length;
  for (const attribute of attributes) if (attribute.value !== null) items += valueItems(attribute.value, tally);
  return items;
}

/** Items inside a value: an array's elements and a key-value list's entries, with theirs. */
function valueItems(value: AnyValue, tally: ItemTally): number {
  if ("arrayValue" in value) {
    let items = value.arrayValue.values.length;
    tally.elements += items;
    for (const element of value.arrayValue.values) if (element !== null) items += valueItems(element, tally);
    return items;
  }
  if ("kvlistValue" in value) return attributeItems(value.kvlistValue.values, tally);
  return 0;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;

/** Index just past the JSON string that opens at `start`; the end when it never closes (JSON.parse refuses it). */
function endOfJsonString(bytes: Buffer, start: number): number {
  let search = start + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, search);
    if (quote === -1) return bytes.byteLength;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    search = quote + 1;
  }
}

/** Thrown when the count passes the bound. */
const passed = new Error("past the item bound");

const START_GROUP = 3;
const END_GROUP = 4;
/** protobufjs's Reader.recursionLimit: it refuses a message (or group) nested deeper. */
const MOST_MESSAGE_LEVELS = 100;

/** Field numbers (opentelemetry/proto/trace/v1/trace.proto, common/v1/common.proto, resource/v1/resource.proto). */
const REQUEST_RESOURCE_SPANS = 1;
const RESOURCE_SPANS_RESOURCE = 1;
const RESOURCE_SPANS_SCOPE_SPANS = 2;
const RESOURCE_ATTRIBUTES = 1;
const SCOPE_SPANS_SCOPE = 1;
const SCOPE_SPANS_SPANS = 2;
const SCOPE_ATTRIBUTES = 3;
const SPAN_ATTRIBUTES = 9;
const SPAN_EVENTS = 11;
const SPAN_LINKS = 13;
const EVENT_ATTRIBUTES = 3;
const LINK_ATTRIBUTES = 4;
const KEY_VALUE_VALUE = 2;
const ANY_VALUE_ARRAY = 5;
const ANY_VALUE_KVLIST = 6;
const ARRAY_VALUES = 1;
const KVLIST_VALUES = 1;

/**
 * Reads the request's structure down to each attribute's value. Each message's fields are read with its level as
 * protobufjs counts them (the request 0), so a message too deep for protobufjs declines here where it refuses there.
 * Plain loops, one method a message type: a callback a field cost more than the count itself.
 */
class ProtobufItemCounter extends ProtobufWireCursor {
  items = 0;
  /** The tally's counts as fields of their own: a property looked up by name for every item was a sixth of the count. */
  private spans = 0;
  private events = 0;
  private links = 0;
  private attributes = 0;
  private elements = 0;
  private resourceCopies = 0;
  private readonly maxItems: number;
  /** Where the count is: resource spans, scope spans and span indexes, the span's range. */
  private resourceIndex = -1;
  private scopeIndex = -1;
  private spanIndex = -1;
  private spanStart = 0;
  private spanEnd = 0;
  private inResource = false;
  private inScope = false;

  constructor(
    body: Uint8Array,
    private readonly bounds: ItemBounds,
  ) {
    super(body);
    this.maxItems = bounds.maxItemsPerRequest;
  }

  get tally(): ItemTally {
    return { spans: this.spans, events: this.events, links: this.links, attributes: this.attributes, elements: this.elements, resourceCopies: this.resourceCopies };
  }

  /**
   * At most how many items the request holds, from its shape alone: each item is a field of its own, two bytes at
   * least, so the bytes bound them, except the resource attributes each span record copies, which are counted (the
   * resources' attributes exactly, the spans by stepping over them). Cheap: nothing inside a span is read.
   */
  mostItems(): number {
    let most = this.bytes.byteLength / 2;
    const end = this.bytes.byteLength;
    this.position = 0;
    while (this.position < end) {
      const field = this.nextTag(end);
      if (this.wireType !== LENGTH_DELIMITED) {
        this.skipField(field, end, 0);
        continue;
      }
      const to = this.nextLength(end);
      if (field !== REQUEST_RESOURCE_SPANS) {
        this.position = to;
        continue;
      }
      const from = this.position;
      const resourceItems = this.resourceItems(from, to);
      if (resourceItems > 0) most += resourceItems * this.spansOf(from, to);
      this.position = to;
    }
    return most;
  }

  read(): void {
    const end = this.bytes.byteLength;
    this.position = 0;
    while (this.position < end) {
      const field = this.nextTag(end);
      if (this.wireType !== LENGTH_DELIMITED) {
        this.skipField(field, end, 0);
        continue;
      }
      const to = this.nextLength(end);
      if (field !== REQUEST_RESOURCE_SPANS) {
        this.position = to;
        continue;
      }
      this.resourceIndex += 1;
      this.scopeIndex = -1;
      this.resourceSpans(this.position, to);
      this.position = to;
    }
  }

  /** Where the count passed the bound, in the words of a decoding error's path. */
  place(): string {
    const resource = `resourceSpans[${this.resourceIndex}]`;
    if (this.inResource) return `${resource}.resource`;
    const scope = `${resource}.scopeSpans[${this.scopeIndex}]`;
    if (this.inScope) return `${scope}.scope`;
    return `${scope}.spans[${this.spanIndex}]${this.spanIds()}`;
  }

  /** The cursor's `tag`, one-byte tags (fields 1 to 15) read in place: the count reads little else. */
  private nextTag(end: number): number {
    const byte = this.bytes[this.position]!;
    if (byte >= 0x80 || byte < 8 || this.position >= end) return this.tag(end);
    this.position += 1;
    this.wireType = byte & 7;
    return byte >>> 3;
  }

  /** The cursor's `lengthDelimited` for a field known to be one, lengths under 128 read in place: its content's end. */
  private nextLength(end: number): number {
    const byte = this.bytes[this.position]!;
    if (byte >= 0x80 || this.position >= end) return this.lengthDelimited(LENGTH_DELIMITED, end);
    const to = this.position + 1 + byte;
    if (to > end) throw decline;
    this.position += 1;
    return to;
  }

  /** Counts `count` more items (already added to their kind's count); throws `passed` past the bound. */
  private add(count: number): void {
    if ((this.items += count) > this.maxItems) throw passed;
  }

  /** The items of the resources in a ResourceSpans (a resource given twice is merged: both count), counted into the tally. */
  private resourceItems(start: number, end: number): number {
    const before = this.items;
    this.position = start;
    while (this.position < end) {
      const field = this.nextTag(end);
      if (this.wireType !== LENGTH_DELIMITED) {
        this.skipField(field, end, 1);
        continue;
      }
      const to = this.nextLength(end);
      if (field !== RESOURCE_SPANS_RESOURCE) {
        this.position = to;
        continue;
      }
      this.attributesOf(this.position, to, 2, RESOURCE_ATTRIBUTES);
      this.position = to;
    }
    return this.items - before;
  }

  /** The spans of a ResourceSpans, stepped over. */
  private spansOf(start: number, end: number): number {
    let spans = 0;
    this.position = start;
    while (this.position < end) {
      const field = this.nextTag(end);
      if (this.wireType !== LENGTH_DELIMITED) {
        this.skipField(field, end, 1);
        continue;
      }
      const to = this.nextLength(end);
      if (field !== RESOURCE_SPANS_SCOPE_SPANS) {
        this.position = to;
        continue;
      }
      while (this.position < to) {
        const scopeField = this.nextTag(to);
        if (scopeField === SCOPE_SPANS_SPANS && this.wireType === LENGTH_DELIMITED) {
          this.position = this.nextLength(to);
          spans += 1;
        } else this.skipField(scopeField, to, 2);
      }
    }
    return spans;
  }

  /** The resource's attributes are counted first (the resource may follow its scope spans on the wire), then its spans. */
  private resourceSpans(start: number, end: number): void {
    this.inResource = true;
    const resourceItems = this.resourceItems(start, end);
    this.inResource = false;
    this.position = start;
    while (this.position < end) {
      const field = this.nextTag(end);
      if (this.wireType !== LENGTH_DELIMITED) {
        this.skipField(field, end, 1);
        continue;
      }
      const to = this.nextLength(end);
      if (field !== RESOURCE_SPANS_SCOPE_SPANS) {
        this.position = to;
        continue;
      }
      this.scopeIndex += 1;
      this.spanIndex = -1;
      this.scopeSpans(this.position, to, resourceItems);
      this.position = to;
    }
  }

  private scopeSpans(start: number, end: number, resourceItems: number): void {
    this.position = start;
    while (this.position < end) {
      const field = this.nextTag(end);
      if (this.wireType !== LENGTH_DELIMITED) {
        this.skipField(field, end, 2);
        continue;
      }
      const to = this.nextLength(end);
      if (field === SCOPE_SPANS_SCOPE) {
        this.inScope = true;
        this.attributesOf(this.position, to, 3, SCOPE_ATTRIBUTES);
        this.inScope = false;
      } else if (field === SCOPE_SPANS_SPANS) {
        this.spanIndex += 1;
        this.spanStart = this.position;
        this.spanEnd = to;
        this.span(this.position, to, resourceItems);
      }
      this.position = to;
    }
  }

  private span(start: number, end: number, resourceItems: number): void {
    this.spans += 1;
    this.resourceCopies += resourceItems;
    this.add(1 + resourceItems);
    const { maxEventsPerSpan, maxLinksPerSpan } = this.bounds;
    let events = 0;
    let links = 0;
    this.position = start;
    while (this.position < end) {
      const field = this.nextTag(end);
      if (this.wireType !== LENGTH_DELIMITED) {
        this.skipField(field, end, 3);
        continue;
      }
      const to = this.nextLength(end);
      if (field === SPAN_ATTRIBUTES) this.keyValue(this.position, to, 4);
      // Events and links past the span's bounds are left out before decoding: not counted.
      else if (field === SPAN_EVENTS) {
        if ((events += 1) <= maxEventsPerSpan) {
          this.events += 1;
          this.add(1);
          this.attributesOf(this.position, to, 4, EVENT_ATTRIBUTES);
        }
      } else if (field === SPAN_LINKS && (links += 1) <= maxLinksPerSpan) {
        this.links += 1;
        this.add(1);
        this.attributesOf(this.position, to, 4, LINK_ATTRIBUTES);
      }
      this.position = to;
    }
  }

  /** The KeyValues in field `attributesField` of the message at `level` in [start, end). */
  private attributesOf(start: number, end: number, level: number, attributesField: number): void {
    this.position = start;
    while (this.position < end) {
      const field = this.nextTag(end);
      if (this.wireType !== LENGTH_DELIMITED) {
        this.skipField(field, end, level);
        continue;
      }
      const to = this.nextLength(end);
      if (field !== attributesField) {
        this.position = to;
        continue;
      }
      this.keyValue(this.position, to, level + 1);
      this.position = to;
    }
  }

  private keyValue(start: number, end: number, level: number): void {
    if (level > MOST_MESSAGE_LEVELS) throw decline;
    this.attributes += 1;
    this.add(1);
    this.position = start;
    while (this.position < end) {
      const field = this.nextTag(end);
      if (this.wireType !== LENGTH_DELIMITED) {
        this.skipField(field, end, level);
        continue;
      }
      const to = this.nextLength(end);
      if (field !== KEY_VALUE_VALUE) {
        this.position = to;
        continue;
      }
      this.anyValue(this.position, to, level + 1);
      this.position = to;
    }
  }

  private anyValue(start: number, end: number, level: number): void {
    if (level > MOST_MESSAGE_LEVELS) throw decline;
    this.position = start;
    while (this.position < end) {
      const field = this.nextTag(end);
      if (this.wireType !== LENGTH_DELIMITED) {
        this.skipField(field, end, level);
        continue;
      }
      const to = this.nextLength(end);
      if (field !== ANY_VALUE_ARRAY && field !== ANY_VALUE_KVLIST) {
        this.position = to;
        continue;
      }
      if (field === ANY_VALUE_ARRAY) this.arrayValue(this.position, to, level + 1);
      else this.keyValueList(this.position, to, level + 1);
      this.position = to;
    }
  }

  private arrayValue(start: number, end: number, level: number): void {
    if (level > MOST_MESSAGE_LEVELS) throw decline;
    this.position = start;
    while (this.position < end) {
      const field = this.nextTag(end);
      if (this.wireType !== LENGTH_DELIMITED) {
        this.skipField(field, end, level);
        continue;
      }
      const to = this.nextLength(end);
      if (field !== ARRAY_VALUES) {
        this.position = to;
        continue;
      }
      this.elements += 1;
      this.add(1);
      this.anyValue(this.position, to, level + 1);
      this.position = to;
    }
  }

  private keyValueList(start: number, end: number, level: number): void {
    if (level > MOST_MESSAGE_LEVELS) throw decline;
    this.attributesOf(start, end, level, KVLIST_VALUES);
  }

  /** Steps over a field's payload as protobufjs skips it, groups included. */
  private skipField(number: number, end: number, level: number): void {
    if (level > MOST_MESSAGE_LEVELS) throw decline;
    if (this.wireType !== START_GROUP) {
      this.skip(this.wireType, end);
      return;
    }
    for (;;) {
      const nested = this.nextTag(end);
      const wireType: number = this.wireType;
      if (wireType === END_GROUP) {
        if (nested !== number) throw decline;
        return;
      }
      this.skipField(nested, end, level + 1);
    }
  }

  /** The current span's ids, when its bytes give them. */
  private spanIds(): string {
    const ids = unlessDeclined(() => {
      let traceId = "";
      let spanId = "";
      this.position = this.spanStart;
      while (this.position < this.spanEnd) {
        const field = this.nextTag(this.spanEnd);
        if ((field !== 1 && field !== 2) || this.wireType !== LENGTH_DELIMITED) {
          this.skipField(field, this.spanEnd, 3);
          continue;
        }
        const to = this.nextLength(this.spanEnd);
        if (field === 1) traceId = this.bytes.toString("hex", this.position, to);
        else spanId = this.bytes.toString("hex", this.position, to);
        this.position = to;
      }
      return ` (trace ${traceId}, span ${spanId})`;
    });
    return ids ?? "";
  }
}
