/**
 * A protobuf request's spans held to the event and link bounds before
 * protobufjs decodes it (per-span-bounds.ts): each span's events past
 * `maxEventsPerSpan` and links past `maxLinksPerSpan` are left out of a copy
 * of the body, and counted by the span's place in the request.
 *
 * Why on the bytes: protobufjs makes an object of every event and link it
 * reads, and the decoding path converts each again, so cutting after decoding
 * bounds what is kept but not what decoding costs. A 2 MB body of one span
 * with a million empty events (two bytes each) took serve from ~370 to
 * ~910 MiB of RSS and 4 s; a 32 MB one to 4.1 GB and 30 s, until the decode
 * thread failed. Here the events past the bound are only stepped over.
 *
 * Only the structure down to the spans' own fields is read: request →
 * resource spans → scope spans → span, each field's length stepped over as
 * protobufjs steps over it (a field of another wire type than its schema's is
 * skipped there and not counted here; groups are skipped). Whatever it cannot
 * follow, protobufjs refuses too, or decodes in full: then the decoded spans
 * are cut (enforce-request-limits.ts), only at a higher cost.
 */
import type { DroppedItems, PerSpanBounds } from "./per-span-bounds.js";
import { decline, LENGTH_DELIMITED, ProtobufWireCursor, unlessDeclined } from "./protobuf-wire-cursor.js";
import type { SpanDocument, TracesDocument } from "./traces-document.js";

export interface WireCut {
  /** The body without the events and links past the bounds. */
  body: Uint8Array;
  /** What was left out of each span, by its place among the request's spans (0 first); a span absent lost nothing. */
  dropped: Map<number, DroppedItems>;
  /** Spans in the request, as protobufjs will decode them. */
  spanCount: number;
}

const START_GROUP = 3;
const END_GROUP = 4;
/** protobufjs's Reader.recursionLimit for nested groups and messages. */
const MOST_GROUP_LEVELS = 100;

/** Field numbers of the OTLP messages read here (opentelemetry/proto/trace/v1/trace.proto). */
const REQUEST_RESOURCE_SPANS = 1;
const RESOURCE_SPANS_SCOPE_SPANS = 2;
const SCOPE_SPANS_SPANS = 2;
const SPAN_EVENTS = 11;
const SPAN_LINKS = 13;

/**
 * A length-delimited field whose content changes: where its tag starts and ends and where its content is, and the new
 * content's length. A span's new content is copied whole (`content`); a message above spans lists its changed fields
 * in order of position (`changes`).
 */
interface Rewrite {
  start: number;
  tagEnd: number;
  contentStart: number;
  end: number;
  changes: Rewrite[];
  content: Uint8Array | null;
  contentLength: number;
}

/** The cut body, or null when no span is over its bounds or the bytes are not a request it can follow. */
export function cutEventsAndLinks(body: Uint8Array, bounds: Pick<PerSpanBounds, "maxEventsPerSpan" | "maxLinksPerSpan">): WireCut | null {
  return unlessDeclined(() => new EventAndLinkCutter(body, bounds).cut());
}

/**
 * Each decoded span with what it lost on the wire. protobufjs keeps repeated fields in wire order, so a span's place
 * in the document is its place on the wire; decoded before any span is taken out (reject-invalid-ids.ts).
 */
export function droppedByDecodedSpan(document: TracesDocument, cut: WireCut): Map<SpanDocument, DroppedItems> {
  const spans = document.resourceSpans.flatMap((resourceSpans) => resourceSpans.scopeSpans.flatMap((scopeSpans) => scopeSpans.spans));
  // Both read the same bytes by the same rules; a difference is a bug, and guessing which span lost what would misreport it.
  if (spans.length !== cut.spanCount) throw new Error(`the cut body held ${cut.spanCount} spans, protobufjs decoded ${spans.length}`);
  const bySpan = new Map<SpanDocument, DroppedItems>();
  for (const [place, dropped] of cut.dropped) bySpan.set(spans[place]!, dropped);
  return bySpan;
}

class EventAndLinkCutter extends ProtobufWireCursor {
  private spanCount = 0;
  private readonly dropped = new Map<number, DroppedItems>();

  constructor(
    body: Uint8Array,
    private readonly bounds: Pick<PerSpanBounds, "maxEventsPerSpan" | "maxLinksPerSpan">,
  ) {
    super(body);
  }

  cut(): WireCut | null {
    const root = rewriteOf(0, 0, 0, this.bytes.byteLength);
    this.children(root, REQUEST_RESOURCE_SPANS, (resourceSpans) => this.children(resourceSpans, RESOURCE_SPANS_SCOPE_SPANS, (scopeSpans) => this.children(scopeSpans, SCOPE_SPANS_SPANS, (span) => this.span(span))));
    if (root.changes.length === 0) return null;
    const body = new Uint8Array(root.contentLength);
    write(this.bytes, root, body, 0);
    return { body, dropped: this.dropped, spanCount: this.spanCount };
  }

  /**
   * Reads the fields of `parent`'s content; each length-delimited `field` goes to `child`, and when that changed it,
   * joins `parent`'s changes with its new length.
   */
  private children(parent: Rewrite, field: number, child: (rewrite: Rewrite) => void): void {
    let position = parent.contentStart;
    while (position < parent.end) {
      this.position = position;
      const start = position;
      const number = this.tag(parent.end);
      const tagEnd = this.position;
      if (number === field && this.wireType === LENGTH_DELIMITED) {
        const end = this.lengthDelimited(this.wireType, parent.end);
        const rewrite = rewriteOf(start, tagEnd, this.position, end);
        child(rewrite);
        if (rewrite.content !== null || rewrite.changes.length > 0) {
          parent.changes.push(rewrite);
          const written = tagEnd - start + varintLength(rewrite.contentLength) + rewrite.contentLength;
          parent.contentLength += written - (end - start);
        }
        position = end;
      } else {
        this.skipField(number, parent.end, 0);
        position = this.position;
      }
    }
  }

  /**
   * Counts the span's events and links; from the first one past the bounds, its content is copied without them, the
   * kept fields in runs (fields one after the other, kept, are one copy). One pass: a span of millions of fields is
   * read once.
   */
  private span(span: Rewrite): void {
    const { maxEventsPerSpan, maxLinksPerSpan } = this.bounds;
    let events = 0;
    let links = 0;
    let content: Uint8Array | null = null;
    let length = 0;
    let runStart = span.contentStart;
    this.position = span.contentStart;
    while (this.position < span.end) {
      const start = this.position;
      const number = this.tag(span.end);
      const wireType = this.wireType;
      this.skipField(number, span.end, 0);
      // A field of another wire type than its schema's is skipped by protobufjs: not an event or a link.
      if (wireType !== LENGTH_DELIMITED) continue;
      let leftOut = false;
      if (number === SPAN_EVENTS) leftOut = (events += 1) > maxEventsPerSpan;
      else if (number === SPAN_LINKS) leftOut = (links += 1) > maxLinksPerSpan;
      if (!leftOut) continue;
      content ??= new Uint8Array(span.end - span.contentStart);
      length = copy(this.bytes, runStart, start, content, length);
      runStart = this.position;
    }
    const place = this.spanCount;
    this.spanCount += 1;
    if (content === null) return;
    length = copy(this.bytes, runStart, span.end, content, length);
    this.dropped.set(place, { events: Math.max(0, events - maxEventsPerSpan), links: Math.max(0, links - maxLinksPerSpan) });
    span.content = content.subarray(0, length);
    span.contentLength = length;
  }

  /** Steps over a field's payload as protobufjs skips it: groups too, which the cursor's skip leaves to the decoding path. */
  private skipField(number: number, end: number, level: number): void {
    if (this.wireType !== START_GROUP) {
      this.skip(this.wireType, end);
      return;
    }
    if (level >= MOST_GROUP_LEVELS) throw decline;
    for (;;) {
      const nested = this.tag(end);
      const wireType: number = this.wireType;
      if (wireType === END_GROUP) {
        if (nested !== number) throw decline;
        return;
      }
      this.skipField(nested, end, level + 1);
    }
  }
}

function rewriteOf(start: number, tagEnd: number, contentStart: number, end: number): Rewrite {
  return { start, tagEnd, contentStart, end, changes: [], content: null, contentLength: end - contentStart };
}

/** Writes the new content of `rewrite` at `at`; returns where it ends. */
function write(source: Uint8Array, rewrite: Rewrite, target: Uint8Array, at: number): number {
  if (rewrite.content !== null) {
    target.set(rewrite.content, at);
    return at + rewrite.content.byteLength;
  }
  let copiedUpTo = rewrite.contentStart;
  let position = at;
  for (const change of rewrite.changes) {
    target.set(source.subarray(copiedUpTo, change.tagEnd), position);
    position += change.tagEnd - copiedUpTo;
    position = writeVarint(change.contentLength, target, position);
    position = write(source, change, target, position);
    copiedUpTo = change.end;
  }
  target.set(source.subarray(copiedUpTo, rewrite.end), position);
  return position + rewrite.end - copiedUpTo;
}

/** Bytes below this are copied one by one: a view per copy cost more than the copy (a kept field between every two left out). */
const SHORT_COPY = 64;

/** Copies [from, to) of `source` to `target` at `at`; returns where it ends. */
function copy(source: Uint8Array, from: number, to: number, target: Uint8Array, at: number): number {
  if (to - from < SHORT_COPY) {
    let position = at;
    for (let index = from; index < to; index += 1) target[position++] = source[index]!;
    return position;
  }
  target.set(source.subarray(from, to), at);
  return at + to - from;
}

function varintLength(value: number): number {
  let length = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) length += 1;
  return length;
}

function writeVarint(value: number, target: Uint8Array, at: number): number {
  let position = at;
  let rest = value;
  while (rest >= 0x80) {
    target[position++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  target[position++] = rest;
  return position;
}
