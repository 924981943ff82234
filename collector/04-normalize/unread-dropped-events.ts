/**
 * A span whose SDK dropped events — OTLP `dropped_events_count` above what the
 * receiver itself dropped — for the Case Result's `malformed_attributes` (kind
 * `unreadable_value`), when a list is read from its events (OpenLLMetry's
 * `db.query.result`, one event a vector search hit, in rank order).
 *
 * Why the list is then not read: an SDK past its event limit
 * (OTEL_SPAN_EVENT_COUNT_LIMIT, 128 by default) drops the OLDEST events (JS
 * `Span.addEvent` shifts its list, Python's bounded list does the same), so
 * the hits left are the last ones: read as the list, the best-ranked hits
 * would be missing and every hit left would move up (the 129th ranked first
 * raises Hit@k and MRR). Events carry no index, so which ranks are missing
 * cannot be told (unread-query-result-events.ts), and no rank may be made up.
 * The list is then not available (null), as one with an index gap is
 * (unread-index-gaps.ts): one note a span, however many events were dropped.
 *
 * The events the receiver dropped past RAGSCOPE_MAX_EVENTS_PER_SPAN are not
 * counted here: it keeps the FIRST events (per-span-bounds.ts), so the hits
 * left keep their ranks, and its drop is already listed (kind `truncated`).
 */
import type { SpanRecord } from "../00-otlp/span-record.js";
import { droppedEventsCountKey } from "../00-otlp/per-span-bounds.js";
import type { MalformedAttribute } from "./find-malformed-json.js";

/** Events the span's SDK dropped: the OTLP count less the receiver's own drops (which the receiver added to it). */
export function eventsDroppedBySdk(span: SpanRecord): number {
  const byReceiver = span.attributes[droppedEventsCountKey];
  return Math.max(0, span.droppedEventsCount - (typeof byReceiver === "number" ? byReceiver : 0));
}

/**
 * @param eventName the events the list is read from, e.g. `db.query.result`
 * @param consequence what is not available for it, e.g. `the retrieval's documents are not available`
 * @returns one note, or none when the SDK dropped no event
 */
export function unreadDroppedEvents(span: SpanRecord, eventName: string, kept: number, consequence: string): MalformedAttribute[] {
  const dropped = eventsDroppedBySdk(span);
  if (dropped === 0) return [];
  return [
    {
      attribute: "dropped_events_count",
      error:
        `is ${dropped}: the span's SDK dropped ${dropped} of its events (${kept} ${eventName} events kept), and an SDK past its event count limit ` +
        `(OTEL_SPAN_EVENT_COUNT_LIMIT, 128 by default) drops the oldest ones, so the first ${eventName} events (the best-ranked) may be among those dropped ` +
        `and the ones kept would each move up; the list is not read, so ${consequence}. Raise the limit in the application, or record fewer items, to have the list read`,
    },
  ];
}
