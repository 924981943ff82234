/**
 * The receiver's bounds on what one span carries that drop rather than refuse
 * (SECURITY.md "Limits"): a span keeps its first `maxEventsPerSpan` events and
 * first `maxLinksPerSpan` links, and an attribute whose key is longer than
 * `maxAttributeKeyBytes` (UTF-8) is dropped — on the span, its events and
 * links, its resource and its scope.
 *
 * Dropped, not refused (413) as too many spans or attributes are: one span's
 * long event log or one absurd key does not make the rest of the batch
 * unusable, and OpenTelemetry's SDKs treat their own event, link and
 * attribute limits the same way (keep the first, count the rest). A long key
 * is dropped rather than cut: a cut key is a name the sender never wrote, two
 * keys sharing their first kibibyte would become one (the later value
 * silently replacing the earlier), and no convention ragscope reads has a key
 * anywhere near that long, so nothing evaluation reads is lost.
 *
 * Never silently: each drop is added to the OTLP count it belongs to (the
 * span's dropped_events_count and dropped_links_count; the
 * dropped_attributes_count of the span, event, link, resource or scope),
 * which a bus of bytes carries on. Span records keep none of those counts, so
 * the span also gets `ragscope.dropped_events_count`,
 * `ragscope.dropped_links_count` and `ragscope.dropped_attributes` (what the
 * receiver dropped, not the SDK), which the stored span shows and the rebuild
 * lists on the Case Result.
 */
import { SPAN_ATTRIBUTE_COUNT_LIMIT } from "../../contracts/span-attributes.js";
import type { KeyValue, SpanDocument } from "./traces-document.js";

/** Span attribute (int): events the receiver dropped past RAGSCOPE_MAX_EVENTS_PER_SPAN. */
export const droppedEventsCountKey = "ragscope.dropped_events_count";
/** Span attribute (int): links the receiver dropped past RAGSCOPE_MAX_LINKS_PER_SPAN. */
export const droppedLinksCountKey = "ragscope.dropped_links_count";
/**
 * Span attribute (string[]): the attributes the receiver dropped for a key longer than RAGSCOPE_MAX_ATTRIBUTE_KEY_BYTES,
 * each as where it was (`resource: `, `scope: `, `<event name>: `, `link <span id>: `, nothing for the span's own) and
 * the key's beginning with its length in bytes.
 */
export const droppedAttributesKey = "ragscope.dropped_attributes";
/**
 * Span attribute (int): how many of the span's OWN attributes the receiver dropped for a long key, of its OTLP
 * dropped_attributes_count. Told apart because the rest were dropped by the sender's SDK at its attribute count limit,
 * which cuts the lists read from the span (attributes-dropped-by-sdk.ts); a long key is never one of those lists'.
 */
export const droppedSpanAttributesCountKey = "ragscope.dropped_span_attributes_count";

/**
 * The defaults (RAGSCOPE_MAX_ATTRIBUTE_KEY_BYTES, RAGSCOPE_MAX_EVENTS_PER_SPAN, RAGSCOPE_MAX_LINKS_PER_SPAN).
 * OpenTelemetry's SDKs keep 128 events, 128 links and 128 attributes per span unless told otherwise, and set no key
 * length. ragscope's SDK writes no events or links of its own (an exception is one event); OpenLLMetry writes one
 * `db.query.result` event per vector search hit, which ragscope reads as the retrieved documents
 * (openllmetry-mapper.ts). 1024 — eight times the SDK default — leaves room for an SDK whose limits were raised (a
 * retrieval of 1,000 hits); keys ragscope reads are under 100 bytes, so a kibibyte is ten times the longest.
 */
export const DEFAULT_MAX_ATTRIBUTE_KEY_BYTES = 1024;
export const DEFAULT_MAX_EVENTS_PER_SPAN = 1024;
export const DEFAULT_MAX_LINKS_PER_SPAN = 1024;
/** The default of RAGSCOPE_MAX_ATTRIBUTES_PER_SPAN: the SDK's own span attribute count limit (contracts/span-attributes.ts). */
export const DEFAULT_MAX_ATTRIBUTES_PER_SPAN = SPAN_ATTRIBUTE_COUNT_LIMIT;
/**
 * The default of RAGSCOPE_MAX_NAME_BYTES: UTF-8 bytes of a span's or an event's name. Names are meant to be short and
 * low-cardinality (`rag.retrieve`, `GET /api/orders/{id}`); the SDKs ragscope reads write under 100 bytes. A longer
 * name is truncated, as a long attribute value is (enforce-request-limits.ts): it is repeated wherever its span is
 * listed (the Case Result's notes, the UI), so a megabyte name would be stored many times over.
 */
export const DEFAULT_MAX_NAME_BYTES = 1024;

export interface PerSpanBounds {
  maxEventsPerSpan: number;
  maxLinksPerSpan: number;
  maxAttributeKeyBytes: number;
}

/** Events and links left out of one span. */
export interface DroppedItems {
  events: number;
  links: number;
}

/** Characters of a dropped key (or a long event name) kept in its description: enough to recognise it, never the megabytes. */
const DESCRIBED_CHARACTERS = 64;

/** Keeps the span's first events and links; returns how many of each it left out. */
export function keepFirstEventsAndLinks(span: SpanDocument, bounds: PerSpanBounds): DroppedItems {
  const events = Math.max(0, span.events.length - bounds.maxEventsPerSpan);
  const links = Math.max(0, span.links.length - bounds.maxLinksPerSpan);
  if (events > 0) span.events = span.events.slice(0, bounds.maxEventsPerSpan);
  if (links > 0) span.links = span.links.slice(0, bounds.maxLinksPerSpan);
  return { events, links };
}

/**
 * Removes from `holder.attributes` those whose key is over the bound, adds them to its OTLP dropped_attributes_count
 * and returns their descriptions, each after `place`.
 */
export function dropLongKeys(holder: { attributes: KeyValue[]; droppedAttributesCount: number }, maxKeyBytes: number, place: string): string[] {
  if (!holder.attributes.some((attribute) => overBytes(attribute.key, maxKeyBytes))) return [];
  const described: string[] = [];
  holder.attributes = holder.attributes.filter((attribute) => {
    if (!overBytes(attribute.key, maxKeyBytes)) return true;
    described.push(`${place}${describe(attribute.key)}`);
    return false;
  });
  holder.droppedAttributesCount += described.length;
  return described;
}

/** Where an event's or a link's attribute was, for its description. */
export const eventPlace = (name: string) => `${shortened(name)}: `;
export const linkPlace = (spanId: string) => `link ${spanId}: `;

/** Dropped attributes listed on one span at most; one more entry says how many were left out of the list (the OTLP counts hold them all). */
const MOST_LISTED_ATTRIBUTES = 32;

/**
 * Records on the span what the receiver dropped from it: added to its OTLP event and link counts, and as ragscope.*
 * attributes (a client's own value under those keys is replaced). `droppedAttributes`: the descriptions of its dropped
 * attributes in lists (its resource's, its scope's, its own), already counted where they were dropped;
 * `droppedSpanAttributes`: how many of them were the span's own (already in its dropped_attributes_count).
 */
export function recordDrops(span: SpanDocument, dropped: DroppedItems, droppedAttributes: readonly (readonly string[])[], droppedSpanAttributes = 0): void {
  span.droppedEventsCount += dropped.events;
  span.droppedLinksCount += dropped.links;
  const recorded: KeyValue[] = [];
  if (dropped.events > 0) recorded.push({ key: droppedEventsCountKey, value: { intValue: BigInt(dropped.events) } });
  if (dropped.links > 0) recorded.push({ key: droppedLinksCountKey, value: { intValue: BigInt(dropped.links) } });
  if (droppedSpanAttributes > 0) recorded.push({ key: droppedSpanAttributesCountKey, value: { intValue: BigInt(droppedSpanAttributes) } });
  const listed = listedAttributes(droppedAttributes);
  if (listed.length > 0) recorded.push({ key: droppedAttributesKey, value: { arrayValue: { values: listed.map((text) => ({ stringValue: text })) } } });
  if (recorded.length === 0) return;
  const replaced = new Set(recorded.map((attribute) => attribute.key));
  span.attributes = [...span.attributes.filter((attribute) => !replaced.has(attribute.key)), ...recorded];
}

/**
 * The first MOST_LISTED_ATTRIBUTES descriptions, and how many more there were. Bounded because a resource's list is
 * repeated on each of its spans: a resource of thousands of long keys over thousands of spans would otherwise list
 * millions.
 */
function listedAttributes(lists: readonly (readonly string[])[]): string[] {
  let total = 0;
  const listed: string[] = [];
  for (const list of lists) {
    total += list.length;
    for (let index = 0; index < list.length && listed.length < MOST_LISTED_ATTRIBUTES; index += 1) listed.push(list[index]!);
  }
  if (total > listed.length) listed.push(`… and ${total - listed.length} more`);
  return listed;
}

/** Whether `text` takes more than `maxBytes` in UTF-8; measured only when its length allows it. */
function overBytes(text: string, maxBytes: number): boolean {
  // A UTF-16 code unit never takes more than three UTF-8 bytes, nor fewer than one.
  if (text.length * 3 <= maxBytes) return false;
  if (text.length > maxBytes) return true;
  return Buffer.byteLength(text, "utf8") > maxBytes;
}

/** A dropped key as listed: its beginning and its length in bytes. */
function describe(key: string): string {
  return `${Array.from(key.slice(0, DESCRIBED_CHARACTERS * 2)).slice(0, DESCRIBED_CHARACTERS).join("")}… (${Buffer.byteLength(key, "utf8")} bytes)`;
}

/** A name as it is when short, else described as a key is. */
function shortened(name: string): string {
  return name.length <= DESCRIBED_CHARACTERS ? name : describe(name);
}
