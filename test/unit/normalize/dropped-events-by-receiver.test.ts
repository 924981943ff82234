/**
 * The events a span lost are counted in its OTLP dropped_events_count by the SDK (which drops the OLDEST) and by
 * ragscope's receiver past RAGSCOPE_MAX_EVENTS_PER_SPAN (which keeps the FIRST, adds its drop to the count and records
 * it as `ragscope.dropped_events_count`: per-span-bounds.ts). Only the SDK's drop moves ranks, so only it makes an
 * OpenLLMetry vector search's documents not available (unread-dropped-events.ts); the receiver's leaves the hits it
 * kept at their ranks, and the rebuild lists it as `truncated`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createMapperRegistry } from "../../../collector/04-normalize/normalize-spans.js";
import type { RetrieveObservation } from "../../../collector/04-normalize/stage-observation.js";
import { event, spanRecord } from "./span-fixture.js";

const normalize = createMapperRegistry();

function vectorSearch(droppedEventsCount: number, droppedByReceiver: number | null) {
  const hits = ["refund-1", "shipping-1"].map((id) => event("db.query.result", { "db.query.result.id": id, "db.query.result.document": `text of ${id}` }));
  const span = spanRecord({ name: "chroma.query", attributes: droppedByReceiver === null ? {} : { "ragscope.dropped_events_count": droppedByReceiver }, events: hits, droppedEventsCount });
  return normalize(span).observation as RetrieveObservation;
}

test("events the receiver dropped alone: the hits it kept are read at their ranks", () => {
  const observation = vectorSearch(7, 7);
  assert.deepEqual(observation.documents?.map((document) => document.chunkId), ["refund-1", "shipping-1"]);
  assert.equal(observation.unreadable, undefined);
});

test("one more event in the count than the receiver dropped: the SDK dropped its oldest, and the documents are not available", () => {
  for (const [count, byReceiver] of [
    [8, 7],
    [1, null],
  ] as const) {
    const observation = vectorSearch(count, byReceiver);
    assert.equal(observation.documents, null);
    assert.deepEqual(observation.unreadable?.map((note) => note.attribute), ["dropped_events_count"]);
    assert.match(observation.unreadable![0]!.error, /^is 1: the span's SDK dropped 1 of its events \(2 db\.query\.result events kept\)/);
  }
});
