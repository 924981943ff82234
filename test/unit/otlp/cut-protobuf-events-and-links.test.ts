/**
 * The receiver's cut of events and links on the wire (cut-protobuf-events-and-links.ts) against cutting the decoded
 * document (enforce-request-limits.ts alone): on the codec tests' sample, a request of many resources, scopes and
 * spans, raw edits an encoder would never write (groups, a field of another wire type, unknown fields) and a
 * thousand mutated bodies, whatever decodes whole gives the same limited document and the same counts when it is
 * cut first. And the cut is what keeps the decoding cheap: a million events past the bound are never decoded.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cutEventsAndLinks, droppedByDecodedSpan } from "../../../collector/00-otlp/cut-protobuf-events-and-links.js";
import { decodeTraceRequest } from "../../../collector/00-otlp/decode-trace-request.js";
import { encodeTraceRequest } from "../../../collector/00-otlp/encode-protobuf.js";
import { enforceRequestLimits, type RequestLimits } from "../../../collector/00-otlp/enforce-request-limits.js";
import { droppedEventsCountKey, droppedLinksCountKey } from "../../../collector/00-otlp/per-span-bounds.js";
import { rejectInvalidIds } from "../../../collector/00-otlp/reject-invalid-ids.js";
import type { SpanDocument, SpanEventDocument, SpanLinkDocument, TracesDocument } from "../../../collector/00-otlp/traces-document.js";
import { limits as defaults, mutatedBodies, span, spanId, text, trace } from "./request-fixtures.js";
import { sampleTracesDocument } from "./sample-traces-document.js";
import { fieldOfWireType, varint } from "../../support/protobuf-wire.js";

/** Tight bounds, so small requests cross them. */
const limits: RequestLimits = { ...defaults, maxEventsPerSpan: 2, maxLinksPerSpan: 1 };

const event = (index: number): SpanEventDocument => ({ timeUnixNano: BigInt(index), name: `event ${index}`, attributes: [text("n", String(index))], droppedAttributesCount: 0 });
const link = (index: number): SpanLinkDocument => ({ traceId: trace(100 + index), spanId: spanId(100 + index), traceState: "", attributes: [text("n", String(index))], droppedAttributesCount: 0, flags: 0 });
const events = (count: number) => Array.from({ length: count }, (_, index) => event(index));
const links = (count: number) => Array.from({ length: count }, (_, index) => link(index));

/** Three resources of two scopes each; spans with 0 to 5 events and 0 to 3 links, one with an all-zero span id (taken out after decoding). */
function manySpans(): TracesDocument {
  let next = 0;
  const spans = (resource: number, scope: number): SpanDocument[] =>
    Array.from({ length: 3 }, (_, index) => {
      next += 1;
      const id = resource === 1 && scope === 0 && index === 1 ? "0".repeat(16) : spanId(next);
      return span(trace(resource * 10 + scope), id, { events: events(next % 6), droppedEventsCount: next % 2, links: links(next % 4), droppedLinksCount: next % 3 });
    });
  return {
    resourceSpans: Array.from({ length: 3 }, (_, resource) => ({
      resource: { attributes: [text("service.name", `service ${resource}`)], droppedAttributesCount: 0 },
      scopeSpans: Array.from({ length: 2 }, (_, scope) => ({ scope: { name: `scope ${scope}`, version: "", attributes: [], droppedAttributesCount: 0 }, spans: spans(resource, scope), schemaUrl: "" })),
      schemaUrl: "",
    })),
  };
}

/** The decoding path without the cut: decoded whole, then limited. Null when the body does not decode. */
function limitedWhole(body: Uint8Array, bounds: RequestLimits) {
  const decoded = decodeTraceRequest(body, "protobuf");
  if (!decoded.ok) return null;
  rejectInvalidIds(decoded.value);
  return { document: decoded.value, applied: enforceRequestLimits(decoded.value, bounds) };
}

/** The decoding path as the receiver runs it: cut on the wire, decoded, limited with what the cut left out. */
function limitedCut(body: Uint8Array, bounds: RequestLimits) {
  const cut = cutEventsAndLinks(body, bounds);
  const decoded = decodeTraceRequest(cut?.body ?? body, "protobuf");
  if (!decoded.ok) return null;
  const before = cut === null ? undefined : droppedByDecodedSpan(decoded.value, cut);
  rejectInvalidIds(decoded.value);
  return { document: decoded.value, applied: enforceRequestLimits(decoded.value, bounds, before) };
}

function assertSameAsWhole(body: Uint8Array, bounds: RequestLimits = limits): void {
  const whole = limitedWhole(body, bounds);
  assert.ok(whole !== null, "the body decodes");
  assert.deepEqual(limitedCut(body, bounds), whole);
}

/** A request of one span whose own fields are `spanFields` (raw), after its ids and name. */
function rawSpanRequest(spanFields: Buffer): Uint8Array {
  const spanBytes = Buffer.concat([fieldOfWireType(1, 2, Buffer.alloc(16, 0x11)), fieldOfWireType(2, 2, Buffer.alloc(8, 0x22)), fieldOfWireType(5, 2, Buffer.from("raw")), spanFields]);
  return fieldOfWireType(1, 2, fieldOfWireType(2, 2, fieldOfWireType(2, 2, spanBytes)));
}

const emptyEvent = fieldOfWireType(11, 2, Buffer.alloc(0));
const emptyLink = fieldOfWireType(13, 2, Buffer.concat([fieldOfWireType(1, 2, Buffer.alloc(16, 0x33)), fieldOfWireType(2, 2, Buffer.alloc(8, 0x44))]));

describe("the cut of events and links on the wire", () => {
  test("nothing over the bounds: no cut, the body is decoded as it is", () => {
    assert.equal(cutEventsAndLinks(encodeTraceRequest(sampleTracesDocument()), defaults), null);
    assert.equal(cutEventsAndLinks(encodeTraceRequest(manySpans()), defaults), null);
    assert.equal(cutEventsAndLinks(new Uint8Array(0), limits), null);
  });

  test("the same limited document and counts as cutting the decoded spans, over resources, scopes and spans", () => {
    const body = encodeTraceRequest(manySpans());
    const cut = cutEventsAndLinks(body, limits);
    assert.ok(cut !== null && cut.body.byteLength < body.byteLength);
    assertSameAsWhole(body);
    assertSameAsWhole(encodeTraceRequest(sampleTracesDocument()), { ...limits, maxEventsPerSpan: 1, maxLinksPerSpan: 0 });
    const limited = limitedCut(body, limits)!;
    assert.ok(limited.applied.ok);
    // Spans 1..18 hold n % 6 events and n % 4 links; the all-zero one (n = 8: 2 events, 0 links) is taken out.
    const expectedEvents = Array.from({ length: 18 }, (_, index) => index + 1).filter((n) => n !== 8).reduce((sum, n) => sum + Math.max(0, (n % 6) - 2), 0);
    const expectedLinks = Array.from({ length: 18 }, (_, index) => index + 1).filter((n) => n !== 8).reduce((sum, n) => sum + Math.max(0, (n % 4) - 1), 0);
    assert.equal(limited.applied.value.droppedEvents, expectedEvents);
    assert.equal(limited.applied.value.droppedLinks, expectedLinks);
    const spans = limited.document.resourceSpans.flatMap((resourceSpans) => resourceSpans.scopeSpans.flatMap((scopeSpans) => scopeSpans.spans));
    const fifth = spans.find((item) => item.spanId === spanId(5))!;
    assert.deepEqual(fifth.events.map((item) => item.name), ["event 0", "event 1"], "the first events are kept, in order");
    assert.equal(fifth.droppedEventsCount, 1 + 3, "the SDK's count plus the receiver's");
    assert.deepEqual(fifth.attributes.find((attribute) => attribute.key === droppedEventsCountKey)?.value, { intValue: 3n }, "the receiver's own count");
    assert.deepEqual(fifth.attributes.find((attribute) => attribute.key === droppedLinksCountKey)?.value, undefined, "5 % 4 = 1 link: none dropped");
  });

  test("raw edits: a group, a field of another wire type, unknown fields and a long length varint are stepped over as protobufjs does", () => {
    const group = Buffer.concat([varint(40 * 8 + 3), fieldOfWireType(1, 0, varint(7)), fieldOfWireType(2, 2, Buffer.from("x")), varint(41 * 8 + 3), varint(41 * 8 + 4), varint(40 * 8 + 4)]);
    const eventAsVarint = fieldOfWireType(11, 0, varint(5));
    const unknown = Buffer.concat([fieldOfWireType(99, 2, Buffer.from("unknown")), fieldOfWireType(98, 1, Buffer.alloc(8)), fieldOfWireType(97, 5, Buffer.alloc(4))]);
    const body = rawSpanRequest(Buffer.concat([emptyEvent, group, eventAsVarint, emptyEvent, unknown, emptyEvent, emptyLink, group, emptyLink, emptyEvent]));
    assertSameAsWhole(body);
    assert.deepEqual(cutEventsAndLinks(body, limits)?.dropped.get(0), { events: 2, links: 1 }, "the varint field 11 is not an event");
    // A span's length written with a needless continuation byte: the cut writes it again, shortest.
    const padded = Buffer.concat([fieldOfWireType(1, 2, Buffer.alloc(16, 0x11)), fieldOfWireType(2, 2, Buffer.alloc(8, 0x22)), emptyEvent, emptyEvent, emptyEvent]);
    const paddedBody = fieldOfWireType(1, 2, fieldOfWireType(2, 2, Buffer.concat([varint(2 * 8 + 2), Buffer.from([(padded.byteLength & 0x7f) | 0x80, padded.byteLength >> 7]), padded])));
    assertSameAsWhole(paddedBody);
  });

  test("a body it cannot follow is left to protobufjs, which refuses it too", () => {
    const body = rawSpanRequest(Buffer.concat([emptyEvent, emptyEvent, emptyEvent]));
    for (const broken of [body.subarray(0, body.byteLength - 1), Buffer.concat([body, Buffer.from([0x00])]), Buffer.concat([body, varint(40 * 8 + 3)])]) {
      assert.equal(cutEventsAndLinks(broken, limits), null);
      assert.equal(decodeTraceRequest(broken, "protobuf").ok, false);
    }
  });

  test("mutated bodies: whatever decodes whole is limited alike when cut first, and the cut never throws", () => {
    const bases = [encodeTraceRequest(manySpans()), encodeTraceRequest(sampleTracesDocument())];
    let compared = 0;
    for (const { round, body } of mutatedBodies(bases, 20_261, 1_000)) {
      const whole = limitedWhole(body, limits);
      const cut = limitedCut(body, limits);
      // A flaw inside an event or link the cut leaves out is never read: such a body decodes only when cut.
      if (whole === null) continue;
      assert.deepEqual(cut, whole, `round ${round}`);
      compared += 1;
    }
    assert.ok(compared > 300, `${compared} mutated bodies decoded and compared`);
  });

  test("a million events past the bound are stepped over, not decoded", () => {
    const body = rawSpanRequest(Buffer.concat(Array.from({ length: 1_000_000 }, () => emptyEvent)));
    const started = performance.now();
    const cut = cutEventsAndLinks(body, defaults);
    assert.ok(cut !== null);
    assert.deepEqual(cut.dropped.get(0), { events: 1_000_000 - defaults.maxEventsPerSpan, links: 0 });
    assert.ok(cut.body.byteLength < 4 * 1024, `${cut.body.byteLength} bytes left`);
    const limited = limitedCut(body, defaults)!;
    assert.ok(limited.applied.ok);
    assert.equal(limited.applied.value.droppedEvents, 1_000_000 - defaults.maxEventsPerSpan);
    // Decoding the whole body took ~1 s and hundreds of MiB; the cut and its decoding are a small part of that.
    assert.ok(performance.now() - started < 1_000, `${Math.round(performance.now() - started)} ms`);
  });
});
