/**
 * The order in which a request's stage spans ran, for the choices that take the last one of a stage (the last
 * rerank's ranking, the last context, citation, query rewrite) and for the feedback list. The generation that gives
 * the request its answer and model is the one that ended last instead (last-generation.ts), the one the request's
 * status reads, and a call of unknown kind is read against it by when it ended too.
 *
 * By start time first. OTel JS start times are Date.now()-based (whole milliseconds), so two awaited calls often start
 * in the same millisecond; the trace's own order breaks such a tie by span id, which is random, and a request's model
 * came from its draft generation half the time. The one that ends later is the later one: of two awaited calls that
 * started together, the second ends after the first. Spans still tied keep their order in the trace (the sort is stable).
 */
import type { SpanRecord } from "../00-otlp/span-record.js";

export function inTimeOrder<Item extends { span: SpanRecord }>(items: readonly Item[]): Item[] {
  return [...items].sort((left, right) => compareNanos(left.span.startTimeUnixNano, right.span.startTimeUnixNano) || compareNanos(left.span.endTimeUnixNano, right.span.endTimeUnixNano));
}

function compareNanos(left: bigint, right: bigint): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
