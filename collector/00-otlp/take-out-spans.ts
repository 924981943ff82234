/**
 * Spans refused out of a document, in place. The receiver only counts them
 * (`removeSpans`: reject-invalid-ids.ts, reject-future-spans.ts,
 * reject-zero-time-spans.ts), since its client, told how many, still has the
 * spans. A Kafka evaluator has no client to tell: what it refuses is all
 * there is of those spans, so it takes them out and keeps them
 * (`takeOutSpans`), to dead-letter them as a request of their own.
 */
import type { ResourceSpansDocument, SpanDocument, TracesDocument } from "./traces-document.js";

/**
 * Removes the spans `refuse` picks from `document`, in place, and returns them as a document of their own — each
 * under its resource and scope (shared, not copied), in their order — or null when it picked none.
 */
export function takeOutSpans(document: TracesDocument, refuse: (span: SpanDocument) => boolean): TracesDocument | null {
  const taken: ResourceSpansDocument[] = [];
  for (const resourceSpans of document.resourceSpans) {
    let takenResource: ResourceSpansDocument | null = null;
    for (const scopeSpans of resourceSpans.scopeSpans) {
      if (!scopeSpans.spans.some(refuse)) continue;
      const kept: SpanDocument[] = [];
      const refused: SpanDocument[] = [];
      for (const span of scopeSpans.spans) (refuse(span) ? refused : kept).push(span);
      scopeSpans.spans = kept;
      if (takenResource === null) {
        takenResource = { resource: resourceSpans.resource, scopeSpans: [], schemaUrl: resourceSpans.schemaUrl };
        taken.push(takenResource);
      }
      takenResource.scopeSpans.push({ scope: scopeSpans.scope, spans: refused, schemaUrl: scopeSpans.schemaUrl });
    }
  }
  return taken.length === 0 ? null : { resourceSpans: taken };
}

/**
 * Removes the spans `refuse` picks from `document`, in place, and counts them: the receiver's refusals (all-zero ids,
 * future or zero times), whose client still holds the spans and is told how many in the answer.
 */
export function removeSpans(document: TracesDocument, refuse: (span: SpanDocument) => boolean): number {
  let removed = 0;
  for (const resourceSpans of document.resourceSpans) {
    for (const scopeSpans of resourceSpans.scopeSpans) {
      if (!scopeSpans.spans.some(refuse)) continue;
      const kept = scopeSpans.spans.filter((span) => !refuse(span));
      removed += scopeSpans.spans.length - kept.length;
      scopeSpans.spans = kept;
    }
  }
  return removed;
}
